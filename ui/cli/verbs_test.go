package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/secrettest"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/cli/runtimes"
	"github.com/colabdash/colabdash/ui/report"
	"github.com/colabdash/colabdash/ui/termtext/termtexttest"
)

func TestSpecsVerb(t *testing.T) {
	e := demoVerbEnv(t)
	code, out, errs := e.run("specs", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Subscription struct{ Tier string }
		RuntimeSpecs []struct {
			Spec        string
			RuntimeSpec api.RuntimeSpecKey
			Eligible    *bool
		}
	}
	mustJSON(t, out, &rep)
	if rep.Subscription.Tier != "SUBSCRIPTION_TIER_PRO" || len(rep.RuntimeSpecs) < 5 {
		t.Fatalf("specs: %+v", rep)
	}
	var eligible, not int
	for _, s := range rep.RuntimeSpecs {
		if s.Eligible == nil || s.Spec != s.RuntimeSpec.String() {
			t.Fatalf("entry %+v: eligible missing or spec not the short form", s)
		}
		if *s.Eligible {
			eligible++
		} else {
			not++
		}
	}
	if eligible == 0 || not == 0 {
		t.Fatalf("demo Pro tier: %d eligible, %d not", eligible, not)
	}
	code, out, _ = e.run("specs")
	if code != 0 || !strings.Contains(out, "Colab Pro · ") || !regexp.MustCompile(`(?m)^GPU/T4/STANDARD +yes$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^GPU/H100/STANDARD +no, not eligible on tier Pro$`).MatchString(out) {
		t.Fatalf("specs table:\n%s", out)
	}
	termtexttest.NoControls(t, "specs without a terminal", out)
}

// Colour only on a terminal, never with NO_COLOR.
func TestVerbsNoColor(t *testing.T) {
	e := demoVerbEnv(t)
	_, out, _ := e.runTerm(term{outTTY: true}, "specs")
	if !strings.Contains(out, "\x1b[") {
		t.Fatalf("no colour on a terminal:\n%q", out)
	}
	t.Setenv("NO_COLOR", "1")
	_, out, _ = e.runTerm(term{outTTY: true}, "specs")
	termtexttest.NoControls(t, "specs with NO_COLOR", out)
}

func TestCreateVerb(t *testing.T) {
	e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedDemo, CreateDelay: 50 * time.Millisecond, RuntimeLimit: -1})
	code, out, errs := e.run("create", "--spec", "cpu/highmem", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep map[string]any
	mustJSON(t, out, &rep)
	for _, k := range []string{"name", "runtimeSpec", "version", "connectionInfo", "tokenExpiresInSeconds", "sessions", "requestId"} {
		if _, ok := rep[k]; !ok {
			t.Errorf("create --json lacks %q: %s", k, out)
		}
	}
	m := requestIDLine.FindStringSubmatch(errs)
	if m == nil || rep["requestId"] != m[1] || !strings.Contains(errs, "--request-id "+m[1]) {
		t.Fatalf("requestId %v not printed on stderr before sending: %q", rep["requestId"], errs)
	}
	if spec := rep["runtimeSpec"].(map[string]any); spec["variant"] != "VARIANT_CPU" || spec["shape"] != "SHAPE_HIGHMEM" {
		t.Fatalf("runtimeSpec %v", spec)
	}
	if e.srv.RuntimesCreated() != 1 {
		t.Fatalf("%d runtimes created", e.srv.RuntimesCreated())
	}
	if _, ok := rep["connectionInfo"].(map[string]any)["token"]; ok {
		t.Fatal("create --json printed the proxy token")
	}

	// Human output, --wait, --id, --version; remembered for --last.
	code, out, errs = e.run("create", "--variant", "GPU", "--accelerator", "t4", "--id", "my-rt", "--version", "2025.10", "--wait")
	if code != 0 || !strings.HasPrefix(out, "created my-rt (GPU/T4/STANDARD, version 2025.10)\nurl http://127.0.0.1:") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, errs = e.run("create", "--last", "--json")
	if code != 0 || !strings.Contains(out, `"accelerator": "T4"`) || !strings.Contains(out, `"version": "2025.10"`) {
		t.Fatalf("--last: exit %d %s %s", code, out, errs)
	}
	if e.srv.RuntimesCreated() != 3 {
		t.Fatalf("%d runtimes created, want 3", e.srv.RuntimesCreated())
	}
}

