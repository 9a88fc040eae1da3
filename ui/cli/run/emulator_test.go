package run

import (
	"strings"
	"testing"

	"github.com/colabdash/colabdash/ui/cli/kit/kittest"
)

// On the emulator, which runs jobs as the supervisor would (its script
// through its Python emulator): run FILE is that job followed to its end,
// stdout and stderr apart, argv as python's, exit(n) its code, input()
// failing at once; run --detach returns while the job goes on.
func TestRunJobsOnTheEmulator(t *testing.T) {
	e := kittest.Empty(t)
	r := e.Run(Command, "--spec", "CPU", script(t, "import sys\nprint('hello', sys.argv)\nprint('oops', file=sys.stderr)\nexit(3)\nprint('after')\n"), "--", "a")
	if r.Code != 3 || r.Out != "hello ['job.py', 'a']\n" || !strings.Contains(r.Err, "oops\n") || !strings.Contains(r.Err, "running job.py on run-") {
		t.Errorf("exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	r = e.Run(Command, "--spec", "CPU", script(t, "x = input()\n"))
	if r.Code != 1 || !strings.Contains(r.Err, "EOFError") {
		t.Errorf("input(): exit %d, stderr %q", r.Code, r.Err)
	}
	left(t, e)
	r = e.Run(Command, "--spec", "CPU", "--detach", script(t, "import time\ntime.sleep(600)\n"))
	if r.Code != 0 || !strings.HasPrefix(r.Out, "job-") || len(e.Srv.Runtimes()) != 1 {
		t.Errorf("--detach: exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
}
