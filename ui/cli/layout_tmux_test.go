package cli

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
)

// startDemo starts the real dashboard on the demo in a width×height tmux
// pane without colour, in a HOME of the test's own (isolate's, so
// $HOME names it in the test too) with the state directory at
// HOME/state, without Google credentials, and with env added.
func startDemo(t *testing.T, width, height int, env ...string) *tmuxSession {
	t.Helper()
	bin := binary(t)
	home := isolate(t)
	return startTmux(t, width, height, append([]string{"HOME=" + home, "XDG_STATE_HOME=" + home + "/state", "GOOGLE_APPLICATION_CREDENTIALS=",
		"NO_COLOR=1"}, env...), bin, "--demo")
}

// demoScreen starts the dashboard on the demo in a width×height pane and
// waits until its three runtimes and the selected runtime's monitor
// figures (the disk line of the details) are on screen.
func demoScreen(t *testing.T, width, height int) (*tmuxSession, string) {
	t.Helper()
	p := startDemo(t, width, height)
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

// eventsTitle reads the event log's count ("EVENTS 12").
var eventsTitle = regexp.MustCompile(`EVENTS (\d+)`)

// On a 60×15 screen, as a user sees it: the header names the
// server (the endpoint's host), never the token file; the details say when
// a healthy token renews; the event log says "↓ more" when lines are below,
// / filters it and esc clears the filter before it closes; a refusal too
// long for the status line is in the log whole, wrapped at spaces only (a
// path and "top-level" stay whole).
func TestHabitsOnASmallScreenInTmux(t *testing.T) {
	_, endpoint, home, tokenFile := shellEmulator(t, colabfake.Options{})
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	bin := binary(t)
	s := startTmux(t, 60, 15, homeEnv(home), bin, "--endpoint", endpoint, "--access-token-file", tokenFile)
	scr := s.waitText("rt-e2e")
	header := strings.SplitN(scr, "\n", 2)[0]
	if !strings.Contains(header, u.Host) || strings.Contains(scr, "token.txt") || strings.Contains(scr, "access token file") {
		t.Fatalf("the header does not name the server %s (or names the token file):\n%s", u.Host, scr)
	}
	s.keys("Enter") // the details, expanded
	// The monitor's first figures arrive in their own time; once the
	// kernels' line has them, the token's renewal countdown is still there
	// (it outranks the monitor's lines on a short panel).
	scr = s.waitFor("the details with the kernels read", waitTimeout, func(scr string) bool {
		for _, l := range strings.Split(scr, "\n") {
			if strings.Contains(l, " kernels ") {
				return !strings.Contains(l, "reading…")
			}
		}
		return false
	})
	if !strings.Contains(scr, "renews in ") {
		t.Fatalf("the expanded details at 60x15 lost the renewal countdown once the kernels were read:\n%s", scr)
	}
	// Expanded, the details took lines from the sessions panel (the
	// table has one row to give): its kernels line comes back once
	// enter collapses them.
	if strings.Contains(scr, "kernels 0") {
		t.Fatalf("the expanded details left the sessions panel its kernels line:\n%s", scr)
	}
	s.keys("Enter")
	s.waitText("kernels 0")

	// Enough events for more than the log's 10 rows.
	for i := 0; ; i++ {
		s.keys("L")
		m := eventsTitle.FindStringSubmatch(s.waitText("EVENTS "))
		if n, _ := strconv.Atoi(m[1]); n > 12 {
			break
		}
		if i == 20 {
			t.Fatalf("the event log stays short:\n%s", s.screen())
		}
		s.keys("Escape")
		s.waitGone("EVENTS ")
		s.keys("r")
		s.waitText("refreshed")
	}
	s.waitText("↓ more")
	s.keys("/")
	s.waitText("enter apply · esc clear")
	s.text("get_subscription")
	s.keys("Enter")
	scr = s.waitText("filter \"get_subscription\"")
	if strings.Contains(scr, "list_runtimes") {
		t.Fatalf("the filter keeps other events:\n%s", scr)
	}
	s.keys("Escape")
	s.waitText("event log filter cleared")
	s.waitText("list_runtimes")
	s.keys("Escape")
	s.waitGone("EVENTS ")

	// A refusal too long for 60 columns: cut, and whole in the log.
	s.keys("f")
	s.waitText("FILES · rt-e2e:/content")
	s.keys("BSpace")
	s.waitText("FILES · rt-e2e:/ ")
	s.keys("x")
	s.waitText("(L: in full)")
	s.keys("L")
	scr = s.waitText("refused")
	var body []string
	for _, l := range strings.Split(scr, "\n") {
		body = append(body, strings.TrimSpace(l))
	}
	flat := strings.Join(body, " ")
	if !strings.Contains(flat, "not deleting /content: colabdash never removes /content itself or a top-level directory") {
		t.Fatalf("the refusal is not whole (or split inside a word):\n%s", scr)
	}
	s.keys("Escape")
	s.waitText("FILES · rt-e2e:/ ")
	s.keys("q")
	s.waitExit()
}