// Wrong input is a usage error before anything is sent.
func TestCreateVerbUsage(t *testing.T) {
	e := demoVerbEnv(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"create"}, "give exactly one of --spec"},
		{[]string{"create", "--spec", "CPU", "--last"}, "give exactly one of --spec"},
		{[]string{"create", "--spec", "CPU", "--variant", "GPU"}, "give exactly one of --spec"},
		{[]string{"create", "--accelerator", "T4"}, "need --variant"},
		{[]string{"create", "--spec", "GPU"}, "needs an accelerator"},
		{[]string{"create", "--spec", "CPU", "--id", "Bad_ID"}, "--id:"},
		{[]string{"create", "--spec", "CPU", "--request-id", "not-a-uuid"}, "--request-id must be a UUID4"},
		{[]string{"create", "--spec", "CPU", "--request-id", "6ba7b810-9dad-11d1-80b4-00c04fd430c8"}, "--request-id must be a UUID4"}, // v1
		// Field trial: an empty id (a failed $(uuidgen)) was replaced by a
		// fresh one, so such a script made a new runtime on every run.
		{[]string{"create", "--spec", "CPU", "--request-id", ""}, "--request-id is empty"},
		{[]string{"create", "--spec", "CPU", "--request-id=", "--json"}, "--request-id is empty"},
		{[]string{"create", "--spec", "CPU", "--request-id", " "}, "--request-id is empty"},
		{[]string{"create", "--last"}, "no last spec remembered yet"},
		{[]string{"create", "--spec", "XPU/Z1"}, "XPU/Z1/STANDARD: not a runtime spec Colab offers"},
	} {
		code, out, errs := e.run(tc.args...)
		if slices.Contains(tc.args, "--json") {
			// --json: the failure envelope on stdout instead of nothing.
			var doc kit.Envelope
			if json.Unmarshal([]byte(out), &doc) != nil || doc.OK || doc.Error == nil || doc.Error.Code != "usage" || !strings.Contains(doc.Error.Message, tc.want) {
				t.Errorf("%v: stdout %q, want the usage envelope", tc.args, out)
			}
			out = ""
		}
		if code != kit.ExitUsage || out != "" || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") > 2 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q (want 2 and %q)", tc.args, code, out, errs, tc.want)
		}
	}
	if n := e.srv.CreateCalls(); n != 0 {
		t.Fatalf("%d create_runtime calls for bad input", n)
	}
}

// The connection is reset after create_runtime reached the server, which
// created the runtime: create lists the runtimes before sending anything
// again, finds it, and succeeds with it (one runtime, one create call).
func TestCreateResetFoundByRelist(t *testing.T) {
	e := emptyVerbEnv(t)
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultReset, Tool: "create_runtime"})
	code, out, errs := e.run("create", "--spec", "CPU/STANDARD", "--json")
	var rep struct{ Name string }
	mustJSON(t, out, &rep)
	if code != 0 || len(e.srv.Runtimes()) != 1 || rep.Name != e.srv.Runtimes()[0].Name || !strings.Contains(errs, "nothing sent again") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if e.srv.CreateCalls() != 1 || e.srv.RuntimesCreated() != 1 {
		t.Fatalf("%d create calls, %d created; want the one, found by the re-list", e.srv.CreateCalls(), e.srv.RuntimesCreated())
	}
}

