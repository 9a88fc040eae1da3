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

// tmuxSession runs the real colabdash binary in a detached tmux on a
// private socket, so tests read the screen a person would see.
type tmuxSession struct {
	t          *testing.T
	sock, name string
}

// startTmux starts bin with args in a width×height tmux pane. It skips the
// test when tmux is missing, except in CI (CI=true), where .ci/run installs
// it and its absence is a failure.
func startTmux(t *testing.T, width, height int, env []string, args ...string) *tmuxSession {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is not installed (.ci/run should have installed it)")
		}
		t.Skip("tmux is not installed")
	}
	s := &tmuxSession{t: t, sock: fmt.Sprintf("colabdash-test-%d-%d", os.Getpid(), time.Now().UnixNano()), name: "S"}
	cmdline := strings.Join(append(env, args...), " ")
	s.tmux("new-session", "-d", "-x", fmt.Sprint(width), "-y", fmt.Sprint(height), "-s", s.name, "env "+cmdline)
	t.Cleanup(func() { exec.Command("tmux", "-L", s.sock, "kill-server").Run() })
	return s
}

func (s *tmuxSession) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.sock}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// keys sends each key as its own keystroke, a little apart, as a person
// types (tmux key names: "Enter", "Tab", "Escape", or plain characters).
func (s *tmuxSession) keys(keys ...string) {
	s.t.Helper()
	for _, k := range keys {
		s.tmux("send-keys", "-t", s.name, k)
		time.Sleep(80 * time.Millisecond)
	}
}

func (s *tmuxSession) screen() string {
	s.t.Helper()
	return s.tmux("capture-pane", "-p", "-t", s.name)
}

// waitFor polls the screen until ok accepts it, or fails the test after
// timeout showing the last screen.
func (s *tmuxSession) waitFor(what string, timeout time.Duration, ok func(screen string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	var scr string
	for time.Now().Before(deadline) {
		scr = s.screen()
		if ok(scr) {
			return scr
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.t.Fatalf("waiting for %s: not on screen after %v:\n%s", what, timeout, scr)
	return ""
}

func (s *tmuxSession) waitText(text string) string {
	s.t.Helper()
	return s.waitFor(fmt.Sprintf("%q", text), 10*time.Second, func(scr string) bool { return strings.Contains(scr, text) })
}

// alive reports whether the tmux session (and so the program) still runs.
func (s *tmuxSession) alive() bool {
	return exec.Command("tmux", "-L", s.sock, "has-session", "-t", s.name).Run() == nil
}

var countdownRE = regexp.MustCompile(`rt-t4demo7k2p .* (\d+):(\d\d) OK`)

func countdownSeconds(t *testing.T, scr string) int {
	t.Helper()
	m := countdownRE.FindStringSubmatch(scr)
	if m == nil {
		t.Fatalf("no countdown for rt-t4demo7k2p on screen:\n%s", scr)
	}
	var min, sec int
	fmt.Sscan(m[1], &min)
	fmt.Sscan(m[2], &sec)
	return min*60 + sec
}

// TestDashboardInTmux is the issue #3 end-to-end test: `colabdash --demo`
// in a real terminal shows the tier, runtimes with ticking countdowns and
// their sessions, and is navigable by keyboard.
func TestDashboardInTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	home := isolate(t)
	bin := binary(t)
	s := startTmux(t, 100, 30, []string{"HOME=" + home, "XDG_STATE_HOME=" + home + "/state", "XDG_CONFIG_HOME=" + home + "/config"}, bin, "--demo")

	scr := s.waitFor("the demo runtimes", 10*time.Second, func(scr string) bool {
		return strings.Contains(scr, "tier Pro") && countdownRE.MatchString(scr) && strings.Contains(scr, "rt-v6edemo2mw")
	})
	for _, want := range []string{"DEMO", "GPU/T4/STANDARD", "CPU/STANDARD", "TPU/V6E1/STANDARD", "SESSIONS", "DETAILS", "(hidden)", "? help"} {
		if !strings.Contains(scr, want) {
			t.Errorf("first screen lacks %q:\n%s", want, scr)
		}
	}
	for _, line := range strings.Split(scr, "\n") {
		if w := len([]rune(line)); w > 100 {
			t.Errorf("line wider than the terminal (%d): %q", w, line)
		}
	}

	// The countdown ticks by itself, one second per second.
	first := countdownSeconds(t, scr)
	start := time.Now()
	scr = s.waitFor("the countdown to move", 5*time.Second, func(scr string) bool {
		return countdownRE.MatchString(scr) && countdownSeconds(t, scr) <= first-2
	})
	if got, elapsed := first-countdownSeconds(t, scr), time.Since(start).Seconds(); float64(got) > elapsed+1.5 {
		t.Errorf("countdown fell %ds in %.1fs: more than one tick per second", got, elapsed)
	}

	// Keyboard: the selection moves to the GPU runtime and its notebook
	// sessions show in the sessions panel.
	s.keys("g", "j")
	scr = s.waitText("›  rt-t4demo7k2p") // cursor, marker column, name
	if !strings.Contains(scr, "SESSIONS · rt-t4demo7k2p") || !strings.Contains(scr, "notebook-ab12cd34") {
		t.Errorf("sessions of the selected runtime are not shown:\n%s", scr)
	}

	// Filter narrows the table; Esc clears it.
	s.keys("/", "t", "p", "u", "Enter")
	scr = s.waitText("filter: tpu")
	if strings.Contains(scr, "rt-t4demo7k2p") || !strings.Contains(scr, "rt-v6edemo2mw") {
		t.Errorf("filter tpu should leave only the TPU runtime:\n%s", scr)
	}
	s.keys("Escape")
	s.waitFor("the filter to clear", 5*time.Second, func(scr string) bool {
		return !strings.Contains(scr, "filter: tpu") && strings.Contains(scr, "rt-t4demo7k2p")
	})

	// Full help opens and closes.
	s.keys("?")
	s.waitText("HELP")
	s.keys("?")
	s.waitFor("help to close", 5*time.Second, func(scr string) bool { return !strings.Contains(scr, "HELP") })

	// q quits and gives the terminal back.
	s.keys("q")
	deadline := time.Now().Add(5 * time.Second)
	for s.alive() && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if s.alive() {
		t.Fatalf("still running after q:\n%s", s.screen())
	}
}
