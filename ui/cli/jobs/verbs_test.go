package jobs

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	rjobs "github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/termtext"
)

const rtA = "runtimes/rt-a"

func oneRuntime(r *fakeRuntime) *fakeBackend {
	r.name = rtA
	return &fakeBackend{rts: []api.Runtime{{Name: rtA}}, runtimes: map[string]*fakeRuntime{rtA: r}}
}

func running() *rjobs.Status { return &rjobs.Status{Pid: 9, Started: t0, Heartbeat: t0} }

func exited(code int) *rjobs.Status {
	return &rjobs.Status{Pid: 9, Started: t0, Ended: t0.Add(20 * time.Second), ExitCode: code, Heartbeat: t0}
}

// logs -f prints every chunk once, in order, and exits with the job's
// exit status; into a pipe the bytes are the log's own.
func TestLogsFollowPrintsTheLogAndExitsWithTheJobsStatus(t *testing.T) {
	r := &fakeRuntime{jobs: []rjobs.Record{record(rtA, "train-1", running())},
		chunks: []ops.LogChunk{{Data: []byte("epoch 1\n"), Off: 0}, {Off: 8}, {Data: []byte("epoch 2\rdone\n"), Off: 8},
			{Off: 21, Ended: exited(3)}}}
	setup(t, oneRuntime(r), nil)
	res := run(t, nil, term{}, "logs", "train-1", "-f")
	if res.code != 3 || res.out != "epoch 1\nepoch 2\rdone\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.code, res.out, res.err)
	}
	if !r.logged.Follow || r.logged.Tail != 0 {
		t.Fatalf("log options %+v", r.logged)
	}
	// A job a signal killed: 128 + the signal, as a shell reports it.
	r.chunks = []ops.LogChunk{{Off: 0, Ended: &rjobs.Status{Started: t0, Ended: t0, ExitCode: -1, Signal: 15}}}
	if res := run(t, nil, term{}, "logs", "rt-a/train-1", "-f", "--tail", "5"); res.code != 143 || r.logged.Tail != 5 {
		t.Fatalf("killed: exit %d (%+v)", res.code, r.logged)
	}
	// A lost job: a line that says so, and its own code.
	r.chunks = []ops.LogChunk{{Data: []byte("so far\n")}, {Note: "lost"}}
	res = run(t, nil, term{}, "logs", "train-1", "-f")
	if res.code != ExitLost || !strings.Contains(res.err, "was lost") || res.out != "so far\n" {
		t.Fatalf("lost: exit %d, stdout %q, stderr %q", res.code, res.out, res.err)
	}
}

