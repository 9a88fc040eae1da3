package run

// Run records: what a run killed with kill -9 leaves, which records name
// a leftover (and are said), and run --reap deleting what they name.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/cli/kit/kittest"
)

// killedRun leaves what a run killed with kill -9 leaves: its record,
// unlocked, naming runtime id (listed by the emulator when listed), on
// this account unless rec says otherwise.
func killedRun(t *testing.T, e *kittest.Env, id string, listed bool, rec runRecord) {
	t.Helper()
	if listed {
		if _, err := e.Srv.AddRuntime(api.Runtime{Name: "runtimes/" + id, ConnectionInfo: &api.ConnectionInfo{},
			RuntimeSpec: api.RuntimeSpecKey{Accelerator: api.AcceleratorNone}}); err != nil {
			t.Fatal(err)
		}
	}
	if rec.RequestID == "" {
		rec.RequestID = uuid.NewString()
	}
	if rec.Endpoint == "" {
		rec.Endpoint = e.Endpoint
	}
	if rec.Profile == "" {
		rec.Profile = "default"
	}
	if rec.Started.IsZero() {
		rec.Started = time.Now().Add(-time.Hour)
	}
	rec.Runtime, rec.File, rec.PID = "runtimes/"+id, "train.py", 4242
	l, err := beginRun(kit.StateDir(), rec)
	if err != nil {
		t.Fatal(err)
	}
	l.release() // the process died: its lock with it
}

// records counts the run records in the state directory.
func records(t *testing.T) int {
	t.Helper()
	recs, _ := os.ReadDir(filepath.Join(kit.StateDir(), RunRecordDir))
	return len(recs)
}

