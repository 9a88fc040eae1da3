package run

import (
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
	e := kittest.Empty(t)
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
	e := kittest.Empty(t)
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
	e := kittest.Empty(t)
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
// answer at the emulator, and the output is the script's; on a terminal
// each reattach is said.
func TestRunReattachesAfterTheCutOff(t *testing.T) {
	e := kittest.Empty(t)
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: api.ToolExecuteCode, Times: 2})
	r := e.RunTerm(kittest.Term{ErrTTY: true}, Command, "--spec", "CPU", script(t, "print('hello')\n"))
	// The set-up call takes the two cut-offs, then the script runs: 3 + 1.
	if n := e.Srv.CallCount(api.ToolExecuteCode); r.Code != 0 || r.Out != "hello\n" || n != 4 {
		t.Fatalf("exit %d, stdout %q, stderr %q, %d sends", r.Code, r.Out, r.Err, n)
	}
	if n := strings.Count(r.Err, "reattaching to the running code (DEADLINE_EXCEEDED; same executionId)"); n != 2 {
		t.Errorf("%d reattaches said, want 2: %q", n, r.Err)
	}
	left(t, e)
}

// Colab refuses the create: exit 5 with the reason; nothing to delete and
// no record left.
func TestRunCreateRefused(t *testing.T) {
	e := kittest.Empty(t)
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: api.ToolCreateRuntime, Reason: api.ReasonTooManyActiveRuntimes})
	r := e.Run(Command, "--spec", "CPU", script(t, "print('hello')\n"))
	if r.Code != kit.ExitQuota || r.Out != "" || !strings.Contains(r.Err, "Too many active runtimes") || strings.Contains(r.Err, "deleted runtime") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	left(t, e)
}

// A spec the account cannot have is refused before anything is created:
// one Colab does not offer is a usage error (exit 2), one above the tier
// a quota error (exit 5); specs that cannot be listed create nothing
// either. Nothing is left.
func TestRunRefusesASpecBeforeCreating(t *testing.T) {
	e := kittest.New(t, colabfake.Options{Seed: colabfake.SeedEmpty, Tier: api.TierFree})
	for _, c := range []struct {
		spec string
		code int
		want string
	}{
		{"GPU/V100", kit.ExitUsage, "GPU/V100"},
		{"GPU/H100", kit.ExitQuota, "GPU/H100"},
	} {
		r := e.Run(Command, "--spec", c.spec, script(t, "print('hello')\n"))
		if r.Code != c.code || !strings.Contains(r.Err, c.want) {
			t.Errorf("--spec %s: exit %d (want %d), stderr %q", c.spec, r.Code, c.code, r.Err)
		}
	}
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: api.ToolListRuntimeSpecs,
		Text: colabfake.GoogleErrorText(api.PermissionDenied, "not allowed", "", 0)})
	if r := e.Run(Command, "--spec", "CPU", script(t, "print('hello')\n")); r.Code != kit.ExitCredential || !strings.Contains(r.Err, "not allowed") {
		t.Errorf("specs not listed: exit %d, stderr %q", r.Code, r.Err)
	}
	if n := e.Srv.CreateCalls(); n != 0 {
		t.Errorf("%d create(s) sent", n)
	}
	left(t, e)
}

// A runtime created but not seen listed (the listing fails) is not used:
// the run fails with the listing's error and deletes the runtime.
func TestRunCreatedButNotListed(t *testing.T) {
	e := kittest.Empty(t)
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: api.ToolListRuntimes, Times: -1,
		Text: colabfake.GoogleErrorText(api.PermissionDenied, "not allowed", "", 0)})
	r := e.Run(Command, "--spec", "CPU", script(t, "print('hello')\n"))
	if r.Code == 0 || r.Out != "" || !strings.Contains(r.Err, "not allowed") || !strings.Contains(r.Err, "deleted runtime run-") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	left(t, e)
}