// On a terminal the log is drawn: a progress bar's carriage returns
// leave its last state, colours are drawn (or dropped without colour),
// and no other control sequence of the log reaches the terminal raw.
func TestLogsOnATerminalDrawsTheLogAndNothingRaw(t *testing.T) {
	hostile := "\x1b]52;c;aGFjaw==\x07\x1b[2J\x1b[1;1H\x9b31m\u202eevil\n"
	r := &fakeRuntime{jobs: []rjobs.Record{record(rtA, "train-1", exited(0))},
		chunks: []ops.LogChunk{{Data: []byte(" 10%\r 50%\r100%\n\x1b[31mred\x1b[0m plain\n" + hostile)}}}
	setup(t, oneRuntime(r), nil)
	res := run(t, nil, term{out: true}, "logs", "train-1")
	if res.code != 0 {
		t.Fatalf("exit %d %q", res.code, res.err)
	}
	lines := strings.Split(strings.TrimSuffix(res.out, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("lines %q", lines)
	}
	if screen := visible(lines[0]); screen != "100%" {
		t.Errorf("progress bar shown as %q (%q)", screen, lines[0])
	}
	if strings.Contains(lines[1], "\x1b[31m") || strings.Contains(lines[1], "\x1b[0;31m") || visible(lines[1]) != "red plain" {
		t.Errorf("colour drawn without colour: %q", lines[1])
	}
	for _, bad := range []string{"\x1b]", "\x07", "\x1b[2J", "\x1b[1;1H", "\u009b", "\u202e"} {
		if strings.Contains(res.out, bad) {
			t.Errorf("raw %q reached the terminal: %q", bad, res.out)
		}
	}
	if !strings.Contains(lines[2], "␛]52") || !strings.Contains(lines[2], "evil") {
		t.Errorf("the hostile line is not shown inert: %q", lines[2])
	}
	// With colour on, the log's colour is drawn with our own SGR.
	r.chunks = []ops.LogChunk{{Data: []byte("\x1b[31mred\x1b[0m plain\n")}}
	res = run(t, nil, term{out: true, color: true}, "logs", "train-1")
	if !strings.Contains(res.out, "\x1b[31mred\x1b[0m") {
		t.Errorf("colour not drawn: %q", res.out)
	}
}

// visible is what a terminal shows of one drawn line: our carriage
// returns, erase-line and SGR sequences taken out.
func visible(line string) string {
	s := strings.ReplaceAll(line, "\x1b[K", "")
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], 'm')
		s = s[:i] + s[i+j+1:]
	}
	if i := strings.LastIndexByte(s, '\r'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// A secret colabdash knows is redacted from a log, into a pipe and on
// a terminal, even when the log delivers it in two pieces.
func TestLogsRedactsASecretInTheLog(t *testing.T) {
	secret := "ya29.a0AfB_byC-l0gS3cr3tT0k3nQw9x"
	red := &api.Redactor{}
	red.Add(secret)
	r := &fakeRuntime{jobs: []rjobs.Record{record(rtA, "train-1", exited(0))},
		chunks: []ops.LogChunk{{Data: []byte("token=" + secret[:10])}, {Data: []byte(secret[10:] + " end\n")}}}
	setup(t, oneRuntime(r), nil)
	for _, tm := range []term{{}, {out: true}} {
		r.chunks = []ops.LogChunk{{Data: []byte("token " + secret[:10])}, {Data: []byte(secret[10:] + " end\n")}}
		res := run(t, red, tm, "logs", "train-1")
		if strings.Contains(res.out, secret[:10]) || strings.Contains(res.out, secret[10:]) || !strings.Contains(res.out, "end") {
			t.Errorf("terminal %v: %q", tm.out, res.out)
		}
	}
}

// jobs: one line per job; whatever the runtime holds (an id, a command,
// a last line with escape sequences) reaches the terminal inert.
func TestJobsTableIsSanitized(t *testing.T) {
	evil := record(rtA, "x\x1b[2Jy", running(), "--lr", "\x1b]0;pwned\x07")
	r := &fakeRuntime{jobs: []rjobs.Record{record(rtA, "train-1", exited(0)), evil},
		tails: map[string][]byte{"train-1": []byte("loss 0.1\r\x1b[31mloss 0.05\n"), evil.Spec.ID: []byte("\x1b]52;c;eA==\x07")}}
	setup(t, oneRuntime(r), nil)
	res := run(t, nil, term{out: true}, "jobs")
	if res.code != 0 {
		t.Fatalf("exit %d %q", res.code, res.err)
	}
	if strings.ContainsAny(res.out, "\x1b\x07") {
		t.Fatalf("raw control in the table: %q", res.out)
	}
	for _, want := range []string{"train-1", "rt-a", "python train.py", "exited 0", "12-07 10:00", "20s", "running", "30s", "␛]0;pwned"} {
		if !strings.Contains(res.out, want) {
			t.Errorf("table lacks %q:\n%s", want, res.out)
		}
	}
}

// jobs --json is one document matching docs/reference/schemas/jobs.schema.json;
// a runtime that cannot be read is named in it, with exit code 7.
func TestJobsJSONMatchesItsSchema(t *testing.T) {
	r := &fakeRuntime{jobs: []rjobs.Record{record(rtA, "train-1", exited(2)), record(rtA, "eval-2", nil),
		record(rtA, "kill-3", &rjobs.Status{Started: t0, Ended: t0, ExitCode: -1, Signal: 9})},
		tails: map[string][]byte{"train-1": []byte("done\n")}}
	b := oneRuntime(r)
	b.rts = append(b.rts, api.Runtime{Name: "runtimes/rt-starting"})
	setup(t, b, nil)
	res := run(t, nil, term{}, "jobs", "--json")
	if res.code != kit.ExitPartial {
		t.Fatalf("exit %d %q", res.code, res.err)
	}
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "reference", "schemas", "jobs.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal([]byte(res.out), &doc); err != nil {
		t.Fatalf("not JSON: %q", res.out)
	}
	if err := rs.Validate(doc); err != nil {
		t.Fatalf("does not match the schema: %v\n%s", err, res.out)
	}
	var rep JobsReport
	_ = json.Unmarshal([]byte(res.out), &rep)
	states := []string{}
	for _, j := range rep.Jobs {
		states = append(states, j.State)
	}
	if !slices.Equal(states, []string{"exited", "starting", "killed"}) || *rep.Jobs[0].ExitCode != 2 || rep.Jobs[0].LastLine != "done" ||
		len(rep.Unread) != 1 || rep.Unread[0].Runtime != "runtimes/rt-starting" {
		t.Fatalf("%+v", rep)
	}
}