// run --reap --yes deletes the runtime a killed run left, says so and
// removes its record; --json lists it; a second reap finds nothing.
func TestReapDeletesWhatAKilledRunLeft(t *testing.T) {
	e := kittest.Empty(t)
	killedRun(t, e, "run-dead1", true, runRecord{Created: true})
	killedRun(t, e, "run-dead2", true, runRecord{Created: true})
	r := e.Run(Command, "--reap", "--yes")
	if r.Code != 0 || !strings.Contains(r.Err, "deleted run-dead1, left by an unfinished run") || !strings.Contains(r.Err, "deleted run-dead2, left by an unfinished run") {
		t.Fatalf("exit %d, stderr %q", r.Code, r.Err)
	}
	if len(e.Srv.Runtimes()) != 0 || records(t) != 0 {
		t.Errorf("%d runtime(s), %d record(s) left", len(e.Srv.Runtimes()), records(t))
	}
	r = e.Run(Command, "--reap", "--yes")
	if r.Code != 0 || !strings.Contains(r.Err, "no runtime left by an unfinished run") {
		t.Errorf("nothing left: exit %d, stderr %q", r.Code, r.Err)
	}

	killedRun(t, e, "run-dead3", true, runRecord{Created: true})
	r = e.Run(Command, "--reap", "--yes", "--json")
	var rep kit.DeleteReport
	if err := json.Unmarshal([]byte(r.Out), &rep); err != nil || r.Code != 0 || !rep.OK || len(rep.Runtimes) != 1 ||
		rep.Runtimes[0].Name != "runtimes/run-dead3" || !rep.Runtimes[0].Deleted {
		t.Errorf("--json: exit %d, %q", r.Code, r.Out)
	}
	r = e.Run(Command, "--reap", "--yes", "--json")
	if rep = (kit.DeleteReport{}); json.Unmarshal([]byte(r.Out), &rep) != nil || !rep.OK || rep.Runtimes == nil || len(rep.Runtimes) != 0 {
		t.Errorf("--json with nothing left: %q", r.Out)
	}
	// A --jq filter that fails on the document fails a reap that did not.
	if r = e.Run(Command, "--reap", "--yes", "--jq", ".ok.x"); r.Code == 0 || r.Out != "" {
		t.Errorf("--jq failing: exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
}

// Without a terminal run --reap needs --yes (exit 2, nothing deleted);
// on one it asks for each runtime, naming it, and only y deletes.
func TestReapAsks(t *testing.T) {
	e := kittest.Empty(t)
	killedRun(t, e, "run-dead1", true, runRecord{Created: true})
	r := e.Run(Command, "--reap")
	if r.Code != kit.ExitUsage || !strings.Contains(r.Err, "pass --yes to run --reap") || len(e.Srv.Runtimes()) != 1 {
		t.Fatalf("off a terminal: exit %d, stderr %q", r.Code, r.Err)
	}
	tty := kittest.Term{InTTY: true, ErrTTY: true}
	tty.In = "n\n"
	r = e.RunTerm(tty, Command, "--reap")
	if r.Code != 0 || !strings.Contains(r.Err, "runtime run-dead1 (") || !strings.Contains(r.Err, "train.py, started ") ||
		!strings.Contains(r.Err, "pid 4242") || !strings.Contains(r.Err, "kept run-dead1 (colabdash run --reap ") || !strings.Contains(r.Err, " deletes it later)") ||
		len(e.Srv.Runtimes()) != 1 || records(t) != 1 {
		t.Fatalf("answered n: exit %d, stderr %q", r.Code, r.Err)
	}
	if strings.Contains(r.Err, "no runtime left by an unfinished run") {
		t.Errorf("answered n, it says no runtime was left, one line after keeping one: %q", r.Err)
	}
	tty.In = "y\n"
	r = e.RunTerm(tty, Command, "--reap")
	if r.Code != 0 || !strings.Contains(r.Err, "deleted run-dead1") || len(e.Srv.Runtimes()) != 0 || records(t) != 0 {
		t.Fatalf("answered y: exit %d, stderr %q", r.Code, r.Err)
	}
}

// A runtime that cannot be deleted: reap says why, keeps its record for
// the next reap and fails; the others are still deleted.
func TestReapDeleteFails(t *testing.T) {
	e := kittest.Empty(t)
	killedRun(t, e, "run-dead1", true, runRecord{Created: true, Started: time.Now().Add(-2 * time.Hour)})
	killedRun(t, e, "run-dead2", true, runRecord{Created: true})
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: api.ToolDeleteRuntime,
		Text: colabfake.GoogleErrorText(api.PermissionDenied, "not yours", "", 0)})
	r := e.Run(Command, "--reap", "--yes", "--json")
	if r.Code == 0 || !strings.Contains(r.Err, "could not delete run-dead1: ") {
		t.Fatalf("exit %d, stderr %q", r.Code, r.Err)
	}
	var rep kit.DeleteReport
	if err := json.Unmarshal([]byte(r.Out), &rep); err != nil || rep.OK || rep.Error == nil || rep.Error.Message == "" ||
		len(rep.Runtimes) != 1 || rep.Runtimes[0].Name != "runtimes/run-dead2" || !rep.Runtimes[0].Deleted {
		t.Errorf("--json (%v): %s", err, r.Out)
	}
	if len(e.Srv.Runtimes()) != 1 || records(t) != 1 {
		t.Errorf("%d runtime(s), %d record(s); want run-dead1 and its record kept", len(e.Srv.Runtimes()), records(t))
	}
	// A runtime already gone when deleted counts as deleted.
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: api.ToolDeleteRuntime,
		Text: colabfake.GoogleErrorText(api.NotFound, "gone", "", 0)})
	r = e.Run(Command, "--reap", "--yes")
	if r.Code != 0 || !strings.Contains(r.Err, "deleted run-dead1") || records(t) != 0 {
		t.Errorf("gone meanwhile: exit %d, stderr %q, %d record(s)", r.Code, r.Err, records(t))
	}
	// A deletion whose reply is lost (the connection reset) is a failure
	// too: the record stays.
	killedRun(t, e, "run-dead3", true, runRecord{Created: true})
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultReset, Tool: api.ToolDeleteRuntime, Times: -1})
	r = e.Run(Command, "--reap", "--yes")
	if r.Code == 0 || !strings.Contains(r.Err, "could not delete run-dead3: ") || records(t) != 1 {
		t.Errorf("connection reset: exit %d, stderr %q, %d record(s)", r.Code, r.Err, records(t))
	}
}

