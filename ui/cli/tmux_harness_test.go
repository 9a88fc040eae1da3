package cli

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The one tmux harness of the end-to-end tests: the real colabdash binary
// in a detached tmux server of its own (private socket, no user config),
// read from the screen a person would see. Tests never sleep a fixed time:
// they wait, with generous deadlines, for what the screen shows.

// tmuxSession is one pane running the binary.
type tmuxSession struct {
	t          *testing.T
	sock, name string
}

// startTmux starts bin with args (and env) in a width×height pane. It skips
// the test when tmux is missing, except in CI (CI set), where .ci/run
// installs it and its absence is a failure.
func startTmux(t *testing.T, width, height int, env []string, args ...string) *tmuxSession {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is not installed (.ci/run should have installed it)")
		}
		t.Skip("tmux is not installed")
	}
	s := &tmuxSession{t: t, sock: fmt.Sprintf("colabdash-test-%d-%d", os.Getpid(), time.Now().UnixNano()), name: "S"}
	// CI is cleared for the program: termenv takes any CI variable to mean
	// "not a terminal" and draws no colour, and the pane is a terminal.
	cmdline := strings.Join(append(append([]string{"CI="}, env...), args...), " ")
	s.tmux("new-session", "-d", "-x", fmt.Sprint(width), "-y", fmt.Sprint(height), "-s", s.name, "env "+cmdline)
	t.Cleanup(func() { exec.Command("tmux", "-L", s.sock, "-f", "/dev/null", "kill-server").Run() })
	return s
}

func (s *tmuxSession) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// keys sends tmux key names ("Enter", "Tab", "Escape", "Down") or single
// characters. A key that must not merge with the next (Escape then a
// letter reads as alt+letter) is followed by a wait for the screen.
func (s *tmuxSession) keys(keys ...string) {
	s.t.Helper()
	s.tmux(append([]string{"send-keys", "-t", s.name}, keys...)...)
}

// text types text literally.
func (s *tmuxSession) text(text string) {
	s.t.Helper()
	s.tmux("send-keys", "-t", s.name, "-l", text)
}

func (s *tmuxSession) screen() string {
	s.t.Helper()
	return s.tmux("capture-pane", "-p", "-t", s.name)
}

// sgr is an SGR escape sequence (colour or another cell attribute) in a
// `capture-pane -e` capture, which keeps the attributes of every cell.
var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// coloured reports the first SGR sequence on the screen, "" for none.
func (s *tmuxSession) coloured() string {
	s.t.Helper()
	return sgr.FindString(s.tmux("capture-pane", "-p", "-e", "-t", s.name))
}

// waitFor polls the screen until ok accepts it, or fails the test after
// timeout showing the last screen.
func (s *tmuxSession) waitFor(what string, timeout time.Duration, ok func(screen string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	var scr string
	for {
		scr = s.screen()
		if ok(scr) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("waiting for %s: not on screen after %v:\n%s", what, timeout, scr)
		}
		time.Sleep(50 * time.Millisecond) // a poll, not a wait for the program
	}
}

// waitText waits for text on the screen.
func (s *tmuxSession) waitText(text string) string {
	s.t.Helper()
	return s.waitFor(fmt.Sprintf("%q", text), waitTimeout, func(scr string) bool { return strings.Contains(scr, text) })
}

// waitGone waits until text has left the screen.
func (s *tmuxSession) waitGone(text string) string {
	s.t.Helper()
	return s.waitFor(fmt.Sprintf("%q to go", text), waitTimeout, func(scr string) bool { return !strings.Contains(scr, text) })
}

// waitDialog waits until the dialog titled title is on screen and takes
// keys: its bottom border is dotted (┄) while it still ignores them.
func (s *tmuxSession) waitDialog(title string) string {
	s.t.Helper()
	return s.waitFor(fmt.Sprintf("dialog %q to take keys", title), waitTimeout, func(scr string) bool {
		return strings.Contains(scr, title) && strings.Contains(scr, "└─") && !strings.Contains(scr, "┄")
	})
}

// alive reports whether the tmux session (and so the program) still runs.
func (s *tmuxSession) alive() bool {
	return exec.Command("tmux", "-L", s.sock, "-f", "/dev/null", "has-session", "-t", s.name).Run() == nil
}

// waitExit waits until the program has quit (its session is gone).
func (s *tmuxSession) waitExit() {
	s.t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for s.alive() {
		if time.Now().After(deadline) {
			s.t.Fatalf("still running:\n%s", s.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// shellInTmux runs commands, one after the other, in sh on a 150×30 tmux
// terminal with e's HOME and no colour; the shell ignores SIGINT (it
// outlives ctrl+c, which colabdash handles) and stays a minute after the
// last command, so the test reads the screen it left.
func (e *verbEnv) shellInTmux(commands ...string) *tmuxSession {
	e.t.Helper()
	script := strings.Join(append(append([]string{"trap \"\" INT"}, commands...), "sleep 60"), "; ")
	return startTmux(e.t, 150, 30, []string{"HOME=" + e.home, "NO_COLOR=1", "TERM=xterm-256color"}, "sh", "-c", "'"+script+"'")
}