// wait --delete deletes the runtime only once the job has ended, after
// the downloads, and exits with the job's status.
func TestWaitDeletesOnlyAfterTheJobEnded(t *testing.T) {
	r := &fakeRuntime{jobs: []rjobs.Record{record(rtA, "train-1", running())}}
	r.status = func(n int) *rjobs.Status {
		if n < 5 {
			return running()
		}
		return exited(4)
	}
	b := oneRuntime(r)
	forgotten := setup(t, b, []ops.JobNote{{ID: "train-1", Runtime: rtA}})
	dst := t.TempDir()
	res := run(t, nil, term{}, "wait", "train-1", "--download", "out/model.pt:"+dst+"/", "--delete", "--json")
	if res.code != 4 {
		t.Fatalf("exit %d, stderr %q", res.code, res.err)
	}
	if len(b.deleted) != 1 || b.deleted[0] != rtA || b.deletedAfter[0] < 5 {
		t.Fatalf("deleted %v after %v status reads", b.deleted, b.deletedAfter)
	}
	if len(r.downs) != 1 || r.downs[0] != "/content/out/model.pt" || len(*forgotten) != 1 {
		t.Fatalf("downloads %v, forgotten %v", r.downs, *forgotten)
	}
	var rep WaitReport
	if err := json.Unmarshal([]byte(res.out), &rep); err != nil || !rep.Deleted || rep.Job.State != "exited" || len(rep.Files) != 1 ||
		rep.OK || rep.Error == nil || rep.Error.Code != "failed" || rep.Error.Message != "the job exited 4" {
		t.Fatalf("%v %q", err, res.out)
	}
}

// wait --delete keeps the runtime when a download did not come back (a
// failure, or a path the runtime lacks): its results are still only
// there. A directory to copy into that does not exist is refused before
// anything is waited for.
func TestWaitKeepsTheRuntimeWhenADownloadDidNotComeBack(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
	}{
		{"a failed download", &jupyter.Error{Op: "download", Kind: jupyter.ErrTransport, Message: "connection reset"}},
		{"a path the runtime lacks", &jupyter.Error{Op: "download", Kind: jupyter.ErrNotFound, Message: "no such file"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &fakeRuntime{jobs: []rjobs.Record{record(rtA, "train-1", exited(0))}, downErr: c.err}
			b := oneRuntime(r)
			setup(t, b, []ops.JobNote{{ID: "train-1", Runtime: rtA}})
			res := run(t, nil, term{}, "wait", "train-1", "--download", "out/model.pt:"+t.TempDir()+"/", "--delete")
			if res.code != kit.ExitPartial || len(b.deleted) != 0 || !strings.Contains(res.err, "runtime rt-a kept") ||
				!strings.Contains(res.err, "then colabdash delete rt-a)") {
				t.Fatalf("exit %d, deleted %v, stderr %q", res.code, b.deleted, res.err)
			}
		})
	}
	r := &fakeRuntime{jobs: []rjobs.Record{record(rtA, "train-1", exited(0))}}
	b := oneRuntime(r)
	setup(t, b, []ops.JobNote{{ID: "train-1", Runtime: rtA}})
	missing := filepath.Join(t.TempDir(), "results") + "/"
	res := run(t, nil, term{}, "wait", "train-1", "--download", "out/:"+missing, "--delete")
	if res.code != kit.ExitUsage || len(b.deleted) != 0 || r.reads != 0 || len(r.downs) != 0 || !strings.Contains(res.err, "mkdir -p") {
		t.Fatalf("exit %d, deleted %v, %d status reads, downloads %v, stderr %q", res.code, b.deleted, r.reads, r.downs, res.err)
	}
}

