package run

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
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
