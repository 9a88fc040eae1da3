package cli

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/colabfaketest"
)

// TestMonitorInTmux is the dashboard's monitor end to end: the real binary
// against the demo emulator, whose notebooks were last active 72 minutes
// before the dashboard starts, in tmux at 80, 100 and 160 columns and
// under NO_COLOR. Each screen shows the RAM, GPU and ACTIVITY columns,
// the idle word IDLE 1h12m in the table, and the details' RAM line with
// its sparkline (at 80x24 once enter expanded the details: short, they
// keep the token's renewal before RAM); under NO_COLOR not one cell is
// coloured.
func TestMonitorInTmux(t *testing.T) {
	bin := binary(t)
	isolate(t) // the process's environment, which the tmux servers inherit
	for _, c := range []struct {
		name          string
		width, height int
		noColor       bool
		// expand: the stacked details at this size keep the expiry, the
		// token's renewal and the kernels; enter expands them to RAM.
		expand bool
	}{
		{"80x24", 80, 24, false, true}, {"100x30", 100, 30, false, false}, {"160x40", 160, 40, false, false}, {"100x30_NO_COLOR", 100, 30, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			// The seed is made 72 minutes in the past, so its kernels have
			// been idle that long; the clock is the real one after.
			var past atomic.Int64
			past.Store(int64(72 * time.Minute))
			_, endpoint := colabfaketest.Start(t, colabfake.Options{Seed: colabfake.SeedDemo, TokenTTL: 3 * time.Hour,
				Now: func() time.Time { return time.Now().Add(-time.Duration(past.Load())) }})
			past.Store(0)
			tokenFile := writeFile(t, filepath.Join(home, "token.txt"), "fake\n")
			env := homeEnv(home, "TERM=xterm-256color")
			if c.noColor {
				env = append(env, "NO_COLOR=1")
			} else {
				env = append(env, "COLORTERM=truecolor")
			}
			s := startTmux(t, c.width, c.height, env, bin, "--endpoint", endpoint, "--access-token-file", tokenFile)
			if c.expand {
				s.waitText("renews in ")
				s.keys("Enter")
			}
			scr := s.waitFor("the monitor's columns, idle word and sparkline", waitTimeout, func(scr string) bool {
				return strings.Contains(scr, "RAM   GPU   ACTIVITY") && strings.Count(scr, "IDLE 1h1") >= 2 && sparkline(scr) != ""
			})
			if row := lineOf(scr, "rt-cpudemo4qx "); !strings.Contains(row, "▂ 10%     – IDLE 1h1") {
				t.Errorf("the CPU runtime's row: %q", row)
			}
			// The T4 runtime's quiet time runs from its kernels' (1h1x) until
			// its demo jobs are listed, then from the newest job's end
			// (later, so shorter, and set by how far the emulator's jobs ran
			// before its clock moved on 72 minutes): idle either way.
			if row := lineOf(scr, "rt-t4demo7k2p "); !regexp.MustCompile(`▂ 13% ▁  0% (IDLE|idle) [1-9]`).MatchString(row) {
				t.Errorf("the T4 runtime's row: %q", row)
			}
			if !strings.Contains(scr, "kernels  0 busy 1 idle · IDLE 1h1") {
				t.Errorf("the details lack the kernels' idle word:\n%s", scr)
			}
			for i, line := range strings.Split(scr, "\n") {
				if w := ansi.StringWidth(line); w > c.width {
					t.Errorf("line %d is %d cells wide:\n%s", i, w, scr)
				}
			}
			if got := s.coloured(); c.noColor && got != "" {
				t.Errorf("NO_COLOR: the screen has %q", got)
			} else if !c.noColor && got == "" {
				t.Errorf("no colour without NO_COLOR (the control)")
			}
			s.keys("q")
			s.waitExit()
		})
	}
}

// lineOf is the first line of scr holding s ("" when none).
func lineOf(scr, s string) string {
	for _, l := range strings.Split(scr, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// sparkline returns the details' RAM line when it has a sparkline ("").
func sparkline(scr string) string {
	for _, l := range strings.Split(scr, "\n") {
		if i := strings.Index(l, " ram "); i >= 0 && strings.ContainsAny(l[i:], "▁▂▃▄▅▆▇█") {
			return l
		}
	}
	return ""
}