// Without --delete too, a --download path the runtime lacks makes a wait
// whose job succeeded exit 7, naming the path: a script does not go on
// as if its results had come back.
func TestWaitExitsPartialWhenADownloadPathIsMissing(t *testing.T) {
	r := &fakeRuntime{jobs: []rjobs.Record{record(rtA, "train-1", exited(0))},
		downErr: &jupyter.Error{Op: "download", Kind: jupyter.ErrNotFound, Message: "no such file"}}
	b := oneRuntime(r)
	setup(t, b, []ops.JobNote{{ID: "train-1", Runtime: rtA}})
	res := run(t, nil, term{}, "wait", "train-1", "--download", "outputs/:"+t.TempDir()+"/")
	if res.code != kit.ExitPartial || len(b.deleted) != 0 || !strings.Contains(res.err, "--download /content/outputs: not on the runtime, nothing copied") {
		t.Fatalf("exit %d, deleted %v, stderr %q", res.code, b.deleted, res.err)
	}
}

// Without --delete, wait deletes nothing, unless run --detach
// --delete-when-done noted the intent on this machine.
func TestWaitCarriesOutTheNotedIntent(t *testing.T) {
	r := &fakeRuntime{jobs: []rjobs.Record{record(rtA, "train-1", exited(0))}}
	b := oneRuntime(r)
	setup(t, b, nil)
	if res := run(t, nil, term{}, "wait", "train-1"); res.code != 0 || len(b.deleted) != 0 || res.out != "" {
		t.Fatalf("exit %d, deleted %v, stdout %q", res.code, b.deleted, res.out)
	}
	setup(t, b, []ops.JobNote{{ID: "train-1", Runtime: rtA, DeleteWhenDone: true}})
	res := run(t, nil, term{}, "wait", "train-1")
	if res.code != 0 || len(b.deleted) != 1 || !strings.Contains(res.err, "deleted runtime rt-a") {
		t.Fatalf("exit %d, deleted %v, stderr %q", res.code, b.deleted, res.err)
	}
}

// A noted delete another colabdash process claimed first (a dashboard
// that saw the job end) is left to it: wait and jobs --watch say so and
// send no delete_runtime of their own.
func TestNotedDeleteClaimedElsewhereIsLeftToIt(t *testing.T) {
	note := ops.JobNote{ID: "train-1", Runtime: rtA, DeleteWhenDone: true}
	r := &fakeRuntime{name: rtA, jobs: []rjobs.Record{record(rtA, "train-1", exited(0))}}
	b := oneRuntime(r)
	setup(t, b, []ops.JobNote{note})
	if claimDelete(note, nil) != ops.WhenDoneClaimed {
		t.Fatal("the dashboard's claim was refused")
	}
	res := run(t, nil, term{}, "wait", "train-1")
	if res.code != 0 || len(b.deleted) != 0 || !strings.Contains(res.err, "another colabdash deletes runtime rt-a") {
		t.Fatalf("wait: exit %d, deleted %v, stderr %q", res.code, b.deleted, res.err)
	}
	r.jobs[0].Status = running()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.onList = func() {
		switch b.lists {
		case 2:
			r.jobs[0].Status = exited(0)
		case 4:
			cancel()
		}
	}
	res = run(t, nil, term{ctx: ctx}, "jobs", "--watch", "--interval", "1ms")
	if res.code != kit.ExitInterrupted || len(b.deleted) != 0 || !strings.Contains(res.out, "another colabdash deletes runtime rt-a") {
		t.Fatalf("jobs --watch: exit %d, deleted %v, stdout %q", res.code, b.deleted, res.out)
	}
}