// The connection is reset before the server saw the create: the re-list
// does not find it, so the outcome stays unknown: create fails saying so,
// with the request id; re-run with that id, it makes the one runtime.
func TestCreateResetThenRerunWithRequestID(t *testing.T) {
	e := emptyVerbEnv(t)
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultReset, Tool: "create_runtime", Unprocessed: true})
	code, out, errs := e.run("create", "--spec", "CPU/STANDARD", "--json")
	m := requestIDLine.FindStringSubmatch(errs)
	var doc kit.Envelope
	if code != kit.ExitAPI || json.Unmarshal([]byte(out), &doc) != nil || doc.Error == nil || doc.Error.Code != "network" || m == nil || !strings.Contains(errs, "outcome unknown") ||
		!strings.Contains(errs, "to get it, run: colabdash create --spec CPU/STANDARD --json --request-id "+m[1]) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if n := e.srv.RuntimesCreated(); n != 0 || e.srv.CreateCalls() != 0 {
		t.Fatalf("the reset create made %d runtimes in %d calls, want none (the server never saw it)", n, e.srv.CreateCalls())
	}
	code, out, errs = e.run("create", "--spec", "CPU/STANDARD", "--json", "--request-id", m[1])
	if code != 0 {
		t.Fatalf("re-run: exit %d: %s", code, errs)
	}
	var rep struct{ Name, RequestID string }
	mustJSON(t, out, &rep)
	if rep.Name == "" || rep.RequestID != m[1] || e.srv.RuntimesCreated() != 1 || len(e.srv.Runtimes()) != 1 {
		t.Fatalf("re-run returned %+v; %d created, %d listed (want one runtime)", rep, e.srv.RuntimesCreated(), len(e.srv.Runtimes()))
	}
	// Run again with the same id: the same runtime, not a second.
	if code, out, errs = e.run("create", "--spec", "CPU/STANDARD", "--json", "--request-id", m[1]); code != 0 {
		t.Fatalf("second re-run: exit %d: %s", code, errs)
	}
	var again struct{ Name string }
	mustJSON(t, out, &again)
	if again.Name != rep.Name || e.srv.RuntimesCreated() != 1 {
		t.Fatalf("second re-run returned %s, %d created (want %s, 1)", again.Name, e.srv.RuntimesCreated(), rep.Name)
	}
}

// DEADLINE_EXCEEDED past the client's own re-sends: create re-sends the
// identical call itself, and one runtime results.
func TestCreateReSendsAfterDeadline(t *testing.T) {
	e := emptyVerbEnv(t)
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: "create_runtime", Times: kit.RetryAttempts + 1})
	code, out, errs := e.run("create", "--spec", "CPU")
	if code != 0 || !strings.HasPrefix(out, "created rt-") {
		t.Fatalf("exit %d %q %q", code, out, errs)
	}
	if e.srv.RuntimesCreated() != 1 || e.srv.CreateCalls() != kit.RetryAttempts+2 {
		t.Fatalf("%d created in %d calls", e.srv.RuntimesCreated(), e.srv.CreateCalls())
	}
}

// Refusals give the dashboard's per-reason explanation and exit 5; with
// --json stdout stays empty.
func TestCreateRefusals(t *testing.T) {
	for _, tc := range []struct {
		name  string
		o     colabfake.Options
		fault *colabfake.Fault
		spec  string
		want  []string
	}{
		{"ineligible", colabfake.Options{Seed: colabfake.SeedEmpty}, nil, "GPU/A100", []string{"GPU/A100/STANDARD: not eligible on tier Free (eligible: CPU/STANDARD"}},
		{"too many", colabfake.Options{Seed: colabfake.SeedDemo, RuntimeLimit: 3}, nil, "CPU",
			[]string{"Too many active runtimes", "TOO_MANY_ACTIVE_RUNTIMES", "colabdash delete RUNTIME"}},
		{"usage quota", colabfake.Options{Seed: colabfake.SeedDemo},
			&colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: "create_runtime", Reason: api.ReasonQuotaExceededUsageTime},
			"GPU/T4", []string{"Usage limit reached (QUOTA_EXCEEDED_USAGE_TIME)", "tier's usage quota is used up", "try: colabdash create --spec CPU/STANDARD"}},
		{"no capacity", colabfake.Options{Seed: colabfake.SeedDemo},
			&colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: "create_runtime"},
			"GPU/T4", []string{"Accelerator T4 unavailable", "try: colabdash create --spec GPU/L4/STANDARD"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newVerbEnv(t, tc.o)
			if tc.fault != nil {
				e.srv.Inject(*tc.fault)
			}
			before := e.srv.RuntimesCreated()
			code, out, errs := e.run("create", "--spec", tc.spec, "--json")
			var doc kit.Envelope
			if code != kit.ExitQuota || json.Unmarshal([]byte(out), &doc) != nil || doc.Error == nil || doc.Error.Code != "quota" {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errs)
				}
			}
			if e.srv.RuntimesCreated() != before {
				t.Fatal("a refused create created a runtime")
			}
		})
	}
}

