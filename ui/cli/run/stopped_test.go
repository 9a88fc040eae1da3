package run

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/kit/kittest"
)

// waitForRunningCode waits until the emulator runs code in a session of
// the one runtime the run created.
func waitForRunningCode(t *testing.T, e *kittest.Env, done <-chan kittest.Result) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		for _, rt := range e.Srv.Runtimes() {
			for _, se := range e.Srv.Sessions(rt.Name) {
				if e.Srv.RunningCode(se.Name) > 0 {
					return
				}
			}
		}
		select {
		case r := <-done:
			t.Fatalf("the run ended before its code ran: exit %d, stderr %q", r.Code, r.Err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the emulator never ran the script")
		}
		time.Sleep(5 * time.Millisecond) // a poll of the emulator's state
	}
}

// stoppedRunFiles are a script that runs until stopped, a file it
// uploads, and the directory its --download would come back to.
func stoppedRunFiles(t *testing.T) (job, data, back string) {
	dir := t.TempDir()
	data = filepath.Join(dir, "data.txt")
	if err := os.WriteFile(data, []byte("payload\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	back = filepath.Join(dir, "back")
	if err := os.Mkdir(back, 0o700); err != nil {
		t.Fatal(err)
	}
	return script(t, "print('start')\ntime.sleep(600)\n"), data, back
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

// SIGTERM in the middle of a run: no --download, the runtime deleted,
// exit 143.
func TestRunSignalSkipsDownloads(t *testing.T) {
	e := kittest.New(t, colabfake.Options{Seed: colabfake.SeedEmpty})
	job, data, back := stoppedRunFiles(t)
	sigs := make(chan os.Signal, 2)
	done := make(chan kittest.Result, 1)
	go func() {
		done <- e.RunTerm(kittest.Term{Sigs: sigs}, Command, "--spec", "CPU", "--upload", data, "--download", "data.txt:"+back+"/", job)
	}()
	waitForRunningCode(t, e, done)
	sigs <- syscall.SIGTERM
	r := <-done
	if r.Code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit %d, want 143; stderr %q", r.Code, r.Err)
	}
	noDownload(t, r, back)
	left(t, e)
}

// --timeout ends the run: no --download, the runtime deleted, exit 124.
// The script runs within milliseconds on loopback; on a machine too busy
// to reach it before the deadline, the deadline is raised, since the test
// judges only a run stopped while its script ran.
func TestRunTimeoutSkipsDownloads(t *testing.T) {
	var (
		e    *kittest.Env
		r    kittest.Result
		back string
	)
	for _, timeout := range []string{"3s", "10s", "30s"} {
		e = kittest.New(t, colabfake.Options{Seed: colabfake.SeedEmpty})
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
	if r.Code != ExitRunTimeout {
		t.Errorf("exit %d, want %d; stderr %q", r.Code, ExitRunTimeout, r.Err)
	}
	noDownload(t, r, back)
	left(t, e)
}