// stop asks the supervisor, waits for the end the status records, and
// says nothing; a job that ended already is left alone.
func TestStopWaitsForTheEndQuietly(t *testing.T) {
	r := &fakeRuntime{jobs: []rjobs.Record{record(rtA, "train-1", running())}}
	r.status = func(n int) *rjobs.Status {
		if n < 3 {
			st := running()
			st.Stopping = n > 1
			return st
		}
		return &rjobs.Status{Started: t0, Ended: t0, ExitCode: -1, Signal: 15}
	}
	setup(t, oneRuntime(r), nil)
	res := run(t, nil, term{}, "stop", "train-1", "--grace", "2s")
	if res.code != 0 || res.out != "" || res.err != "" || len(r.stops) != 1 || r.stops[0] != 2*time.Second {
		t.Fatalf("exit %d %q %q, stops %v", res.code, res.out, res.err, r.stops)
	}
	r.jobs[0].Status = exited(0)
	r.status, r.stops = nil, nil
	if res := run(t, nil, term{}, "stop", "train-1"); res.code != 0 || len(r.stops) != 0 {
		t.Fatalf("an ended job: exit %d, stops %v", res.code, r.stops)
	}
}

// A job id that is not one is refused before anything is asked; a job
// no runtime has is not found.
func TestJobArgumentErrors(t *testing.T) {
	setup(t, oneRuntime(&fakeRuntime{}), nil)
	if res := run(t, nil, term{}, "logs", "../etc\x1b[2J"); res.code != kit.ExitUsage || strings.Contains(res.err, "\x1b") {
		t.Fatalf("exit %d %q", res.code, res.err)
	}
	if res := run(t, nil, term{}, "wait", "nope-1"); res.code != kit.ExitNotFound || !strings.Contains(res.err, "no job nope-1") {
		t.Fatalf("exit %d %q", res.code, res.err)
	}
	setup(t, oneRuntime(&fakeRuntime{}), []ops.JobNote{{ID: "old-1", Runtime: "runtimes/rt-gone"}})
	if res := run(t, nil, term{}, "stop", "old-1"); res.code != kit.ExitNotFound || !strings.Contains(res.err, "no longer listed") {
		t.Fatalf("exit %d %q", res.code, res.err)
	}
}