func TestDeleteVerb(t *testing.T) {
	e := demoVerbEnv(t)
	// Without a terminal and without --yes: refused before any change
	// (the runtimes are listed, to count only real targets), even when
	// stdin holds a "y".
	for _, tm := range []term{{}, {in: "y\n"}, {in: "y\n", inTTY: true}} {
		code, out, errs := e.runTerm(tm, "delete", "rt-cpudemo4qx")
		if code != kit.ExitUsage || out != "" || !strings.Contains(errs, "pass --yes to delete 1 runtime") {
			t.Fatalf("%+v: exit %d %q %q", tm, code, out, errs)
		}
	}
	if n := e.srv.CallCount(""); n != e.srv.CallCount("list_runtimes") {
		t.Fatalf("%d tool calls before confirmation besides list_runtimes", n-e.srv.CallCount("list_runtimes"))
	}
	// On a terminal only y or yes confirms; the question goes to stderr.
	for _, answer := range []string{"", "\n", "ye\n", "no\n", "n\n"} {
		code, out, errs := e.runTerm(term{in: answer, inTTY: true, errTTY: true}, "delete", "rt-cpu")
		if code != kit.ExitFailure || out != "" || !strings.Contains(errs, "Delete 1 runtime?") || !strings.Contains(errs, "rt-cpudemo4qx  CPU/STANDARD") ||
			!strings.Contains(errs, "delete cancelled") {
			t.Fatalf("answer %q: exit %d %q %q", answer, code, out, errs)
		}
	}
	if n := e.srv.CallCount("delete_runtime"); n != 0 {
		t.Fatalf("deleted without a y: %d calls", n)
	}
	code, out, errs := e.runTerm(term{in: "y\n", inTTY: true, errTTY: true}, "delete", "runtimes/rt-cpudemo4qx")
	if code != 0 || out != "deleted rt-cpudemo4qx\n" || len(e.srv.Runtimes()) != 2 {
		t.Fatalf("y: exit %d %q %q", code, out, errs)
	}
	// A missing runtime fails the command; one deleted and one missing is
	// a partial failure (7), reported per runtime in JSON.
	code, out, errs = e.run("delete", "rt-cpudemo4qx", "--yes")
	if code != kit.ExitNotFound || !strings.Contains(errs, `no runtime "rt-cpudemo4qx" (live: rt-t4demo7k2p, rt-v6edemo2mw)`) {
		t.Fatalf("missing: exit %d %q %q", code, out, errs)
	}
	code, out, errs = e.run("delete", "rt-v6e", "rt-gone", "--yes", "--json")
	var rep deleteReport
	mustJSON(t, out, &rep)
	if code != kit.ExitPartial || len(rep.Runtimes) != 2 || rep.Runtimes[0].Name != "runtimes/rt-v6edemo2mw" || !rep.Runtimes[0].Deleted ||
		rep.Runtimes[1].Name != "runtimes/rt-gone" || rep.Runtimes[1].Deleted || !rep.Runtimes[1].Missing || rep.Runtimes[1].Error == "" {
		t.Fatalf("partial: exit %d %s %q", code, out, errs)
	}
	// --ignore-missing: the documented idempotent rule, exit 0 and deleted false.
	code, out, _ = e.run("delete", "rt-gone", "--yes", "--ignore-missing", "--json")
	mustJSON(t, out, &rep)
	if code != 0 || len(rep.Runtimes) != 1 || rep.Runtimes[0].Deleted || !rep.Runtimes[0].Missing || rep.Runtimes[0].Error != "" {
		t.Fatalf("--ignore-missing: exit %d %s", code, out)
	}
	// An ambiguous prefix is never "missing".
	e.srv.AddRuntime(api.Runtime{Name: "runtimes/rt-t4other", ConnectionInfo: &api.ConnectionInfo{}})
	code, _, errs = e.run("delete", "rt-t4", "--yes", "--ignore-missing")
	if code != kit.ExitUsage || !strings.Contains(errs, `"rt-t4" matches 2 runtimes`) || len(e.srv.Runtimes()) != 2 {
		t.Fatalf("ambiguous: exit %d %q", code, errs)
	}
}

