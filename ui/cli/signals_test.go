package cli

import (
	"bufio"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
)

// exitLine is the exit code the pane's shell printed.
var exitLine = regexp.MustCompile(`(?m)^exit=([0-9]+)$`)

// wantSignalExit is 128 + the signal's number: 130, 143, 129.
var wantSignalExit = map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143, syscall.SIGHUP: 129}

// waitExit waits for cmd (signalled) to end and returns its exit code; a
// process the signal killed outright (the signal not handled) has none and
// fails the test.
func waitExit(t *testing.T, what string, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(waitTimeout):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%s: still running %v after the signal", what, waitTimeout)
	}
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		t.Fatalf("%s: killed by %v instead of exiting", what, ws.Signal())
	}
	return ws.ExitStatus()
}

// The emulator and forward (which run until a signal ends them) and exec
// with its code running, without a terminal (a signal detaches), exit 128
// + the signal:
// the real binary, signalled once it showed it is ready.
func TestSignalsExit128PlusNumber(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := binary(t)
	home := isolate(t)
	for sig, want := range wantSignalExit {
		emu := exec.Command(bin, "emulator", "--addr", "127.0.0.1:0", "--seed", "empty")
		emu.Env = append(os.Environ(), "HOME="+home)
		stdout, _ := emu.StdoutPipe()
		if err := emu.Start(); err != nil {
			t.Fatal(err)
		}
		if !bufio.NewScanner(stdout).Scan() { // the endpoint: it listens
			emu.Process.Kill()
			t.Fatal("emulator printed nothing")
		}
		emu.Process.Signal(sig)
		if code := waitExit(t, "emulator "+sig.String(), emu); code != want {
			t.Errorf("emulator ended by %v: exit %d, want %d", sig, code, want)
		}
	}

	e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedDemo})
	hold := make(chan struct{})
	defer close(hold)
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: "execute_code", Hold: hold, Times: -1})
	for sig, want := range wantSignalExit {
		calls := e.srv.CallCount("execute_code")
		cmd := exec.Command(bin, append([]string{"exec", "rt-t4", "--keep", "-c", "print(1)"}, e.flags...)...)
		var errb strings.Builder
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Ready once the server has the call.
		for deadline := time.Now().Add(waitTimeout); e.srv.CallCount("execute_code") == calls; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("exec never called execute_code: %q", errb.String())
			}
		}
		proxied, _ := e.srv.ProxyRequests()
		cmd.Process.Signal(sig)
		if sig == syscall.SIGINT {
			// The first ctrl+c interrupts the kernel through the runtime
			// proxy (the held call ignores it); the second detaches.
			for deadline := time.Now().Add(waitTimeout); ; time.Sleep(10 * time.Millisecond) {
				if n, _ := e.srv.ProxyRequests(); n >= proxied+2 {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("exec's first ctrl+c never reached the runtime proxy")
				}
			}
			cmd.Process.Signal(sig)
		}
		if code := waitExit(t, "exec "+sig.String(), cmd); code != want || !strings.Contains(errb.String(), "detached; ") {
			t.Errorf("exec ended by %v: exit %d (want %d), stderr %q", sig, code, want, errb.String())
		}
	}

	// forward runs until ctrl+c, and exits 130 as its --help says.
	fwd := exec.Command(bin, append([]string{"forward", "rt-t4", "--port", "0"}, e.flags...)...)
	fwd.Env = append(os.Environ(), "HOME="+e.home)
	stdout, _ := fwd.StdoutPipe()
	if err := fwd.Start(); err != nil {
		t.Fatal(err)
	}
	if !bufio.NewScanner(stdout).Scan() { // the URL: it forwards
		fwd.Process.Kill()
		t.Fatal("forward printed no URL")
	}
	fwd.Process.Signal(syscall.SIGINT)
	if code := waitExit(t, "forward SIGINT", fwd); code != 130 {
		t.Errorf("forward ended by ctrl+c: exit %d, want 130", code)
	}
}

// The dashboard on a terminal: SIGTERM, SIGINT (from kill: on the
// terminal ctrl+c is a key) and SIGHUP end it with 128 + the signal,
// the terminal restored; q still exits 0.
func TestDashboardSignalExitCodes(t *testing.T) {
	home := isolate(t)
	bin := binary(t)
	env := []string{"HOME=" + home, "XDG_STATE_HOME=" + home + "/state", "XDG_CONFIG_HOME=" + home + "/config"}
	run := func(end func(s *tmuxSession, pid int)) (int, *tmuxSession) {
		// The pane's shell prints the exit code once the dashboard ended.
		s := startTmux(t, 100, 30, env, bin, "--demo;", "echo", "exit=$?;", "sleep", "600")
		s.waitText("rt-t4demo7k2p")
		pid := processOf(t, s.display("#{pane_pid}"), bin)
		end(s, pid)
		scr := s.waitFor("the dashboard's exit code", waitTimeout, func(scr string) bool { return exitLine.MatchString(scr) })
		code, _ := strconv.Atoi(exitLine.FindStringSubmatch(scr)[1])
		return code, s
	}
	for sig, want := range wantSignalExit {
		code, s := run(func(_ *tmuxSession, pid int) { syscall.Kill(pid, sig) })
		if code != want {
			t.Errorf("dashboard ended by %v: exit %d, want %d", sig, code, want)
		}
		if got := s.display("#{alternate_on}"); got != "0" {
			t.Errorf("after %v the pane is still in the alternate screen", sig)
		}
	}
	if code, _ := run(func(s *tmuxSession, _ int) { s.keys("q") }); code != 0 {
		t.Errorf("q: exit %d, want 0", code)
	}
}
