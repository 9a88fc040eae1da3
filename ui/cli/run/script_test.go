package run

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/cli/kit/kittest"
)

// A script's exit code is python's: 1 and the traceback for an
// exception, n for sys.exit(n), 1 and the message for sys.exit("…"),
// without IPython's SystemExit warning; --json says so with the code.
func TestRunScriptExitCodes(t *testing.T) {
	e := kittest.Empty(t)
	r := e.Run(Command, "--spec", "CPU", script(t, "print(1)\nraise ValueError('nope')\n"))
	if r.Code != 1 || r.Out != "1\n" || !strings.Contains(r.Err, "ValueError: nope") {
		t.Errorf("exception: exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	r = e.Run(Command, "--spec", "CPU", "--json", script(t, "import sys\nprint('bye')\nsys.exit(3)\n"))
	var rep Report
	if err := json.Unmarshal([]byte(r.Out), &rep); err != nil || r.Code != 3 || rep.OK || rep.ExitCode != 3 || rep.Stdout != "bye\n" ||
		rep.Error == nil || rep.Error.Message != "job.py exited 3" || strings.Contains(rep.Stderr, "To exit") || rep.ExecutionError != nil {
		t.Errorf("sys.exit(3) --json: %v, exit %d, %q", err, r.Code, r.Out)
	}
	r = e.Run(Command, "--spec", "CPU", script(t, "sys.exit('bad input')\n"))
	if r.Code != 1 || !strings.Contains(r.Err, "bad input\n") || strings.Contains(r.Err, "SystemExit") {
		t.Errorf("sys.exit('bad input'): exit %d, stderr %q", r.Code, r.Err)
	}
	r = e.Run(Command, "--spec", "CPU", script(t, "sys.exit(0)\n"))
	if r.Code != 0 {
		t.Errorf("sys.exit(0): exit %d, stderr %q", r.Code, r.Err)
	}
	left(t, e)
}

// A run on a runtime that does not exist, or whose state directory
// cannot hold its record, creates nothing.
func TestRunCreatesNothingWhenItCannot(t *testing.T) {
	e := kittest.Empty(t)
	r := e.Run(Command, "--runtime", "rt-nope", script(t, "print(1)\n"))
	if r.Code != kit.ExitNotFound {
		t.Errorf("unknown --runtime: exit %d, stderr %q", r.Code, r.Err)
	}
	state := filepath.Join(t.TempDir(), "state")
	if err := os.WriteFile(state, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_STATE_HOME", state) // a file, not a directory
	r = e.Run(Command, "--spec", "CPU", script(t, "print(1)\n"))
	if r.Code != kit.ExitFailure || !strings.Contains(r.Err, "cannot record the run in the state directory, so nothing was created") {
		t.Errorf("no state directory: exit %d, stderr %q", r.Code, r.Err)
	}
	if e.Srv.RuntimesCreated() != 0 || e.Srv.CreateCalls() != 0 {
		t.Errorf("%d create(s) sent", e.Srv.CreateCalls())
	}
}