// Which records name a leftover: only unfinished runs of this account
// whose runtime is listed. A record whose runtime is gone is removed once
// its create answered, or after creatingGrace (Colab may still be
// creating it); a live run's record (locked) is never read.
func TestLeftoverRecords(t *testing.T) {
	e := kittest.Empty(t)
	now := time.Now()
	killedRun(t, e, "run-listed", true, runRecord{Created: true})
	killedRun(t, e, "run-gone", false, runRecord{Created: true})
	killedRun(t, e, "run-young", false, runRecord{Started: now.Add(-creatingGrace + time.Minute)})
	killedRun(t, e, "run-old", false, runRecord{Started: now.Add(-creatingGrace - time.Minute)})
	killedRun(t, e, "run-at-grace", false, runRecord{Started: now.Add(-creatingGrace)})
	killedRun(t, e, "run-other", true, runRecord{Created: true, Profile: "work"})
	killedRun(t, e, "run-elsewhere", true, runRecord{Created: true, Endpoint: "https://127.0.0.1:1/mcp"})
	live, err := beginRun(kit.StateDir(), runRecord{RequestID: "11111111-1111-4111-8111-111111111111", Runtime: "runtimes/run-live",
		Endpoint: e.Endpoint, Profile: "default", Created: true, Started: now})
	if err != nil {
		t.Fatal(err)
	}
	defer live.end()
	if _, err := e.Srv.AddRuntime(api.Runtime{Name: "runtimes/run-live", ConnectionInfo: &api.ConnectionInfo{}}); err != nil {
		t.Fatal(err)
	}
	us, rts, err := leftovers(kit.StateDir(), e.Endpoint, "default", e.Srv.Runtimes(), now)
	if err != nil || len(us) != 1 || us[0].rec.Runtime != "runtimes/run-listed" || rts[0].Name != "runtimes/run-listed" {
		t.Fatalf("%v: %d leftovers", err, len(us))
	}
	us[0].close()
	// run-gone and run-old are forgotten; run-young and run-at-grace (not
	// past it), run-listed, the two of other accounts and the live one stay.
	if got, want := recordRuntimes(t), "run-at-grace run-elsewhere run-listed run-live run-other run-young"; got != want {
		t.Errorf("records left for %s, want %s", got, want)
	}
	// The oldest first.
	killedRun(t, e, "run-older", true, runRecord{Created: true, Started: now.Add(-3 * time.Hour)})
	us, _, _ = leftovers(kit.StateDir(), e.Endpoint, "default", e.Srv.Runtimes(), now)
	if len(us) != 2 || us[0].rec.Runtime != "runtimes/run-older" {
		t.Errorf("leftovers not oldest first: %d", len(us))
	}
	for _, u := range us {
		u.close()
	}
}

// status and the dashboard's start say which runtime a killed run left
// and how to delete it; nothing when there is none, nor for the demo.
func TestLeftoversSaid(t *testing.T) {
	e := kittest.Empty(t)
	g := kit.Globals{Profile: config.Profile{Name: "default"}, Logs: kit.Logs{Red: &api.Redactor{}}}
	conn := &kit.Connection{Svc: nil, Endpoint: e.Endpoint}
	v := newVerb(&g, &kit.Streams{}, "status")
	if lines := leftoverLines(v, e.Endpoint, e.Srv.Runtimes()); lines != nil {
		t.Errorf("no record: %q", lines)
	}
	killedRun(t, e, "run-dead1", true, runRecord{Created: true, Spec: "CPU"})
	lines := leftoverLines(v, e.Endpoint, e.Srv.Runtimes())
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "runtime run-dead1 (") ||
		!strings.Contains(lines[0], "was created by a run that did not finish (train.py, started ") ||
		!strings.HasSuffix(lines[0], ", pid 4242) and is still there; delete it with: colabdash run --reap") {
		t.Errorf("lines %q", lines)
	}
	var out strings.Builder
	NoteLeftovers(kit.NewVerb(&g, &kit.Streams{Out: &out, Err: &out}, "status"), conn, e.Srv.Runtimes())
	if !strings.Contains(out.String(), "colabdash: status: runtime run-dead1 (") {
		t.Errorf("status wrote %q", out.String())
	}
	demo := g
	demo.Profile.Credentials = config.CredentialsDemo
	if lines := leftoverLines(newVerb(&demo, &kit.Streams{}, "status"), e.Endpoint, e.Srv.Runtimes()); lines != nil {
		t.Errorf("demo: %q", lines)
	}
}

