package cli

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

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
	e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedDemo})
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
	if testing.Short() {
		t.Skip("builds the binary")
	}
	e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedDemo})
	bin := binary(t)
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
		for deadline := time.Now().Add(waitTimeout); ; time.Sleep(20 * time.Millisecond) {
			if b, _ := os.ReadFile(logFile); regexp.MustCompile(`"msg":"start"`).Match(b) {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("%v: no start record in the log", sig)
			}
		}
		cmd.Process.Signal(sig)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(waitTimeout):
			cmd.Process.Kill()
			<-done
			t.Fatalf("%v: still blocked on stdin %v after the signal", sig, waitTimeout)
		}
		pw.Close()
		if code := cmd.ProcessState.ExitCode(); code != wantSignalExit[sig] || !strings.Contains(errb.String(), "interrupted while reading the code from stdin") {
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
	if testing.Short() {
		t.Skip("builds the binary")
	}
	e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedDemo})
	bin := binary(t)
	flags := strings.Join(e.flags, " ")
	script := strings.Join([]string{
		"trap \"\" INT", // the shell outlives ctrl+c; colabdash handles it
		bin + " delete rt-cpu " + flags, "echo DELETE_EXIT=$?",
		bin + " exec rt-t4 - " + flags, "echo EXEC_EXIT=$?",
		"sleep 60"}, "; ")
	s := startTmux(t, 150, 30, []string{"HOME=" + e.home, "NO_COLOR=1", "TERM=xterm-256color"}, "sh", "-c", "'"+script+"'")
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
	if testing.Short() {
		t.Skip("builds the binary")
	}
	e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedDemo})
	// The call is held: code that a kernel interrupt does not stop, so
	// the second ctrl+c asks.
	hold := make(chan struct{})
	defer close(hold)
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: "execute_code", Hold: hold})
	bin := binary(t)
	flags := strings.Join(e.flags, " ")
	before, after := filepath.Join(e.home, "stty.before"), filepath.Join(e.home, "stty.after")
	script := strings.Join([]string{
		"trap \"\" INT",
		"stty -g > " + before,
		bin + " exec rt-t4 --keep -c \"time.sleep(600)\" " + flags, "echo EXEC_EXIT=$?",
		"stty -g > " + after, "cmp -s " + before + " " + after + " && echo TTY_RESTORED",
		"sleep 60"}, "; ")
	s := startTmux(t, 150, 30, []string{"HOME=" + e.home, "NO_COLOR=1", "TERM=xterm-256color"}, "sh", "-c", "'"+script+"'")
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