// jobs --watch redraws the table and, once a job noted
// --delete-when-done has ended, deletes its runtime and says so; a
// runtime whose noted job still runs is left alone; a listing that
// fails on the network does not end the watch.
func TestJobsWatchCarriesOutDeleteWhenDone(t *testing.T) {
	rtB := "runtimes/rt-b"
	ra := &fakeRuntime{name: rtA, jobs: []rjobs.Record{record(rtA, "train-1", running())}}
	rb := &fakeRuntime{name: rtB, jobs: []rjobs.Record{record(rtB, "eval-2", running())}}
	b := &fakeBackend{rts: []api.Runtime{{Name: rtA}, {Name: rtB}}, runtimes: map[string]*fakeRuntime{rtA: ra, rtB: rb}}
	forgotten := setup(t, b, []ops.JobNote{{ID: "train-1", Runtime: rtA, DeleteWhenDone: true}, {ID: "eval-2", Runtime: rtB, DeleteWhenDone: true}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.failList = 2 // the network fails once: the watch goes on
	b.onList = func() {
		switch b.lists {
		case 3:
			ra.jobs[0].Status = exited(0) // train-1 ends between two refreshes
		case 4:
			cancel()
		}
	}
	res := run(t, nil, term{ctx: ctx}, "jobs", "--watch", "--interval", "1ms")
	if res.code != kit.ExitInterrupted {
		t.Fatalf("exit %d %q", res.code, res.err)
	}
	if !slices.Equal(b.deleted, []string{rtA}) || !slices.Equal(*forgotten, []string{"train-1"}) {
		t.Fatalf("deleted %v, forgotten %v", b.deleted, *forgotten)
	}
	if !strings.Contains(res.out, "deleted runtime rt-a: job train-1 ended (exited 0)") || !strings.Contains(res.err, "connection reset; trying again") {
		t.Fatalf("not said:\n%s\n%s", res.out, res.err)
	}
}

// The drawer erases within a line as a terminal does (ESC [ K, 1K, 2K),
// keeps a character split between two chunks whole, and ends an
// unfinished last line with a newline.
func TestDrawerErasesAndJoinsSplitCharacters(t *testing.T) {
	var out strings.Builder
	o := newLogOut(&out, true, false, &api.Redactor{})
	for _, chunk := range []string{"downloading 99%\x1b[2K\r", "done \xc3", "\xa9t\xc3\xa9\nab", "cd\rx\x1b[K\n", "tail"} {
		if err := o.Write([]byte(chunk)); err != nil {
			t.Fatal(err)
		}
	}
	if err := o.Flush(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		got = append(got, visible(l))
	}
	if want := []string{"done été", "x", "tail"}; !slices.Equal(got, want) {
		t.Fatalf("drawn %q, want %q (raw %q)", got, want, out.String())
	}
}

// On a terminal of 80 columns every line of the table fits: the last
// line of output, then the command, give way.
func TestJobsTableFitsTheTerminal(t *testing.T) {
	long := strings.Repeat("loss 0.1234 ", 20)
	rec := record(rtA, "train-with-a-long-name-1", running(), strings.Repeat("--flag ", 10))
	rep := JobsReport{Jobs: []JobEntry{entry(rec, t0.Add(time.Minute))}}
	rep.Jobs[0].LastLine = long
	for _, line := range table(rep, 80) {
		if w := termtextWidth(line); w > 80 {
			t.Errorf("%d columns: %q", w, line)
		}
	}
	if lines := table(rep, 0); termtextWidth(lines[1]) <= 80 {
		t.Errorf("cut without a width: %q", lines[1])
	}
}

func termtextWidth(s string) int { return termtext.Width(s) }

// logs RUNTIME/SESSION prints what a notebook's kernel publishes, with
// its note that earlier output is not there; a RUNTIME/X that is neither
// a job nor a session is not found.
func TestLogsOfANotebookSession(t *testing.T) {
	r := &fakeRuntime{session: "notebook-ab12", kernel: []ops.LogChunk{
		{Note: ops.KernelNoteBefore}, {Data: []byte("In [3]: train()\n")}, {Data: []byte(" 50%\r100%\n")}}}
	setup(t, oneRuntime(r), nil)
	for _, arg := range []string{"rt-a/notebook-ab12", "runtimes/rt-a/sessions/notebook-ab12"} {
		res := run(t, nil, term{}, "logs", arg)
		if res.code != 0 || res.out != "In [3]: train()\n 50%\r100%\n" || !strings.Contains(res.err, "not available") {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q", arg, res.code, res.out, res.err)
		}
	}
	if res := run(t, nil, term{}, "logs", "rt-a/nothing-1"); res.code != kit.ExitNotFound || !strings.Contains(res.err, "no job nothing-1") {
		t.Fatalf("neither: exit %d %q", res.code, res.err)
	}
	if res := run(t, nil, term{}, "logs", "rt-a/sessions/nothing-1"); res.code != kit.ExitNotFound || !strings.Contains(res.err, "no kernel for session nothing-1") {
		t.Fatalf("no such session: exit %d %q", res.code, res.err)
	}
	if res := run(t, nil, term{}, "logs", "rt-a/notebook-ab12", "--tail", "3"); res.code != kit.ExitUsage {
		t.Fatalf("--tail of a kernel: exit %d %q", res.code, res.err)
	}
}

// A log of colour codes alone cannot make the drawing grow beyond its
// own size many times over: the colour in effect is bounded, so each
// cell's change writes a bounded sequence (a 100 KB pile of SGRs once
// drew 400 MB).
func TestDrawerBoundsPiledUpColours(t *testing.T) {
	var out strings.Builder
	o := newLogOut(&out, true, true, &api.Redactor{})
	log := strings.Repeat("\x1b[1m", 20000) + strings.Repeat("\x1b[2mA", 2000) + "\n"
	if err := o.Write([]byte(log)); err != nil {
		t.Fatal(err)
	}
	if err := o.Flush(); err != nil {
		t.Fatal(err)
	}
	if n := out.Len(); n > 4*len(log) {
		t.Fatalf("a %d-byte log drew %d bytes", len(log), n)
	}
	if visible(strings.TrimSuffix(out.String(), "\n")) != strings.Repeat("A", 2000) {
		t.Errorf("the text itself was not drawn")
	}
}
