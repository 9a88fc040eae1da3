package cli

import (
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

var countdownRE = regexp.MustCompile(`rt-t4demo7k2p .* (\d+)m(?:(\d+)s)? OK`)

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

// TestDashboardInTmux is the dashboard's end-to-end test: `colabdash --demo`
// in a real terminal shows the tier, runtimes with ticking countdowns and
// their sessions, and is navigable by keyboard.
func TestDashboardInTmux(t *testing.T) {
	home := isolate(t)
	bin := binary(t)
	s := startTmux(t, 100, 30, homeEnv(home, "NO_COLOR=", "TERM=xterm-256color"), bin, "--demo")

	scr := s.waitFor("the demo runtimes", waitTimeout, func(scr string) bool {
		return strings.Contains(scr, "tier Pro") && countdownRE.MatchString(scr) && strings.Contains(scr, "rt-v6edemo2mw")
	})
	for _, want := range []string{"DEMO", "GPU/T4/STANDARD", "CPU/STANDARD", "TPU/V6E1/STANDARD", "SESSIONS", "DETAILS", "(hidden)", "? help"} {
		if !strings.Contains(scr, want) {
			t.Errorf("first screen lacks %q:\n%s", want, scr)
		}
	}
	// Without NO_COLOR the terminal gets colour: the control for the
	// NO_COLOR check of TestE2EActionsDemo.
	if s.coloured() == "" {
		t.Errorf("no colour or attribute on screen without NO_COLOR")
	}
	for _, line := range strings.Split(scr, "\n") {
		if w := len([]rune(line)); w > 100 {
			t.Errorf("line wider than the terminal (%d): %q", w, line)
		}
	}

	// The countdown ticks by itself, one second per second.
	first := countdownSeconds(t, scr)
	start := time.Now()
	scr = s.waitFor("the countdown to move", waitTimeout, func(scr string) bool {
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
	s.waitFor("the filter to clear", waitTimeout, func(scr string) bool {
		return !strings.Contains(scr, "filter: tpu") && strings.Contains(scr, "rt-t4demo7k2p")
	})

	// Full help opens and closes.
	s.keys("?")
	s.waitText("HELP")
	s.keys("?")
	s.waitGone("HELP")

	// q quits and gives the terminal back.
	s.keys("q")
	s.waitExit()
}

// proxyURL is a runtime's connection URL as the details show it.
var proxyURL = regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+/proxy/(rt-[a-z0-9]+)/`)

// TestCopyInTmux: inside tmux, y and Y put the URL and the
// token in a tmux paste buffer, with tmux's default options (no
// allow-passthrough, set-clipboard external), and the status line says
// so instead of claiming the system clipboard.
func TestCopyInTmux(t *testing.T) {
	home := isolate(t)
	bin := binary(t)
	s := startTmux(t, 120, 30, homeEnv(home,
		"NO_COLOR=1", "TERM=xterm-256color", "DISPLAY=", "WAYLAND_DISPLAY="), bin, "--demo")
	scr := s.waitFor("the selected runtime's URL", waitTimeout, func(scr string) bool { return proxyURL.MatchString(scr) })
	u := proxyURL.FindStringSubmatch(scr)
	url, rt := u[0], u[1]

	s.keys("y")
	s.waitText("✓ copied the URL of " + rt + " to a tmux buffer (prefix ] pastes it)")
	if got := s.tmux("show-buffer"); got != url {
		t.Fatalf("tmux buffer after y: %q, want %q", got, url)
	}

	s.keys("v")
	token := regexp.MustCompile(`token +(\S+)`)
	scr = s.waitText("revealed in the details")
	if m := token.FindStringSubmatch(scr); m == nil || strings.Contains(m[1], "•") {
		t.Fatalf("no revealed token on screen:\n%s", scr)
	}
	before := token.FindStringSubmatch(scr)[1]
	s.keys("Y")
	scr = s.waitText("✓ copied the proxy token of " + rt + " to a tmux buffer")
	// The demo renews tokens early: the one copied is the one on screen
	// when Y was pressed, or, when a renewal landed just before it, the
	// one on screen now.
	if got, shown := s.tmux("show-buffer"), token.FindStringSubmatch(scr); shown == nil || got != shown[1] && got != before {
		t.Fatalf("tmux buffer after Y: %q, want the token on screen (%q before Y):\n%s", got, before, scr)
	}
	if n := strings.Count(s.tmux("list-buffers"), "\n"); n != 2 {
		t.Errorf("want one buffer per copy (2), got %d:\n%s", n, s.tmux("list-buffers"))
	}
}

// ctrl+z suspends the dashboard to the shell that started it, as every
// full-screen terminal program does, and fg brings it back intact: the
// same screen, still answering keys.
func TestE2ECtrlZSuspendsAndFgResumes(t *testing.T) {
	p := demoUnderAShell(t)

	p.keys("C-z")
	p.waitFor("the shell back, the dashboard stopped", waitTimeout, func(s string) bool {
		return strings.Contains(s, "Stopped") && atThePrompt(s) && !strings.Contains(s, "RUNTIMES 3")
	})

	p.text("fg")
	p.keys("Enter")
	s := p.waitFor("the dashboard intact", waitTimeout, func(s string) bool {
		return strings.Contains(s, "RUNTIMES 3") && strings.Contains(s, "rt-v6edemo2mw") && strings.Contains(s, "? help") &&
			!strings.Contains(s, "Stopped") && !strings.Contains(s, "shell-prompt-")
	})
	if !strings.HasPrefix(s, "colabdash · profile demo") {
		t.Fatalf("the header is not on the first line after fg:\n%s", s)
	}
	// It still answers keys: the help opens and lists ctrl+z.
	p.keys("?")
	p.waitText("suspend (fg resumes)")
	p.keys("Escape")
	p.waitGone("suspend (fg resumes)")
	p.keys("q")
	p.waitFor("the shell after quitting", waitTimeout, func(s string) bool {
		return !strings.Contains(s, "RUNTIMES 3") && atThePrompt(s)
	})
}

// A SIGTSTP from outside (kill -TSTP, as a job-control tool or a script
// sends it) stops the dashboard as ctrl+z does: the terminal is given back
// first (the shell's screen, not the dashboard's, under the prompt), and
// fg brings the dashboard back whole, answering keys.
func TestE2EOutsideStopGivesTheTerminalBack(t *testing.T) {
	p := demoUnderAShell(t)
	shell := strings.TrimSpace(p.tmux("display", "-p", "-t", p.name, "#{pane_pid}"))
	out, err := exec.Command("pgrep", "-P", shell).Output()
	pids := strings.Fields(string(out))
	if err != nil || len(pids) != 1 {
		t.Fatalf("the dashboard's process under the shell %s: %q %v", shell, out, err)
	}
	pid, _ := strconv.Atoi(pids[0])
	if err := syscall.Kill(pid, syscall.SIGTSTP); err != nil {
		t.Fatal(err)
	}
	p.waitFor("the shell back, the dashboard stopped", waitTimeout, func(s string) bool {
		return strings.Contains(s, "Stopped") && atThePrompt(s) && !strings.Contains(s, "RUNTIMES 3")
	})
	p.text("fg")
	p.keys("Enter")
	p.waitFor("the dashboard intact", waitTimeout, func(s string) bool {
		return strings.HasPrefix(s, "colabdash · profile demo") && strings.Contains(s, "RUNTIMES 3") &&
			!strings.Contains(s, "Stopped") && !strings.Contains(s, "shell-prompt-")
	})
	p.keys("?")
	p.waitText("suspend (fg resumes)")
	p.keys("Escape")
	p.waitGone("suspend (fg resumes)")
	p.keys("q")
	p.waitFor("the shell after quitting", waitTimeout, func(s string) bool {
		return !strings.Contains(s, "RUNTIMES 3") && atThePrompt(s)
	})
}

// demoUnderAShell is an interactive bash in tmux (job control on, its
// prompt "shell-prompt-") running the demo dashboard, shown.
func demoUnderAShell(t *testing.T) *tmuxSession {
	t.Helper()
	bin := binary(t)
	home := isolate(t)
	p := startTmux(t, 100, 30, []string{"HOME=" + home, "XDG_STATE_HOME=" + home + "/state", "GOOGLE_APPLICATION_CREDENTIALS=",
		"NO_COLOR=1", "PS1=shell-prompt-"}, "bash", "--norc", "--noprofile", "-i")
	p.waitText("shell-prompt-")
	p.text(bin + " --demo")
	p.keys("Enter")
	p.waitText("rt-v6edemo2mw")
	return p
}

// atThePrompt reports whether screen ends with demoUnderAShell's prompt.
func atThePrompt(screen string) bool {
	return strings.HasSuffix(strings.TrimRight(screen, "\n "), "shell-prompt-")
}