func TestSessionVerbs(t *testing.T) {
	e := demoVerbEnv(t)
	code, out, errs := e.run("session", "open", "rt-t4")
	ref := strings.TrimSpace(out)
	if code != 0 || !regexp.MustCompile(`^rt-t4demo7k2p/colabdash-[0-9a-f]{8}$`).MatchString(ref) {
		t.Fatalf("open: exit %d %q %q", code, out, errs)
	}
	code, out, _ = e.run("session", "open", "rt-t4", "--id", "mine", "--json")
	var se struct {
		Name              string
		OpenedByColabdash *bool
	}
	mustJSON(t, out, &se)
	if code != 0 || se.Name != "runtimes/rt-t4demo7k2p/sessions/mine" || se.OpenedByColabdash == nil || !*se.OpenedByColabdash {
		t.Fatalf("open --id: exit %d %s", code, out)
	}
	code, out, _ = e.run("sessions", "rt-t4", "--json")
	var rep struct {
		Runtime  string
		Sessions []struct {
			Name              string
			OpenedByColabdash bool
		}
	}
	mustJSON(t, out, &rep)
	own := 0
	for _, s := range rep.Sessions {
		if s.OpenedByColabdash {
			own++
		}
	}
	if code != 0 || rep.Runtime != "runtimes/rt-t4demo7k2p" || len(rep.Sessions) != 4 || own != 2 {
		t.Fatalf("sessions: exit %d %s", code, out)
	}
	code, out, _ = e.run("sessions", "rt-t4")
	if code != 0 || !regexp.MustCompile(`(?m)^rt-t4demo7k2p/notebook-ab12cd34 +not colabdash`).MatchString(out) || !regexp.MustCompile(`(?m)^`+ref+` +colabdash$`).MatchString(out) {
		t.Fatalf("sessions table:\n%s", out)
	}

	// A notebook's session needs --force: nothing is closed without it.
	code, _, errs = e.run("session", "close", "rt-t4demo7k2p/notebook-ab12cd34", "--yes")
	if code != kit.ExitUsage || !strings.Contains(errs, "not opened by colabdash") || e.srv.CallCount("delete_session") != 0 {
		t.Fatalf("notebook without --force: exit %d %q", code, errs)
	}
	// The JSON names it by its resolved name, however it was written.
	_, out, _ = e.run("session", "close", "rt-t4/notebook-ab12cd34", "--yes", "--json")
	if !strings.Contains(out, `"name": "runtimes/rt-t4demo7k2p/sessions/notebook-ab12cd34"`) || !strings.Contains(out, `"closed": false`) {
		t.Fatalf("refused close --json: %s", out)
	}
	// On a terminal, closing a notebook's session takes the word close.
	code, _, errs = e.runTerm(term{in: "y\n", inTTY: true, errTTY: true}, "session", "close", "rt-t4/notebook-ab12cd34", "--force")
	if code != kit.ExitFailure || !strings.Contains(errs, "NOT opened by colabdash") || !strings.Contains(errs, "Type close") {
		t.Fatalf("notebook, y: exit %d %q", code, errs)
	}
	code, out, _ = e.runTerm(term{in: "close\n", inTTY: true, errTTY: true}, "session", "close", "rt-t4/notebook-ab12cd34", "--force")
	if code != 0 || out != "closed rt-t4demo7k2p/notebook-ab12cd34\n" {
		t.Fatalf("notebook, close: exit %d %q", code, out)
	}
	// colabdash's own: --yes; a session not open is reported.
	code, out, errs = e.run("session", "close", ref, "runtimes/rt-t4demo7k2p/sessions/colabdash-00000000", "--yes", "--json")
	var cr closeReport
	mustJSON(t, out, &cr)
	if code != kit.ExitPartial || len(cr.Sessions) != 2 || !cr.Sessions[0].Closed || cr.Sessions[1].Closed || !strings.Contains(cr.Sessions[1].Error, "no session") {
		t.Fatalf("close: exit %d %s %q", code, out, errs)
	}
	left := e.srv.Sessions("rt-t4demo7k2p")
	if len(left) != 2 { // notebook-train-9f3e and mine
		t.Fatalf("sessions left: %v", left)
	}
	if code, _, errs := e.run("session", "close", "rt-t4demo7k2p"); code != kit.ExitUsage || !strings.Contains(errs, "is not a session") {
		t.Fatalf("runtime as session: exit %d %q", code, errs)
	}
}