// A run that starts while a killed run's runtime is still there names it
// (off a terminal it asks nothing) and goes on.
func TestRunNamesALeftoverFirst(t *testing.T) {
	e := kittest.Empty(t)
	useFakeJobs(t)
	killedRun(t, e, "run-dead1", true, runRecord{Created: true})
	r := e.Run(Command, "--spec", "CPU", script(t, "print('hello')\n"))
	if r.Code != 0 || r.Out != "hello\n" || !strings.Contains(r.Err, "runtime run-dead1 (") || !strings.Contains(r.Err, "delete it with: colabdash run --reap") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	if rts := e.Srv.Runtimes(); len(rts) != 1 || rts[0].Name != "runtimes/run-dead1" {
		t.Errorf("runtimes %v: the leftover was deleted without asking, or the run's was kept", rts)
	}
}

// The dashboard's start notices: the leftover runtimes, none without a
// record.
func TestDashboardLeftovers(t *testing.T) {
	e := kittest.Empty(t)
	g := kit.Globals{Profile: config.Profile{Name: "default", Credentials: config.CredentialsAccessToken, AccessTokenFile: e.TokenFile, Endpoint: e.Endpoint},
		Logs: kit.Logs{Red: &api.Redactor{}}}
	conn, err := kit.Connect(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if lines := DashboardLeftovers(context.Background(), g, conn); lines != nil {
		t.Errorf("no record: %q", lines)
	}
	killedRun(t, e, "run-dead1", true, runRecord{Created: true})
	if lines := DashboardLeftovers(context.Background(), g, conn); len(lines) != 1 || !strings.HasPrefix(lines[0], "runtime run-dead1 (") {
		t.Errorf("lines %q", lines)
	}
}

// recordRuntimes are the runtime ids the state directory's run records
// name, sorted.
func recordRuntimes(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(kit.StateDir(), RunRecordDir)
	ents, _ := os.ReadDir(dir)
	var ids []string
	for _, en := range ents {
		b, err := os.ReadFile(filepath.Join(dir, en.Name()))
		var rec runRecord
		if err != nil || json.Unmarshal(b, &rec) != nil {
			t.Fatalf("%s: %v", en.Name(), err)
		}
		ids = append(ids, strings.TrimPrefix(rec.Runtime, "runtimes/"))
	}
	sort.Strings(ids)
	return strings.Join(ids, " ")
}

// When the runtimes cannot be listed to check a killed run's record, the
// run goes on (the record stays for later); a signal while they are
// listed stops it before anything is created.
func TestRunLeftoverCheckFails(t *testing.T) {
	e := kittest.Empty(t)
	useFakeJobs(t)
	killedRun(t, e, "run-dead1", true, runRecord{Created: true})
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: api.ToolListRuntimes,
		Text: colabfake.GoogleErrorText(api.PermissionDenied, "not allowed", "", 0)})
	r := e.Run(Command, "--spec", "CPU", script(t, "print('hello')\n"))
	if r.Code != 0 || r.Out != "hello\n" || records(t) != 1 {
		t.Fatalf("exit %d, %d record(s), stdout %q, stderr %q", r.Code, records(t), r.Out, r.Err)
	}

	holdCall(t, e, api.ToolListRuntimes)
	sigs, done := runWithSignals(e, "--spec", "CPU", script(t, "print('hello')\n"))
	waitUntil(t, done, "the list_runtimes call", func() bool { return e.Srv.PendingFaults() == 0 })
	sigs <- syscall.SIGTERM
	r = <-done
	if r.Code != 128+int(syscall.SIGTERM) || !strings.Contains(r.Err, "interrupted (terminated) while checking the runtimes killed runs left; nothing was created") || e.Srv.CreateCalls() != 1 {
		t.Errorf("exit %d, %d create(s) in all, stderr %q", r.Code, e.Srv.CreateCalls(), r.Err)
	}
}
