package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// exitLine is the exit code the pane's shell printed.
var exitLine = regexp.MustCompile(`(?m)^exit=([0-9]+)$`)

// wantSignalExit is 128 + the signal's number: 130, 143, 129.
var wantSignalExit = map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143, syscall.SIGHUP: 129}

// startUntilFirstLine starts cmd and returns once it printed a first line
// on stdout, what says it is ready; when it ends without one it fails the
// test.
func startUntilFirstLine(t *testing.T, cmd *exec.Cmd, what string) {
	t.Helper()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !bufio.NewScanner(stdout).Scan() {
		cmd.Process.Kill()
		t.Fatalf("no first line on stdout: want %s", what)
	}
}

// The emulator and forward (which run until a signal ends them) and exec
// with its code running, without a terminal (a signal detaches), exit 128
// + the signal:
// the real binary, signalled once it showed it is ready.
func TestSignalsExit128PlusNumber(t *testing.T) {
	bin := needBinary(t)
	home := isolate(t)
	for sig, want := range wantSignalExit {
		emu := exec.Command(bin, "emulator", "--addr", "127.0.0.1:0", "--seed", "empty")
		emu.Env = append(os.Environ(), "HOME="+home)
		startUntilFirstLine(t, emu, "the emulator's endpoint (it listens)")
		emu.Process.Signal(sig)
		if code := waitExit(t, "emulator "+sig.String(), emu); code != want {
			t.Errorf("emulator ended by %v: exit %d, want %d", sig, code, want)
		}
	}

	e := demoVerbEnv(t)
	e.holdCalls(colabfake.FaultDeadline, "execute_code", -1)
	for sig, want := range wantSignalExit {
		calls := e.srv.CallCount("execute_code")
		cmd := exec.Command(bin, append([]string{"exec", "rt-t4", "--keep", "-c", "print(1)"}, e.flags...)...)
		var errb strings.Builder
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Ready once the server has the call.
		waitReady(t, cmd, func() string { return fmt.Sprintf("exec never called execute_code: %q", errb.String()) },
			func() bool { return e.srv.CallCount("execute_code") != calls })
		proxied, _ := e.srv.ProxyRequests()
		cmd.Process.Signal(sig)
		if sig == syscall.SIGINT {
			// The first ctrl+c interrupts the kernel through the runtime
			// proxy (the held call ignores it); the second detaches.
			waitReady(t, cmd, func() string { return "exec's first ctrl+c never reached the runtime proxy" },
				func() bool { n, _ := e.srv.ProxyRequests(); return n >= proxied+2 })
			cmd.Process.Signal(sig)
		}
		if code := waitExit(t, "exec "+sig.String(), cmd); code != want || !strings.Contains(errb.String(), "detached; ") {
			t.Errorf("exec ended by %v: exit %d (want %d), stderr %q", sig, code, want, errb.String())
		}
	}

	// forward runs until ctrl+c, and exits 130 as its --help says.
	fwd := exec.Command(bin, append([]string{"forward", "rt-t4", "--port", "0"}, e.flags...)...)
	fwd.Env = append(os.Environ(), "HOME="+e.home)
	startUntilFirstLine(t, fwd, "forward's URL (it forwards)")
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
	env := homeEnv(home)
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

// silentPipe is stdin as a pipe nobody writes to: a read blocks until the
// test ends. reading is closed once the command first reads from it.
type silentPipe struct {
	r       *io.PipeReader
	reading chan struct{}
	once    sync.Once
}

func newSilentPipe(t *testing.T) *silentPipe {
	r, w := io.Pipe()
	t.Cleanup(func() { w.Close() })
	return &silentPipe{r: r, reading: make(chan struct{})}
}

func (p *silentPipe) Read(b []byte) (int, error) {
	p.once.Do(func() { close(p.reading) })
	return p.r.Read(b)
}

// interruptWhileReading runs args with stdin a silent pipe and ends the
// command's context (what ctrl+c and SIGTERM do) once it reads stdin. It
// fails the test when the command does not return within waitTimeout.
func (e *verbEnv) interruptWhileReading(tm term, args ...string) (int, string, string) {
	e.t.Helper()
	in := newSilentPipe(e.t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tm.stdin, tm.ctx = in, ctx
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errs := e.runTerm(tm, args...)
		done <- result{code, out, errs}
	}()
	select {
	case <-in.reading:
	case r := <-done:
		e.t.Fatalf("%v returned without reading stdin: exit %d %q %q", args, r.code, r.out, r.err)
	case <-time.After(waitTimeout):
		e.t.Fatalf("%v never read stdin", args)
	}
	cancel()
	select {
	case r := <-done:
		return r.code, r.out, r.err
	case <-time.After(waitTimeout):
		e.t.Fatalf("%v still waiting for stdin %v after ctrl+c", args, waitTimeout)
	}
	return 0, "", ""
}

// ctrl+c (the command's context ending) while delete or session close
// waits for its confirmation, or while exec - waits for the code, exits
// 130 at once and acts on nothing; the error starts on a line of its own.
func TestInterruptWhileReadingStdin(t *testing.T) {
	e := demoVerbEnv(t)
	tty := term{inTTY: true, errTTY: true}

	code, out, errs := e.interruptWhileReading(tty, "delete", "rt-cpu")
	if code != kit.ExitInterrupted || out != "" || !strings.HasSuffix(errs, "(anything else cancels): \ncolabdash: delete interrupted; nothing was deleted\n") {
		t.Errorf("delete: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if n := e.srv.CallCount("delete_runtime"); n != 0 || len(e.srv.Runtimes()) != 3 {
		t.Errorf("delete interrupted: %d delete_runtime calls, %d runtimes left", n, len(e.srv.Runtimes()))
	}

	_, out, _ = e.run("session", "open", "rt-t4")
	sess := strings.TrimSpace(out)
	code, out, errs = e.interruptWhileReading(tty, "session", "close", sess)
	if code != kit.ExitInterrupted || out != "" || !strings.HasSuffix(errs, "(anything else cancels): \ncolabdash: session close interrupted; nothing was closed\n") {
		t.Errorf("session close: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if n := e.srv.CallCount("delete_session"); n != 0 {
		t.Errorf("session close interrupted: %d delete_session calls", n)
	}

	for _, tm := range []term{{}, tty} {
		code, out, errs = e.interruptWhileReading(tm, "exec", "rt-t4", "-")
		want := "colabdash: interrupted while reading the code from stdin; nothing was run\n"
		if tm.inTTY {
			want = "colabdash: exec: reading the code from the terminal: ctrl+d on a line of its own ends it, ctrl+c cancels\n\n" + want
		}
		if code != kit.ExitInterrupted || out != "" || errs != want {
			t.Errorf("exec - (terminal %v): exit %d, stdout %q, stderr %q, want %q", tm.inTTY, code, out, errs, want)
		}
	}
	if n := e.srv.CallCount("execute_code") + e.srv.CallCount("create_session"); n != 1 { // the session open above
		t.Errorf("exec - interrupted: %d execute_code and create_session calls, want only session open's", n)
	}
}

// The real binary with stdin a pipe nobody writes to: SIGINT, SIGTERM and
// SIGHUP end `exec -` with exit code 128 + the signal (130, 143, 129)
// instead of leaving it blocked.
func TestExecStdinSignal(t *testing.T) {
	bin := needBinary(t)
	e := demoVerbEnv(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		logFile := filepath.Join(e.home, "log-"+sig.String()+".json")
		cmd := exec.Command(bin, append([]string{"exec", "rt-t4", "-", "--log-file", logFile}, e.flags...)...)
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdin = pr
		var errb strings.Builder
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pr.Close()
		// The log's first record is written once the signal handlers are
		// in place and the command is about to read its code.
		waitReady(t, cmd, func() string { return sig.String() + ": no start record in the log" },
			func() bool { b, _ := os.ReadFile(logFile); return regexp.MustCompile(`"msg":"start"`).Match(b) })
		cmd.Process.Signal(sig)
		code := waitExit(t, sig.String()+" while blocked on stdin", cmd)
		pw.Close()
		if code != wantSignalExit[sig] || !strings.Contains(errb.String(), "interrupted while reading the code from stdin") {
			t.Errorf("%v: exit %d, stderr %q", sig, code, errb.String())
		}
	}
	if n := e.srv.CallCount("create_session") + e.srv.CallCount("execute_code"); n != 0 {
		t.Errorf("%d create_session/execute_code calls after interrupted reads", n)
	}
}

// On a real terminal: ctrl+c at delete's question, and while exec - waits
// for code typed on the terminal, ends the command with exit code 130; the
// shell's next line starts at the left margin, and nothing was deleted or
// run.
func TestInterruptOnATerminal(t *testing.T) {
	bin := needBinary(t)
	e := demoVerbEnv(t)
	flags := strings.Join(e.flags, " ")
	s := e.shellInTmux(bin+" delete rt-cpu "+flags, "echo DELETE_EXIT=$?",
		bin+" exec rt-t4 - "+flags, "echo EXEC_EXIT=$?")
	s.waitText("Type y to delete")
	s.keys("C-c")
	scr := s.waitText("DELETE_EXIT=")
	if !regexp.MustCompile(`(?m)^colabdash: delete interrupted; nothing was deleted\n+DELETE_EXIT=130$`).MatchString(scr) ||
		len(e.srv.Runtimes()) != 3 {
		t.Fatalf("after ctrl+c at delete's question (%d runtimes):\n%s", len(e.srv.Runtimes()), scr)
	}
	s.waitText("reading the code from the terminal")
	s.text("print(1)")
	s.keys("Enter", "C-c")
	scr = s.waitText("EXEC_EXIT=")
	if !regexp.MustCompile(`(?m)^colabdash: interrupted while reading the code from stdin; nothing was run\n+EXEC_EXIT=130$`).MatchString(scr) {
		t.Fatalf("after ctrl+c while exec - reads the terminal:\n%s", scr)
	}
	if n := e.srv.CallCount("create_session") + e.srv.CallCount("execute_code"); n != 0 {
		t.Fatalf("%d create_session/execute_code calls after ctrl+c", n)
	}
}

// Field trial: at exec's ctrl+c question on a real terminal one key
// answers, as in k9s and lazygit: d alone (no Enter) detaches, and the
// terminal's mode is restored afterwards (stty -g reads the same).
func TestExecQuestionTakesOneKey(t *testing.T) {
	bin := needBinary(t)
	e := demoVerbEnv(t)
	// The call is held: code that a kernel interrupt does not stop, so
	// the second ctrl+c asks.
	e.holdCalls(colabfake.FaultDeadline, "execute_code", 0)
	flags := strings.Join(e.flags, " ")
	before, after := filepath.Join(e.home, "stty.before"), filepath.Join(e.home, "stty.after")
	s := e.shellInTmux("stty -g > "+before,
		bin+" exec rt-t4 --keep -c \"time.sleep(600)\" "+flags, "echo EXEC_EXIT=$?",
		"stty -g > "+after, "cmp -s "+before+" "+after+" && echo TTY_RESTORED")
	s.waitText("ctrl+c interrupts the kernel")
	s.keys("C-c")
	s.waitText("interrupted the kernel; waiting")
	s.keys("C-c")
	s.waitText("Press s or d")
	s.keys("x") // any other key: keep waiting
	s.waitText("still waiting")
	s.keys("C-c")
	s.waitFor("the question again", waitTimeout, func(scr string) bool { return strings.Count(scr, "Press s or d") == 2 })
	s.keys("d")
	scr := s.waitText("EXEC_EXIT=")
	if !strings.Contains(scr, "detached; ") || !strings.Contains(scr, "EXEC_EXIT=130") {
		t.Fatalf("after d:\n%s", scr)
	}
	s.waitText("TTY_RESTORED")
}
