package top

// top as the user runs it: which rows, one round (a token renewed once at
// most, error fields redacted, ACTIVITY stale after failed reads), and
// --watch's rounds and cost rules.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/client"
	"github.com/colabdash/colabdash/api/colabfake"
	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/state/monitor"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/cli/kit/kittest"
	"github.com/colabdash/colabdash/ui/ops/opstest"
	"github.com/colabdash/colabdash/ui/render"
)

// addRuntimes adds ready runtimes with these ids, in this order.
func addRuntimes(t *testing.T, e *kittest.Env, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if _, err := e.Srv.AddRuntime(api.Runtime{Name: "runtimes/" + id, ConnectionInfo: &api.ConnectionInfo{}}); err != nil {
			t.Fatal(err)
		}
	}
}

// rowIDs are the first column of top's table lines (the header left out).
func rowIDs(out string) []string {
	var ids []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		ids = append(ids, strings.Fields(l)[0])
	}
	return ids
}

// Without RUNTIME top shows every runtime, ordered by id whatever the
// listing's order; a RUNTIME named twice is one row; none at all is said
// on stderr (and is [] in --json), exit 0.
func TestTopRowsInIDOrder(t *testing.T) {
	e := kittest.Empty(t)
	r := e.Run(Command)
	if r.Code != 0 || r.Out != "" || !strings.Contains(r.Err, "no runtimes") {
		t.Errorf("no runtime: exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	r = e.Run(Command, "--json")
	var rep Report
	if err := json.Unmarshal([]byte(r.Out), &rep); err != nil || r.Code != 0 || !rep.OK || rep.Runtimes == nil || len(rep.Runtimes) != 0 {
		t.Errorf("no runtime, --json: exit %d, %q", r.Code, r.Out)
	}
	addRuntimes(t, e, "rt-c", "rt-a", "rt-b")
	r = e.Run(Command)
	if got := strings.Join(rowIDs(r.Out), " "); r.Code != 0 || got != "rt-a rt-b rt-c" || !strings.HasPrefix(r.Out, "RUNTIME ") {
		t.Errorf("exit %d, rows %q, want rt-a rt-b rt-c:\n%s%s", r.Code, got, r.Out, r.Err)
	}
	r = e.Run(Command, "rt-b", "rt-b")
	if got := strings.Join(rowIDs(r.Out), " "); r.Code != 0 || got != "rt-b" {
		t.Errorf("rt-b named twice: exit %d, rows %q", r.Code, got)
	}
	// An unknown RUNTIME: --json's failure document, and the exit code.
	r = e.Run(Command, "rt-nope", "--json")
	rep = Report{}
	if err := json.Unmarshal([]byte(r.Out), &rep); err != nil || r.Code != kit.ExitNotFound || rep.OK || rep.Error == nil {
		t.Errorf("an unknown runtime, --json: exit %d, %q", r.Code, r.Out)
	}
}

// A runtime get_runtime no longer finds reads GONE, "runtime gone (deleted
// or reclaimed)"; any other
// get_runtime failure is named as such. Exit 7 when some runtimes were
// read and others not, 4 when none was.
func TestTopRuntimeNotProbed(t *testing.T) {
	e := kittest.Empty(t)
	addRuntimes(t, e, "rt-a")
	if _, err := e.Srv.AddRuntime(api.Runtime{Name: "runtimes/rt-b"}); err != nil { // listed without connectionInfo
		t.Fatal(err)
	}
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: api.ToolGetRuntime, Text: colabfake.GoogleErrorText(api.NotFound, "no such runtime", "", 0)})
	r := e.Run(Command)
	if r.Code != kit.ExitPartial || !strings.Contains(r.Out, "GONE        runtime gone (deleted or reclaimed)") {
		t.Errorf("exit %d, want %d and rt-b gone:\n%q\n%q", r.Code, kit.ExitPartial, r.Out, r.Err)
	}
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: api.ToolGetRuntime, Text: colabfake.GoogleErrorText(api.PermissionDenied, "denied", "", 0)})
	r = e.Run(Command, "rt-b")
	if r.Code != kit.ExitAPI || !strings.Contains(r.Out, "get_runtime: ") || strings.Contains(r.Out, "runtime gone") {
		t.Errorf("exit %d, want %d and get_runtime's failure:\n%s%s", r.Code, kit.ExitAPI, r.Out, r.Err)
	}
}