func TestURLAndTokenVerbs(t *testing.T) {
	e := demoVerbEnv(t)
	code, out, _ := e.run("url", "rt-cpu")
	// connectionInfo.url is the emulator's own runtime proxy.
	if code != 0 || !strings.HasPrefix(out, "http://127.0.0.1:") || !strings.HasSuffix(out, "/proxy/rt-cpudemo4qx/\n") {
		t.Fatalf("url: exit %d %q", code, out)
	}
	// A token is refused on a terminal without --show-tokens, before any call.
	code, out, errs := e.runTerm(term{outTTY: true}, "token", "rt-t4")
	if code != kit.ExitUsage || out != "" || !strings.Contains(errs, "--show-tokens") || e.srv.CallCount("") != 1 {
		t.Fatalf("token on a terminal: exit %d %q %q (calls %d)", code, out, errs, e.srv.CallCount(""))
	}
	// rt-cpudemo4qx's token has 3 of 60 minutes left: --min-valid 5m renews
	// it; the old one is printed with --min-valid 1m.
	old := ""
	for _, rt := range e.srv.Runtimes() {
		if rt.Name == "runtimes/rt-cpudemo4qx" {
			old = rt.ConnectionInfo.Token
		}
	}
	code, out, _ = e.run("token", "rt-cpu", "--min-valid", "1m")
	if code != 0 || out != old+"\n" {
		t.Fatalf("--min-valid 1m: exit %d %q, want the current token", code, out)
	}
	logPath := filepath.Join(e.home, "log.json")
	code, out, errs = e.run("token", "rt-cpu", "--log-file", logPath, "--debug")
	tok := strings.TrimSpace(out)
	if code != 0 || tok == old || len(tok) < 16 || e.srv.CallCount("get_runtime") != 1 {
		t.Fatalf("renewal: exit %d %q %q", code, out, errs)
	}
	b, _ := os.ReadFile(logPath)
	if len(b) == 0 {
		t.Fatal("no log to scan")
	}
	secrettest.Check(t, "the --debug log", string(b), tok)
	secrettest.Check(t, "stderr", errs, tok)
	code, out, _ = e.runTerm(term{outTTY: true}, "token", "rt-cpu", "--show-tokens", "--json")
	var rep struct {
		Name           string
		ConnectionInfo struct{ URL, ExpireTime, Token string }
		TokenExpires   *int64 `json:"tokenExpiresInSeconds"`
	}
	mustJSON(t, out, &rep)
	if code != 0 || rep.Name != "runtimes/rt-cpudemo4qx" || rep.ConnectionInfo.Token != tok || rep.TokenExpires == nil || *rep.TokenExpires < 3000 {
		t.Fatalf("token --json: exit %d %s", code, out)
	}
	// url --json has the same shape, without the token.
	_, out, _ = e.run("url", "rt-cpu", "--json")
	if !strings.Contains(out, `"expireTime"`) || !strings.Contains(out, `"tokenExpiresInSeconds"`) {
		t.Fatalf("url --json: %s", out)
	}
	secrettest.Check(t, "url --json", out, tok)
}

// Server text in human output reaches no terminal as escape sequences,
// even into a pipe; --json keeps it exact but escapes C1 controls.
func TestVerbsSanitizeServerText(t *testing.T) {
	e := emptyVerbEnv(t)
	hostile := "https://x.example/\x1b]52;c;cHduZWQ=\x07\x1b[2J\u009b31m\u202e"
	if _, err := e.srv.AddRuntime(api.Runtime{Name: "runtimes/rt-\x1b]0;pwned\x07",
		RuntimeSpec:    api.RuntimeSpecKey{Variant: "VARIANT_\x1b[2J", Accelerator: "NONE", Shape: api.ShapeStandard},
		ConnectionInfo: &api.ConnectionInfo{URL: hostile}}); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"url", "rt-"}, {"sessions", "rt-"}, {"delete", "rt-", "--yes"}, {"create", "--spec", "GPU/T4"}} {
		code, out, errs := e.run(args...)
		termtexttest.NoControls(t, strings.Join(args, " ")+" stdout", out)
		termtexttest.NoControls(t, strings.Join(args, " ")+" stderr", errs)
		if code == kit.ExitFailure && args[0] == "url" {
			t.Fatalf("%v failed: %s", args, errs)
		}
	}
	e.srv.AddRuntime(api.Runtime{Name: "runtimes/rt-json", ConnectionInfo: &api.ConnectionInfo{URL: "https://y/\u009b2J"}})
	_, out, _ := e.run("url", "rt-json", "--json")
	if !strings.Contains(out, `\u009b2J`) {
		t.Fatalf("C1 control not escaped in JSON: %q", out)
	}
	var rep struct{ ConnectionInfo struct{ URL string } }
	mustJSON(t, out, &rep)
	if rep.ConnectionInfo.URL != "https://y/\u009b2J" {
		t.Fatalf("JSON value changed: %q", rep.ConnectionInfo.URL)
	}
}

