package run

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/cli/kit/kittest"
)

// waitUntil waits until cond holds (what says what it waits for), failing
// when the run ends first.
func waitUntil(t *testing.T, done <-chan kittest.Result, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		select {
		case r := <-done:
			t.Fatalf("the run ended before %s: exit %d, stderr %q", what, r.Code, r.Err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("never saw %s", what)
		}
		time.Sleep(5 * time.Millisecond) // a poll of the emulator's state
	}
}

// waitForJob waits until the job run started has printed want (""
// : until it started).
func waitForJob(t *testing.T, f *fakeJobs, done <-chan kittest.Result, want string) {
	t.Helper()
	waitUntil(t, done, "the job printing "+want, func() bool { return f.started() > 0 && strings.Contains(f.printed(), want) })
}

// holdCall holds the emulator's next call of tool until the test ends
// (or the call's context does): the run stays in that step meanwhile.
// The call is taken once PendingFaults is 0.
func holdCall(t *testing.T, e *kittest.Env, tool string) {
	t.Helper()
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultLatency, Tool: tool, Hold: hold})
}

// runWithSignals starts `run args…` with the signals the test sends on
// sigs (as a terminal's ctrl+c or a kill would); done gets its result.
func runWithSignals(e *kittest.Env, args ...string) (sigs chan<- os.Signal, done <-chan kittest.Result) {
	ch := make(chan os.Signal, 2)
	res := make(chan kittest.Result, 1)
	go func() { res <- e.RunTerm(kittest.Term{Sigs: ch}, Command, args...) }()
	return ch, res
}

// stoppedRunFiles are a script that runs until stopped, a file it
// uploads, and the directory its --download would come back to.
func stoppedRunFiles(t *testing.T) (job, data, back string) {
	dir, data := payloadFile(t)
	back = filepath.Join(dir, "back")
	if err := os.Mkdir(back, 0o700); err != nil {
		t.Fatal(err)
	}
	return script(t, "import time\nprint('start')\ntime.sleep(600)\n"), data, back
}

// noDownload fails when the --download came back or was tried: after a
// signal or --timeout the runtime goes at once, nothing is copied first.
func noDownload(t *testing.T, r kittest.Result, back string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(back, "data.txt")); err == nil {
		t.Errorf("--download ran after the run was stopped; stderr %q", r.Err)
	}
	if !strings.Contains(r.Err, "downloads skipped: the run was stopped") {
		t.Errorf("stderr does not say the downloads were skipped: %q", r.Err)
	}
}

// SIGTERM in the middle of a run: what the job printed so far is on our
// stdout (it came while the job ran), the job is stopped, no --download,
// the runtime deleted, exit 143.
func TestRunSignalStopsTheJobAndSkipsDownloads(t *testing.T) {
	e := kittest.Empty(t)
	f := useFakeJobs(t)
	job, data, back := stoppedRunFiles(t)
	sigs, done := runWithSignals(e, "--spec", "CPU", "--upload", data, "--download", "data.txt:"+back+"/", job)
	waitForJob(t, f, done, "start\n")
	sigs <- syscall.SIGTERM
	r := <-done
	if r.Code != 128+int(syscall.SIGTERM) || r.Out != "start\n" || f.stopped() != 1 || !strings.Contains(r.Err, "stopped job fake-1") ||
		!strings.Contains(r.Err, "interrupted (terminated) while job.py ran") {
		t.Errorf("exit %d (want 143), %d stop(s), stdout %q, stderr %q", r.Code, f.stopped(), r.Out, r.Err)
	}
	noDownload(t, r, back)
	left(t, e)
}