// --watch's interval: a duration or a number of seconds, at least 1 s,
// given as --watch=INTERVAL or as the last word; anything else is a
// usage error that names it.
func TestTopWatchInterval(t *testing.T) {
	for in, want := range map[string]time.Duration{"1s": time.Second, "10s": 10 * time.Second, "7": 7 * time.Second, "2m": 2 * time.Minute} {
		if d, err := parseInterval(in); err != nil || d != want {
			t.Errorf("parseInterval(%q) = %v, %v; want %v", in, d, err, want)
		}
	}
	for in, want := range map[string]string{"999ms": "must be at least 1s", "0": "must be at least 1s", "7x": "not a duration", "soon": "not a duration", "07": "not a duration"} {
		if _, err := parseInterval(in); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("parseInterval(%q): %v, want %q", in, err, want)
		}
	}
	e := kittest.Empty(t)
	addRuntimes(t, e, "rt-a")
	r := e.Run(Command, "rt-a", "--watch", "0.5s")
	if r.Code != kit.ExitUsage || !strings.Contains(r.Err, `invalid argument "0.5s" for "--watch" flag: must be at least 1s`) {
		t.Errorf("exit %d, stderr %q", r.Code, r.Err)
	}
	r = e.Run(Command, "rt-a", "--watch", "9x")
	if r.Code != kit.ExitUsage || !strings.Contains(r.Err, `invalid argument "9x" for "--watch" flag: not a duration`) {
		t.Errorf("--watch 9x: exit %d, stderr %q", r.Code, r.Err)
	}
	r = e.Run(Command, "rt-a", "--watch=0.5s")
	if r.Code != kit.ExitUsage || !strings.Contains(r.Err, "must be at least 1s") {
		t.Errorf("--watch=0.5s: exit %d, stderr %q", r.Code, r.Err)
	}
}

// watchRun runs top with args until the emulator's runtime proxy has
// served stopAt requests (the first of a round it then ends), and
// returns what the user saw. onRequest, when set, sees each request's
// number first.
func watchRun(t *testing.T, o colabfake.Options, tm kittest.Term, stopAt int, onRequest func(e *kittest.Env, n int), args ...string) (*kittest.Env, kittest.Result) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tm.Ctx = ctx
	return runCounting(t, o, tm, []string{"rt-a"}, func(e *kittest.Env, n int, _ *http.Request) {
		if onRequest != nil {
			onRequest(e, n)
		}
		if n == stopAt {
			cancel()
		}
	}, args...)
}

// runCounting runs top with args on tm over runtimes ids of an emulator
// started with o, calling onRequest with the count of the emulator's
// proxy requests so far (this one included) as each arrives, one call at
// a time.
func runCounting(t *testing.T, o colabfake.Options, tm kittest.Term, ids []string, onRequest func(e *kittest.Env, n int, r *http.Request), args ...string) (*kittest.Env, kittest.Result) {
	t.Helper()
	var (
		mu sync.Mutex
		n  int
		e  *kittest.Env
	)
	o.OnProxyRequest = func(r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		n++
		onRequest(e, n, r)
	}
	e = kittest.New(t, o)
	addRuntimes(t, e, ids...)
	return e, e.RunTerm(tm, Command, args...)
}

// top --watch --json prints one document a round, each ok, until ctrl+c
// (exit 0).
func TestTopWatchJSONOneDocumentARound(t *testing.T) {
	_, r := watchRun(t, colabfake.Options{Seed: colabfake.SeedEmpty}, kittest.Term{}, 8, nil, "--watch", "--json", "1")
	dec := json.NewDecoder(strings.NewReader(r.Out))
	docs := 0
	for dec.More() {
		var rep Report
		if err := dec.Decode(&rep); err != nil {
			t.Fatalf("%v:\n%s", err, r.Out)
		}
		if !rep.OK || len(rep.Runtimes) != 1 || rep.Runtimes[0].ResourcesStatus != "ok" {
			t.Errorf("round %d: %+v", docs+1, rep)
		}
		docs++
	}
	if r.Code != 0 || docs != 2 {
		t.Errorf("exit %d, %d documents; want 0 and one a round (2 before ctrl+c)\n%s", r.Code, docs, r.Out)
	}
}