// Runtime ids complete from the live runtimes, the second time from the
// cache (kept in the cache directory), and to nothing (quickly, quietly) without credentials.
func TestRuntimeCompletion(t *testing.T) {
	e := demoVerbEnv(t)
	// The shell puts the word being completed last.
	complete := func(args ...string) (int, string, string) {
		last := len(args) - 1
		var out, errb bytes.Buffer
		code := runStreams(append(append(append([]string{}, args[:last]...), e.flags...), args[last]),
			&kit.Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
		return code, out.String(), errb.String()
	}
	code, out, errs := complete("__complete", "delete", "")
	if code != 0 || !strings.Contains(out, "rt-t4demo7k2p\tGPU/T4/STANDARD\n") || !strings.Contains(out, "rt-cpudemo4qx\tCPU/STANDARD\n") {
		t.Fatalf("completion: exit %d %q %q", code, out, errs)
	}
	calls := e.srv.CallCount("list_runtimes")
	_, out, _ = complete("__complete", "exec", "rt-t")
	if e.srv.CallCount("list_runtimes") != calls || !strings.Contains(out, "rt-t4demo7k2p") || strings.Contains(out, "rt-cpudemo4qx") {
		t.Fatalf("second completion was not served from the cache (%d calls): %q", e.srv.CallCount("list_runtimes")-calls, out)
	}
	// The cache is kept in the cache directory, not the state directory.
	if _, err := os.Stat(filepath.Join(os.Getenv("XDG_CACHE_HOME"), "colabdash", "completion-runtimes.json")); err != nil {
		t.Errorf("no completion cache in the cache directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("XDG_STATE_HOME"), "colabdash", "completion-runtimes.json")); err == nil {
		t.Error("the completion cache is in the state directory")
	}
	// Without credentials: nothing on stderr (but cobra's own directive
	// line, which the shell scripts discard), quickly.
	home := isolate(t)
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	start := time.Now()
	code, out, errs = runCLI(t, "__complete", "delete", "")
	if code != 0 || errs != "Completion ended with directive: ShellCompDirectiveNoFileComp\n" || strings.Contains(out, "rt-") || time.Since(start) > 5*time.Second {
		t.Fatalf("no credentials: exit %d %q %q after %v", code, out, errs, time.Since(start))
	}
}

// Every verb's help has examples and the exit codes.
func TestVerbsHelp(t *testing.T) {
	isolate(t)
	for _, args := range [][]string{{"specs"}, {"create"}, {"delete"}, {"sessions"}, {"session", "open"}, {"session", "close"}, {"exec"}, {"url"}, {"token"}} {
		code, out, _ := runCLI(t, append(args, "--help")...)
		if code != 0 || !strings.Contains(out, "Examples:") || !strings.Contains(out, "Exit codes (one table for every command, "+kit.ExitCodesRef) || !strings.Contains(out, "5 quota") {
			t.Errorf("%v --help: exit %d\n%s", args, code, out)
		}
	}
	if code, _, errs := runCLI(t, "session"); code != kit.ExitUsage || !strings.Contains(errs, "open or close") {
		t.Errorf("session alone: exit %d %q", code, errs)
	}
}

// The hostile seed through every verb: on a terminal nothing it holds
// reaches the screen as a control; into a pipe only the code's own output
// (exec's stdout and stderr) is passed on exactly.
func TestVerbsHostileSeed(t *testing.T) {
	e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedHostile})
	t.Setenv("NO_COLOR", "1") // the check below allows no escape at all, not even colour
	for _, args := range [][]string{
		{"specs"}, {"sessions", "rt-clip"}, {"sessions", "rt-xxxx"}, {"url", "rt-bidi"}, {"token", "rt-clip", "--show-tokens"},
		{"exec", "rt-clip", "-c", "print(1)"}, {"session", "open", "rt-bidi"}, {"delete", "rt-nope", "--yes"},
		{"create", "--spec", "GPU/A100"}, {"session", "close", "rt-clip/nope", "--force", "--yes"},
	} {
		for _, tm := range []term{{outTTY: true, errTTY: true}, {}} {
			_, out, errs := e.runTerm(tm, args...)
			if tm.outTTY || args[0] != "exec" {
				termtexttest.NoControls(t, strings.Join(args, " ")+" stdout", out)
				termtexttest.NoControls(t, strings.Join(args, " ")+" stderr", errs)
			} else if !strings.Contains(out, colabfake.HostileOSC52) {
				t.Errorf("exec into a pipe changed the code's output: %q", out)
			}
			for _, ln := range strings.Split(out+errs, "\n") {
				if n := len([]rune(ln)); n > 1000 {
					t.Errorf("%v: a %d-character line", args, n)
				}
			}
		}
	}
}