// --timeout ends the run: no --download, the runtime deleted, exit 124.
// The script runs within milliseconds on loopback; on a machine too busy
// to reach it before the deadline, the deadline is raised, since the test
// judges only a run stopped while its script ran.
func TestRunTimeoutSkipsDownloads(t *testing.T) {
	f := useFakeJobs(t)
	var (
		e    *kittest.Env
		r    kittest.Result
		back string
	)
	for _, timeout := range []string{"3s", "10s", "30s"} {
		e = kittest.Empty(t)
		var job, data string
		job, data, back = stoppedRunFiles(t)
		r = e.Run(Command, "--spec", "CPU", "--timeout", timeout, "--upload", data, "--download", "data.txt:"+back+"/", job)
		if strings.Contains(r.Err, "running job.py on ") {
			break
		}
	}
	if !strings.Contains(r.Err, "running job.py on ") {
		t.Fatalf("the script never started within 30 s; stderr %q", r.Err)
	}
	if r.Code != ExitRunTimeout || f.stopped() != 1 {
		t.Errorf("exit %d, want %d; %d stop(s); stderr %q", r.Code, ExitRunTimeout, f.stopped(), r.Err)
	}
	noDownload(t, r, back)
	left(t, e)
}

// SIGTERM while Colab is still creating the runtime: the run says so,
// exits 143, and the cleanup's identical create_runtime finds what Colab
// made so that it is deleted; no runtime and no record are left.
func TestRunStoppedWhileCreatingDeletesWhatColabMade(t *testing.T) {
	e := kittest.Empty(t)
	holdCall(t, e, api.ToolCreateRuntime)
	sigs, done := runWithSignals(e, "--spec", "CPU", "--json", script(t, "print('never')\n"))
	waitUntil(t, done, "the create_runtime call", func() bool { return e.Srv.PendingFaults() == 0 })
	sigs <- syscall.SIGTERM
	r := <-done
	var rep Report
	if err := json.Unmarshal([]byte(r.Out), &rep); err != nil || r.Code != 128+int(syscall.SIGTERM) ||
		!strings.Contains(r.Err, "interrupted (terminated) while creating the runtime") || !strings.Contains(r.Err, "deleted runtime run-") {
		t.Fatalf("%v: exit %d, stdout %q, stderr %q", err, r.Code, r.Out, r.Err)
	}
	if !rep.Created || !rep.Deleted || rep.Runtime == "" {
		t.Errorf("--json says created %v, deleted %v, runtime %q: %s", rep.Created, rep.Deleted, rep.Runtime, r.Out)
	}
	left(t, e)
}

// A second SIGTERM while the run deletes its runtime abandons the
// deletion: the run ends at once, says the runtime may be left running
// and keeps its record for run --reap.
func TestRunSecondSignalAbandonsTheDeletion(t *testing.T) {
	e := kittest.Empty(t)
	f := useFakeJobs(t)
	holdCall(t, e, api.ToolDeleteRuntime)
	sigs, done := runWithSignals(e, "--spec", "CPU", script(t, "import time\ntime.sleep(600)\n"))
	waitForJob(t, f, done, "")
	sigs <- syscall.SIGTERM
	waitUntil(t, done, "the delete_runtime call", func() bool { return e.Srv.PendingFaults() == 0 })
	sigs <- syscall.SIGTERM
	var r kittest.Result
	select {
	case r = <-done:
	case <-time.After(deleteBound / 2): // the deletion's own bound ends it at deleteBound
		t.Fatal("the second signal did not abandon the deletion")
	}
	if r.Code != 128+int(syscall.SIGTERM) || !strings.Contains(r.Err, "(at most 1m; a second ctrl+c abandons it)") ||
		!strings.Contains(r.Err, " may be left running (interrupted)") || records(t) != 1 {
		t.Fatalf("exit %d, %d record(s), stderr %q", r.Code, records(t), r.Err)
	}
}

// Without signal subscriptions (a caller's own context), the end of the
// command's context stops the run as ctrl+c does: exit 130, the runtime
// deleted.
func TestRunEndsWithItsContext(t *testing.T) {
	e := kittest.Empty(t)
	f := useFakeJobs(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan kittest.Result, 1)
	go func() {
		done <- e.RunTerm(kittest.Term{Ctx: ctx}, Command, "--spec", "CPU", script(t, "import time\ntime.sleep(600)\n"))
	}()
	waitForJob(t, f, done, "")
	cancel()
	r := <-done
	if r.Code != 128+int(syscall.SIGINT) || !strings.Contains(r.Err, "interrupted (interrupt)") || !strings.Contains(r.Err, "deleted runtime run-") ||
		strings.Contains(r.Err, "downloads skipped") { // there were none
		t.Fatalf("exit %d, stderr %q", r.Code, r.Err)
	}
	left(t, e)
}