// Off a terminal --watch appends each round's lines, the header with the
// first only, each line after its time; every round lists the runtimes
// again, so one created meanwhile shows.
func TestTopWatchAppendsRounds(t *testing.T) {
	added := func(e *kittest.Env, n int) {
		if n == 4 { // the first round's last request (resources, kernels, terminals, jobs)
			addRuntimes(t, e, "rt-b")
		}
	}
	_, r := watchRun(t, colabfake.Options{Seed: colabfake.SeedEmpty}, kittest.Term{}, 9, added, "--watch", "1")
	lines := strings.Split(strings.TrimRight(r.Out, "\n"), "\n")
	if r.Code != 0 || len(lines) != 4 || !strings.HasPrefix(lines[0], "TIME      RUNTIME") || strings.Count(r.Out, "RUNTIME") != 1 {
		t.Fatalf("exit %d, want a header and three lines:\n%s%s", r.Code, r.Out, r.Err)
	}
	var ids []string
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if _, err := time.Parse("15:04:05", f[0]); err != nil {
			t.Errorf("line %q does not start with its time", l)
		}
		ids = append(ids, f[1])
	}
	if got := strings.Join(ids, " "); got != "rt-a rt-a rt-b" {
		t.Errorf("rows %q, want rt-a, then rt-a and the new rt-b", got)
	}
}

// On a terminal --watch redraws the table in place under its title.
func TestTopWatchRedrawsInPlace(t *testing.T) {
	_, r := watchRun(t, colabfake.Options{Seed: colabfake.SeedEmpty}, kittest.Term{OutTTY: true}, 8, nil, "--watch=1s")
	if r.Code != 0 || strings.Count(r.Out, "\x1b[H\x1b[2J") != 2 || strings.Count(r.Out, "colabdash top · every 1s · ") != 2 ||
		strings.Count(r.Out, "\nRUNTIME ") != 2 || strings.Count(r.Out, "\nrt-a ") != 2 || strings.Contains(r.Out, "no runtimes") {
		t.Errorf("exit %d, want two screens, each a title and the table:\n%q", r.Code, r.Out)
	}
}

// A listing that fails between rounds is said on stderr, and the next
// round reads the runtimes of the last listing.
func TestTopWatchSurvivesAFailedListing(t *testing.T) {
	fail := func(e *kittest.Env, n int) {
		if n == 4 {
			e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: api.ToolListRuntimes, Text: colabfake.GoogleErrorText(api.PermissionDenied, "denied", "", 0)})
		}
	}
	_, r := watchRun(t, colabfake.Options{Seed: colabfake.SeedEmpty}, kittest.Term{}, 8, fail, "--watch", "1")
	if r.Code != 0 || strings.Count(r.Out, " rt-a ") != 2 || !strings.Contains(r.Err, "denied") {
		t.Errorf("exit %d, want two rounds and the listing failure on stderr:\n%q\n%q", r.Code, r.Out, r.Err)
	}
}

// --help shows --watch's optional interval, and no "(default …)" after
// its text: --watch is off unless given.
func TestTopWatchFlagUsage(t *testing.T) {
	cmd := Command(&kit.Globals{}, &kit.Streams{})
	u := cmd.Flags().FlagUsages()
	if !strings.Contains(u, "--watch interval[=5s]") || strings.Contains(u, "lines (default") {
		t.Errorf("usage:\n%s", u)
	}
	f := cmd.Flags().Lookup("watch")
	if err := cmd.Flags().Set("watch", "10s"); err != nil || f.Value.String() != "10s" {
		t.Errorf("--watch=10s: %v, reads back %q", err, f.Value.String())
	}
}

// --watch's cost rules, against the emulator's runtime proxy
// on a fake clock: the requests of a round after the first are bounded
// whatever the number of runtimes, a runtime whose read failed backs off
// 30 s → 5 min, and one runtime never has two requests at once.

// watchEnv starts the emulator with n runtimes and no seed, and returns
// it, its runtimes (with their proxy tokens) and a prober on it.
func watchEnv(t *testing.T, n int, o colabfake.Options) (*colabfake.Server, []api.Runtime, *prober) {
	t.Helper()
	o.Runtimes, o.Seed, o.RuntimeLimit = n, colabfake.SeedEmpty, -1
	srv, cli := opstest.Emulator(t, o, client.Options{})
	rts, err := targets(srv.Runtimes(), nil)
	if err != nil {
		t.Fatal(err)
	}
	p := newProber(&kit.Connection{Svc: cli}, &api.Redactor{})
	p.watching = true
	return srv, rts, p
}