// tokenExpiresInSeconds counts down to an expireTime within a year either
// way and is null beyond (a far-future placeholder made it 9223372036,
// time.Duration's limit), in status --json and url --json alike, while
// connectionInfo.expireTime still says what the server sent.
func TestTokenExpiresInSecondsIsSane(t *testing.T) {
	e := emptyVerbEnv(t)
	now := time.Now().UTC()
	cases := []struct {
		id      string
		expire  time.Time
		nullish bool
		near    int64 // about this many seconds when not null
	}{
		{"rt-soon", now.Add(50 * time.Minute), false, 3000},
		{"rt-expired", now.Add(-2 * time.Hour), false, -7200},
		{"rt-month", now.Add(30 * 24 * time.Hour), false, 30 * 24 * 3600},
		{"rt-far", time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC), true, 0},
		{"rt-twoyears", now.Add(2 * 366 * 24 * time.Hour), true, 0},
		{"rt-ancient", now.Add(-2 * 366 * 24 * time.Hour), true, 0},
	}
	for _, c := range cases {
		if _, err := e.srv.AddRuntime(api.Runtime{Name: c.id, RuntimeSpec: api.RuntimeSpecKey{Variant: api.VariantCPU, Shape: api.ShapeStandard},
			ConnectionInfo: &api.ConnectionInfo{ExpireTime: c.expire}}); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := e.run("status", "--json")
	if code != 0 {
		t.Fatalf("status: exit %d %q", code, errs)
	}
	var rep report.Report
	mustJSON(t, out, &rep)
	got := map[string]report.Runtime{}
	for _, r := range rep.Runtimes {
		got[r.Name] = r
	}
	check := func(what string, secs *int64, exp *string, c struct {
		id      string
		expire  time.Time
		nullish bool
		near    int64
	}) {
		t.Helper()
		if exp == nil || *exp != c.expire.Format(time.RFC3339) {
			t.Errorf("%s %s: expireTime %v, want %s", what, c.id, exp, c.expire.Format(time.RFC3339))
		}
		switch {
		case c.nullish && secs != nil:
			t.Errorf("%s %s: tokenExpiresInSeconds %d, want null", what, c.id, *secs)
		case !c.nullish && (secs == nil || *secs > c.near+60 || *secs < c.near-60):
			t.Errorf("%s %s: tokenExpiresInSeconds %v, want about %d", what, c.id, secs, c.near)
		}
	}
	for _, c := range cases {
		r := got[api.RuntimeName(c.id)]
		check("status", r.TokenExpiresInSeconds, r.ConnectionInfo.ExpireTime, c)
	}
	code, out, errs = e.run("url", "rt-far", "--json")
	if code != 0 {
		t.Fatalf("url: exit %d %q", code, errs)
	}
	var cr runtimes.ConnectionReport
	mustJSON(t, out, &cr)
	check("url", cr.TokenExpiresInSeconds, cr.ConnectionInfo.ExpireTime, cases[3])
}
