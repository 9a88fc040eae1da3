package cli

import (
	"strings"
	"testing"
)

// demoScreen starts the dashboard on the demo in a width×height pane and
// waits until its three runtimes and the selected runtime's monitor
// figures (the disk line of the details) are on screen.
func demoScreen(t *testing.T, width, height int) (*tmuxSession, string) {
	t.Helper()
	bin := binary(t)
	home := isolate(t)
	p := startTmux(t, width, height, []string{"HOME=" + home, "XDG_STATE_HOME=" + home + "/state", "GOOGLE_APPLICATION_CREDENTIALS=",
		"NO_COLOR=1"}, bin, "--demo")
	s := p.waitFor("the demo's runtimes and details", waitTimeout, func(s string) bool {
		return strings.Contains(s, "rt-v6edemo2mw") && strings.Contains(s, " disk ")
	})
	return p, s
}

// At 80×24 every spec reads whole enough to tell runtimes apart (the
// shape word shortened, never cut to "GPU/T4/…"), and the details show
// every line down to the disk.
func TestE2ELayout80x24SpecsReadAndDetailsWhole(t *testing.T) {
	_, s := demoScreen(t, 80, 24)
	for name, spec := range map[string]string{"rt-cpudemo4qx": "CPU/STANDARD", "rt-t4demo7k2p": "GPU/T4/STD", "rt-v6edemo2mw": "TPU/V6E1/STD"} {
		if row := lineOf(s, name+" "); !strings.Contains(row, spec+" ") {
			t.Errorf("the row of %s lacks its spec %q: %q\n%s", name, spec, row, s)
		}
	}
	for _, want := range []string{" expires ", " renew ", " kernels ", " ram ", " disk "} {
		if !strings.Contains(s, want) {
			t.Errorf("the details lack %q:\n%s", want, s)
		}
	}
}

// At 100×30 the sessions and details sit right under a three-row table:
// no blank rows between them.
func TestE2ELayout100x30NoBlankRowsUnderTheTable(t *testing.T) {
	_, s := demoScreen(t, 100, 30)
	lines := strings.Split(s, "\n")
	for i, ln := range lines {
		if strings.Contains(ln, "rt-v6edemo2mw") {
			if i+1 >= len(lines) || !strings.Contains(lines[i+1], "SESSIONS") {
				t.Fatalf("the line under the table's last row is not the sessions' title:\n%s", s)
			}
			return
		}
	}
	t.Fatalf("no last row:\n%s", s)
}

// At 200×50 a runtime's figures sit near its name: the width is spread
// over the columns, not padded after NAME.
func TestE2ELayout200x50FiguresNearTheName(t *testing.T) {
	_, s := demoScreen(t, 200, 50)
	row := lineOf(s, "rt-cpudemo4qx ")
	i := strings.Index(row, "rt-cpudemo4qx") + len("rt-cpudemo4qx")
	gap := len(row[i:]) - len(strings.TrimLeft(row[i:], " "))
	if gap > 40 {
		t.Fatalf("%d blanks between the name and its figures: %q", gap, row)
	}
	if !strings.Contains(s, "TPU/V6E1/STANDARD") {
		t.Fatalf("a wide screen shortens a spec:\n%s", s)
	}
}