// fakeClock is a clock the test moves.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func proxyRequests(srv *colabfake.Server) int { n, _ := srv.ProxyRequests(); return n }

// At 1,000 runtimes a round at the default interval reads two runtimes
// (eight requests of monitor.MaxPerMinute's share of 5 s, ten: resources,
// kernels, terminals and the jobs directory each), those read longest
// ago first, so the runtimes take turns; the rows of the others keep what
// their last read found.
func TestWatchRoundBounded(t *testing.T) {
	if got := RoundLimit(DefaultInterval); got != 2 {
		t.Fatalf("RoundLimit(5s) = %d, want 2 (120 requests a minute, four a runtime)", got)
	}
	if RoundLimit(time.Second) != 1 || RoundLimit(30*time.Second) != 15 {
		t.Fatalf("RoundLimit(1s) = %d, RoundLimit(30s) = %d", RoundLimit(time.Second), RoundLimit(30*time.Second))
	}
	srv, rts, p := watchEnv(t, 1000, colabfake.Options{})
	clk := &fakeClock{time.Now()}
	limit := RoundLimit(DefaultInterval)
	read := map[string]int{}
	for round := 0; round < 3; round++ {
		before := proxyRequests(srv)
		rows := p.round(context.Background(), rts, clk.now, limit)
		if n := proxyRequests(srv) - before; n != readRequests*limit {
			t.Fatalf("round %d at 1,000 runtimes: %d proxy requests, want %d", round, n, readRequests*limit)
		}
		if len(rows) != 1000 {
			t.Fatalf("round %d: %d rows", round, len(rows))
		}
		for _, r := range rows {
			if r.mon != nil && r.mon.ResourcesAt.Equal(clk.t) {
				read[r.rt.Name]++
			}
		}
		clk.t = clk.t.Add(DefaultInterval)
	}
	if len(read) != 3*limit {
		t.Fatalf("3 rounds read %d distinct runtimes, want %d (each round the ones read longest ago)", len(read), 3*limit)
	}
}

// A runtime whose read failed is read again 30 s later, then 60 s, 120 s
// … (monitor.Backoff), and says when; rounds in between send it nothing.
// A success resets it to every round.
func TestWatchBackoff(t *testing.T) {
	srv, rts, p := watchEnv(t, 2, colabfake.Options{})
	srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, PathPrefix: "api/colab/resources", Status: 500, Times: -1})
	start := time.Now()
	clk := &fakeClock{start}
	var readAt []time.Duration // when rounds sent requests
	var note string
	for sec := 0; sec <= 240; sec += 5 {
		clk.t = start.Add(time.Duration(sec) * time.Second)
		before := proxyRequests(srv)
		rows := p.round(context.Background(), rts, clk.now, RoundLimit(DefaultInterval))
		if n := proxyRequests(srv) - before; n > 0 {
			// Two runtimes: resources, kernels, terminals, and the jobs
			// directory at most every 30 s.
			if want := 6 + 2*btoi(sec%30 == 0); n != want {
				t.Fatalf("at %ds: %d requests, want %d", sec, n, want)
			}
			readAt = append(readAt, time.Duration(sec)*time.Second)
		} else if note == "" {
			note = strings.Join(rows[0].notes(), "; ")
		}
	}
	want := []time.Duration{0, 30 * time.Second, 90 * time.Second, 210 * time.Second}
	if len(readAt) != len(want) {
		t.Fatalf("reads at %v, want %v (backing off 30 s, 60 s, 120 s)", readAt, want)
	}
	for i := range want {
		if readAt[i] != want[i] {
			t.Fatalf("reads at %v, want %v", readAt, want)
		}
	}
	if !strings.Contains(note, "resources unavailable: HTTP 500") || !strings.Contains(note, "backing off: next read ") {
		t.Errorf("a runtime backing off says %q", note)
	}
	// Next read due at 210 + 240 s; the fault gone, it succeeds and the
	// runtime is read every round again.
	srv.ClearProxyFaults()
	for _, sec := range []int{450, 455, 460} {
		clk.t = start.Add(time.Duration(sec) * time.Second)
		before := proxyRequests(srv)
		rows := p.round(context.Background(), rts, clk.now, RoundLimit(DefaultInterval))
		if n := proxyRequests(srv) - before; n != 6+2*btoi(sec%30 == 0) || rows[0].failed() || strings.Contains(strings.Join(rows[0].notes(), ";"), "HTTP 500") ||
			!rows[0].retryAt.IsZero() {
			t.Fatalf("at %ds after the fault: %d requests, row %v", sec, n, rows[0].notes())
		}
	}
}

