package run

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/cli/kit/kittest"
)

// script writes a Python script for a run and returns its path.
func script(t *testing.T, code string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "job.py")
	if err := os.WriteFile(p, []byte(code), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// left fails when the emulator still lists a runtime or a run record is
// left in the state directory.
func left(t *testing.T, e *kittest.Env) {
	t.Helper()
	if rts := e.Srv.Runtimes(); len(rts) != 0 {
		t.Errorf("%d runtime(s) left: %s", len(rts), rts[0].Name)
	}
	if recs, _ := os.ReadDir(filepath.Join(os.Getenv("XDG_STATE_HOME"), "colabdash", RunRecordDir)); len(recs) != 0 {
		t.Errorf("%d run record(s) left", len(recs))
	}
}

// A run creates its runtime, runs the script, brings its output back and
// deletes the runtime.
func TestRunCreatesRunsAndDeletes(t *testing.T) {
	e := kittest.New(t, colabfake.Options{Seed: colabfake.SeedEmpty})
	r := e.Run(Command, "--spec", "CPU", script(t, "print('hello')\n"))
	if r.Code != 0 || r.Out != "hello\n" || !strings.Contains(r.Err, "creating runtime run-") || !strings.Contains(r.Err, "deleted runtime run-") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	left(t, e)
}

// A create reply lost after Colab made the runtime: run lists the
// runtimes, finds its own (by the id it asked for) and goes on, sending
// nothing again; the runtime is deleted at the end.
func TestRunLostCreateReplyFoundByRelist(t *testing.T) {
	e := kittest.New(t, colabfake.Options{Seed: colabfake.SeedEmpty})
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultReset, Tool: api.ToolCreateRuntime})
	r := e.Run(Command, "--spec", "CPU", script(t, "print('hello')\n"))
	if r.Code != 0 || r.Out != "hello\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	if e.Srv.CreateCalls() != 1 || e.Srv.RuntimesCreated() != 1 {
		t.Fatalf("%d sends, %d created; want the one", e.Srv.CreateCalls(), e.Srv.RuntimesCreated())
	}
	left(t, e)
}

// A create reply lost before Colab saw it: the re-list does not find the
// runtime, and run re-sends the identical request by itself (its
// presentation of the rule); one runtime, deleted at the end.
func TestRunLostCreateReplyNotListedResends(t *testing.T) {
	e := kittest.New(t, colabfake.Options{Seed: colabfake.SeedEmpty})
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultReset, Tool: api.ToolCreateRuntime, Unprocessed: true})
	r := e.Run(Command, "--spec", "CPU", script(t, "print('hello')\n"))
	if r.Code != 0 || r.Out != "hello\n" || strings.Contains(r.Err, "outcome unknown") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	if e.Srv.RuntimesCreated() != 1 {
		t.Fatalf("%d created", e.Srv.RuntimesCreated())
	}
	left(t, e)
}

// The script's execute_code cut off twice: run reattaches, one send per
// answer at the emulator, and the output is the script's.
func TestRunReattachesAfterTheCutOff(t *testing.T) {
	e := kittest.New(t, colabfake.Options{Seed: colabfake.SeedEmpty})
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: api.ToolExecuteCode, Times: 2})
	r := e.Run(Command, "--spec", "CPU", script(t, "print('hello')\n"))
	// The set-up call takes the two cut-offs, then the script runs: 3 + 1.
	if n := e.Srv.CallCount(api.ToolExecuteCode); r.Code != 0 || r.Out != "hello\n" || n != 4 {
		t.Fatalf("exit %d, stdout %q, stderr %q, %d sends", r.Code, r.Out, r.Err, n)
	}
	left(t, e)
}

// Colab refuses the create: exit 5 with the reason; nothing to delete and
// no record left.
func TestRunCreateRefused(t *testing.T) {
	e := kittest.New(t, colabfake.Options{Seed: colabfake.SeedEmpty})
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: api.ToolCreateRuntime, Reason: api.ReasonTooManyActiveRuntimes})
	r := e.Run(Command, "--spec", "CPU", script(t, "print('hello')\n"))
	if r.Code != kit.ExitQuota || r.Out != "" || !strings.Contains(r.Err, "Too many active runtimes") || strings.Contains(r.Err, "deleted runtime") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	left(t, e)
}

