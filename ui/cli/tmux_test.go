package cli

import (
	"fmt"
	"regexp"
	"strings"
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
	s := startTmux(t, 100, 30, []string{"HOME=" + home, "XDG_STATE_HOME=" + home + "/state", "XDG_CONFIG_HOME=" + home + "/config", "NO_COLOR=", "TERM=xterm-256color"}, bin, "--demo")

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