// Never two requests at once for one runtime: with 50 ms a request, each
// runtime's next request reaches the proxy at least 50 ms after its
// previous one, while eight runtimes are read at once.
func TestWatchNoOverlapPerRuntime(t *testing.T) {
	const latency = 50 * time.Millisecond
	var mu sync.Mutex
	seen := map[string][]time.Time{}
	_, rts, p := watchEnv(t, 16, colabfake.Options{ProxyLatency: latency, OnProxyRequest: func(r *http.Request) {
		id := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/proxy/"), "/", 2)[0]
		mu.Lock()
		seen[id] = append(seen[id], time.Now())
		mu.Unlock()
	}})
	t0 := time.Now()
	p.round(context.Background(), rts, time.Now, 0)
	took := time.Since(t0)
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 16 {
		t.Fatalf("%d runtimes reached the proxy, want 16", len(seen))
	}
	for id, at := range seen {
		for i := 1; i < len(at); i++ {
			if gap := at[i].Sub(at[i-1]); gap < latency {
				t.Errorf("%s: two requests %v apart, the first not answered yet", id, gap)
			}
		}
	}
	// 32 requests of 50 ms one after another would take 1.6 s.
	if took >= 32*latency {
		t.Errorf("a round of 16 runtimes took %v: not read in parallel", took)
	}
}

// A round renews a runtime's token once at most: the proxy refuses the
// listed token for the resources (renewed, read again) and refuses the
// kernels even with the fresh one; that is the kernels' failure, not a
// second get_runtime.
func TestTopRenewsATokenOnceARound(t *testing.T) {
	e := kittest.Demo(t)
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, PathPrefix: "api/colab/resources", Status: 404, Times: 1})
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, PathPrefix: "api/kernels", Status: 404, Times: -1})
	r := e.Run(Command, "rt-t4demo7k2p", "--json")
	if n := e.Srv.CallCount(api.ToolGetRuntime); n != 1 {
		t.Errorf("one round renewed the token %d times, want once; stderr %q", n, r.Err)
	}
	var rep Report
	if err := json.Unmarshal([]byte(r.Out), &rep); err != nil || len(rep.Runtimes) != 1 {
		t.Fatalf("%v: %q", err, r.Out)
	}
	if rr := rep.Runtimes[0]; rr.ResourcesStatus != "ok" || rr.KernelsError == "" || rr.OK {
		t.Errorf("resources %q, kernels error %q, ok %v: want the resources read and the kernels failed", rr.ResourcesStatus, rr.KernelsError, rr.OK)
	}
}

// Every error field of top's output leaves through the redactor, in
// --json and in the table: an error text that quotes a secret the
// redactor knows (one learnt after the text was made, which no earlier
// layer could clean) does not print it.
func TestTopRedactsErrorFields(t *testing.T) {
	const secret = "proxy-token-s3cr3t-4b7e9d"
	red := &api.Redactor{}
	red.Add(secret)
	quote := func(op string) error {
		return &apimon.Error{Op: op, Kind: apimon.KindUnavailable, Status: 500, Message: "HTTP 500: bad token " + secret}
	}
	at := time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)
	st := monitor.NewStore()
	st.RecordResources("runtimes/rt-a", at, apimon.Resources{}, quote("resources"))
	st.RecordKernels("runtimes/rt-a", at, nil, quote("kernels"))
	rows := []row{
		newRow(api.Runtime{Name: "runtimes/rt-a"}, st.Get("runtimes/rt-a"), "", at),
		newRow(api.Runtime{Name: "runtimes/rt-b"}, nil, "get_runtime: "+errors.New("denied for "+secret).Error(), at),
	}
	for _, asJSON := range []bool{true, false} {
		var out bytes.Buffer
		v := &verb{Verb: kit.NewVerb(&kit.Globals{Logs: kit.Logs{Red: red}}, &kit.Streams{Out: &out, Err: &out}, "top")}
		v.AsJSON = asJSON
		if err := v.print(rows); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.String(), secret) || !strings.Contains(out.String(), "bad token") || !strings.Contains(out.String(), "denied for") {
			t.Errorf("--json %v: the secret is printed, or the errors are missing:\n%s", asJSON, out.String())
		}
	}
}

