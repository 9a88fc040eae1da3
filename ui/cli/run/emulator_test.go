package run

import (
	"strings"
	"syscall"
	"testing"
	"time"

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

// ctrl+c while a job runs on the emulator, on a runtime the run was
// given: the job is stopped (the emulator's supervisor sees the stop file
// and ends it), the runtime stays, exit 130.
func TestRunSignalStopsTheJobOnTheEmulator(t *testing.T) {
	e := kittest.Empty(t)
	myRuntime(t, e)
	sigs, done := runWithSignals(e, "--runtime", "rt-mine", script(t, "import time\nprint('start')\ntime.sleep(600)\n"))
	waitUntil(t, done, "the job running", func() bool { return len(e.Srv.RunningJobs("runtimes/rt-mine")) == 1 })
	sigs <- syscall.SIGINT
	r := <-done
	if r.Code != 128+int(syscall.SIGINT) || !strings.Contains(r.Err, "stopped job job-") || len(e.Srv.Runtimes()) != 1 {
		t.Fatalf("exit %d, %d runtime(s), stderr %q", r.Code, len(e.Srv.Runtimes()), r.Err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(e.Srv.RunningJobs("runtimes/rt-mine")) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the job still runs 30 s after it was stopped")
		}
		time.Sleep(10 * time.Millisecond) // a poll of the emulator's state
	}
}