// On an existing runtime: --upload goes to /content, --download comes
// back after the run (a path the runtime lacks is a warning and listed
// as missing), each file said on stderr and listed in --json; the
// runtime stays and the run's session is closed.
func TestRunUploadsAndDownloads(t *testing.T) {
	e := kittest.New(t, colabfake.Options{Seed: colabfake.SeedEmpty})
	if _, err := e.Srv.AddRuntime(api.Runtime{Name: "runtimes/rt-mine", ConnectionInfo: &api.ConnectionInfo{}}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "data.txt")
	if err := os.WriteFile(data, []byte("payload\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	back := filepath.Join(dir, "back")
	if err := os.Mkdir(back, 0o700); err != nil {
		t.Fatal(err)
	}
	r := e.Run(Command, "--runtime", "rt-mine", "--json", "--upload", data, "--download", "data.txt:"+back+"/",
		"--download", "missing.txt:"+back+"/", script(t, "print('hello')\n"))
	var rep Report
	if err := json.Unmarshal([]byte(r.Out), &rep); err != nil || r.Code != 0 || !rep.OK {
		t.Fatalf("%v: exit %d, stdout %q, stderr %q", err, r.Code, r.Out, r.Err)
	}
	if b, err := os.ReadFile(filepath.Join(back, "data.txt")); err != nil || string(b) != "payload\n" {
		t.Errorf("the download: %q, %v", b, err)
	}
	if len(rep.Files) != 2 || rep.Files[0].Dst != "rt-mine:/content/data.txt" || rep.Files[1].Src != "rt-mine:/content/data.txt" || rep.Files[1].Bytes != 8 {
		t.Errorf("files %+v", rep.Files)
	}
	if len(rep.Missing) != 1 || rep.Missing[0] != "/content/missing.txt" || !strings.Contains(r.Err, "warning: --download /content/missing.txt: not on the runtime") {
		t.Errorf("missing %v, stderr %q", rep.Missing, r.Err)
	}
	if rep.Created || rep.Deleted || rep.Stdout != "hello\n" || len(e.Srv.Runtimes()) != 1 || len(e.Srv.Sessions("runtimes/rt-mine")) != 0 {
		t.Errorf("created %v, deleted %v, stdout %q, %d runtime(s), sessions %v", rep.Created, rep.Deleted, rep.Stdout, len(e.Srv.Runtimes()), e.Srv.Sessions("runtimes/rt-mine"))
	}
}

// --keep keeps the runtime --spec created and says how to reach it; its
// record goes (nothing is left behind unknowingly).
func TestRunKeep(t *testing.T) {
	e := kittest.New(t, colabfake.Options{Seed: colabfake.SeedEmpty})
	r := e.Run(Command, "--spec", "CPU", "--keep", script(t, "print('hello')\n"))
	rts := e.Srv.Runtimes()
	if r.Code != 0 || len(rts) != 1 || records(t) != 0 {
		t.Fatalf("exit %d, %d runtime(s), %d record(s); stderr %q", r.Code, len(rts), records(t), r.Err)
	}
	id := rts[0].ID()
	if !strings.Contains(r.Err, "kept runtime "+id+" (--keep): colabdash exec "+id+" ") || !strings.Contains(r.Err, " lists its files; colabdash delete "+id) {
		t.Errorf("stderr %q", r.Err)
	}
}

// A runtime the run created and cannot delete: the run says it may be
// left running and how to delete it, exits 4 and keeps its record for
// run --reap.
func TestRunDeleteFails(t *testing.T) {
	e := kittest.New(t, colabfake.Options{Seed: colabfake.SeedEmpty})
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: api.ToolDeleteRuntime, Times: -1,
		Text: colabfake.GoogleErrorText(api.PermissionDenied, "not allowed", "", 0)})
	r := e.Run(Command, "--spec", "CPU", "--json", script(t, "print('hello')\n"))
	rts := e.Srv.Runtimes()
	if r.Code != kit.ExitAPI || len(rts) != 1 || records(t) != 1 {
		t.Fatalf("exit %d, %d runtime(s), %d record(s); stderr %q", r.Code, len(rts), records(t), r.Err)
	}
	id := rts[0].ID()
	if !strings.Contains(r.Err, "runtime "+id+" may be left running (") || !strings.Contains(r.Err, "colabdash delete "+id+" --yes --ignore-missing") ||
		!strings.Contains(r.Err, "or colabdash run --reap") {
		t.Errorf("stderr %q", r.Err)
	}
	var rep Report
	if err := json.Unmarshal([]byte(r.Out), &rep); err != nil || rep.OK || rep.ExitCode != kit.ExitAPI || rep.Deleted || !rep.Created {
		t.Errorf("%v: --json %q", err, r.Out)
	}
}