// Once the kernels' reads have failed monitor.StaleAfter times in a row,
// top no longer shows the last list's word: ACTIVITY says stale, KERNELS
// shows none, and --json's activity is unknown; one failure keeps the
// last reading (with the error in the note).
func TestTopActivitySaysStaleAfterFailedReads(t *testing.T) {
	at := time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)
	st := monitor.NewStore()
	busy := []apimon.Kernel{{ID: "k1", ExecutionState: "busy", LastActivity: at}}
	st.RecordKernels("runtimes/rt-a", at, busy, nil)
	fail := &apimon.Error{Op: "kernels", Kind: apimon.KindUnavailable, Status: 500, Message: "HTTP 500"}
	for i := 1; i <= monitor.StaleAfter; i++ {
		at = at.Add(5 * time.Second)
		st.RecordKernels("runtimes/rt-a", at, nil, fail)
		r := newRow(api.Runtime{Name: "runtimes/rt-a"}, st.Get("runtimes/rt-a"), "", at)
		word, state := r.cells()[6], r.report().Activity.State
		if i < monitor.StaleAfter {
			if !strings.HasPrefix(word, "busy") || state != "busy" {
				t.Errorf("after %d failed read(s): ACTIVITY %q, --json state %q; want the last reading, busy", i, word, state)
			}
			continue
		}
		if none := render.KernelsCell(monitor.Activity{}); word != "stale" || state != "unknown" || r.cells()[5] != none {
			t.Errorf("after %d failed reads: ACTIVITY %q, KERNELS %q, --json state %q; want stale, none, unknown", i, word, r.cells()[5], state)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A runtime created and never used (no kernel, terminal or job ever) is
// quiet since top first listed it, as in the dashboard: --watch's note
// counts up ("idle 45m since first seen") and --json says by "first
// seen" with since and forSeconds; a single read says it saw it just now
// and cannot tell how long, with the same verdict in --json.
func TestTopNeverUsedRuntimeIsQuietSinceFirstSeen(t *testing.T) {
	_, rts, p := watchEnv(t, 1, colabfake.Options{})
	t0 := time.Now()
	clk := &fakeClock{t0}
	check := func(r row, note string, forSeconds int64) {
		t.Helper()
		a := r.report().Activity
		if cells := r.cells(); cells[6] != "no kernels" || !strings.Contains(cells[7], note) {
			t.Errorf("ACTIVITY %q, NOTE %q; want no kernels, %q", cells[6], cells[7], note)
		}
		if a.State != "no kernels" || a.By != string(monitor.SignalFirstSeen) || a.Since == nil || *a.Since != rfc3339(t0) || a.ForSeconds != forSeconds {
			t.Errorf("--json activity %+v (since %v); want no kernels by first seen since %s for %ds", a, a.Since, rfc3339(t0), forSeconds)
		}
	}
	check(p.round(context.Background(), rts, clk.now, 0)[0], "idle 0s since first seen", 0)
	clk.t = t0.Add(45 * time.Minute)
	check(p.round(context.Background(), rts, clk.now, 0)[0], "idle 45m since first seen", 45*60)

	e := kittest.Empty(t)
	addRuntimes(t, e, "rt-a")
	r := e.Run(Command)
	if r.Code != 0 || !strings.Contains(r.Out, "no kernels") || !strings.Contains(r.Out, oneReadQuiet) {
		t.Errorf("a single read: exit %d, want no kernels and %q:\n%s%s", r.Code, oneReadQuiet, r.Out, r.Err)
	}
	r = e.Run(Command, "--json")
	var rep Report
	if err := json.Unmarshal([]byte(r.Out), &rep); err != nil || len(rep.Runtimes) != 1 {
		t.Fatalf("a single read, --json: %v:\n%s", err, r.Out)
	}
	if a := rep.Runtimes[0].Activity; a.State != "no kernels" || a.By != "first seen" || a.Since == nil || a.ForSeconds > 60 {
		t.Errorf("a single read, --json activity %+v; want no kernels by first seen, since this read", a)
	}
}