// SIGTERM while Colab is still creating the runtime, and the cleanup's
// identical create_runtime refused: the runtime the request names is
// deleted if Colab made it, and the refusal is no news to the user (the
// run was stopped): nothing else is said, nothing is left.
func TestRunStoppedWhileCreatingRecoveryRefused(t *testing.T) {
	e := kittest.Empty(t)
	holdCall(t, e, api.ToolCreateRuntime)
	sigs, done := runWithSignals(e, "--spec", "CPU", script(t, "print('never')\n"))
	waitUntil(t, done, "the create_runtime call", func() bool { return e.Srv.PendingFaults() == 0 })
	// Injected now, so that only the cleanup's create_runtime takes it.
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: api.ToolCreateRuntime, Reason: api.ReasonTooManyActiveRuntimes})
	sigs <- syscall.SIGTERM
	r := <-done
	if r.Code != 128+int(syscall.SIGTERM) || !strings.Contains(r.Err, "interrupted (terminated) while creating the runtime") {
		t.Fatalf("exit %d, stderr %q", r.Code, r.Err)
	}
	for _, line := range strings.Split(strings.TrimSuffix(r.Err, "\n"), "\n") {
		said := false
		for _, ok := range []string{"creating runtime run-", "deleting runtime run-", "deleted runtime run-", "interrupted (terminated)"} {
			said = said || strings.Contains(line, ok)
		}
		if !said {
			t.Errorf("said more than the run's steps: %q", line)
		}
	}
	left(t, e)
}

// A runtime Colab takes back while the job runs: the run fails with
// Colab's word for it (exit 4), and the deletion that finds the runtime
// gone is no failure: nothing is said to be left, and its record goes.
func TestRunRuntimeReclaimedMidRun(t *testing.T) {
	e := kittest.Empty(t)
	f := useFakeJobs(t)
	done := make(chan kittest.Result, 1)
	go func() { done <- e.Run(Command, "--spec", "CPU", script(t, "import time\ntime.sleep(600)\n")) }()
	waitForJob(t, f, done, "")
	if !e.Srv.Reclaim(e.Srv.Runtimes()[0].Name) {
		t.Fatal("no runtime to reclaim")
	}
	r := <-done
	if r.Code != kit.ExitAPI || !strings.Contains(r.Err, "following job.py: ") || !strings.Contains(r.Err, "the runtime no longer exists (deleted or reclaimed)") || strings.Contains(r.Err, "may be left running") {
		t.Fatalf("exit %d, stderr %q", r.Code, r.Err)
	}
	left(t, e)
}

// ctrl+c while a job runs on a runtime the run was given: the job is
// stopped (nothing of it goes on costing), the runtime stays, exit 130.
func TestRunSignalStopsTheJobOnAGivenRuntime(t *testing.T) {
	e := kittest.Empty(t)
	f := useFakeJobs(t)
	myRuntime(t, e)
	sigs, done := runWithSignals(e, "--runtime", "rt-mine", script(t, "import time\nprint('start')\ntime.sleep(600)\n"))
	waitForJob(t, f, done, "start\n")
	sigs <- syscall.SIGINT
	r := <-done
	if r.Code != 128+int(syscall.SIGINT) || f.stopped() != 1 || r.Out != "start\n" || len(e.Srv.Runtimes()) != 1 || strings.Contains(r.Err, "deleted runtime") {
		t.Errorf("exit %d, %d stop(s), %d runtime(s), stdout %q, stderr %q", r.Code, f.stopped(), len(e.Srv.Runtimes()), r.Out, r.Err)
	}
}
