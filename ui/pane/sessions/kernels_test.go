package sessions

import (
	"strings"
	"testing"
	"time"

	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
)

// kernelsFixture is the sessions fixture with the monitor on and ks the
// kernels recorded for r-alpha at commontest.T0.
func kernelsFixture(ks ...apimon.Kernel) (*common.Context, *Pane, *state.Runtime) {
	c, p := fixture()
	r := c.Snap.Runtime("runtimes/r-alpha")
	mon := commontest.NewMonitor()
	c.Monitor = mon
	mon.Store.RecordKernels(r.Name, commontest.T0, ks, nil)
	return c, p, r
}

// Below the sessions, each kernel's execution_state, last activity and
// connections; "… n more" when they do not all fit; nothing with the
// monitor off.
func TestKernelsUnderTheSessions(t *testing.T) {
	t0 := commontest.T0
	c, p, r := kernelsFixture(
		commontest.Kernel("4f1c2a9e-0000", "busy", t0.Add(-42*time.Second), 1),
		commontest.Kernel("77aa", "idle", t0.Add(-72*time.Minute), 0))
	lines := p.View(c, r, 60, 8)
	commontest.AssertSize(t, "sessions", lines, 60, 8)
	v := strings.Join(lines, "\n")
	for _, want := range []string{"kernels 2", "busy      last 16:59 · 1 connection  4f1c2a9e-0000", "idle      last 15:48 · 0 connections"} {
		if !strings.Contains(v, want) {
			t.Errorf("pane lacks %q:\n%s", want, v)
		}
	}
	for _, s := range r.Sessions {
		if !strings.Contains(v, s.ID()) {
			t.Errorf("a kernel line took session %s's place:\n%s", s.ID(), v)
		}
	}
	short := strings.Join(p.View(c, r, 60, len(r.Sessions)+3), "\n")
	if !strings.Contains(short, "… 2 more") {
		t.Errorf("short pane:\n%s", short)
	}
	c.Monitor = nil
	if v := strings.Join(p.View(c, r, 60, 8), "\n"); strings.Contains(v, "kernels") {
		t.Errorf("monitor off:\n%s", v)
	}
}

// Kernels that just fit all show, none replaced by "… more"; one too many
// and the last line counts those left out.
func TestKernelsThatFitAllShow(t *testing.T) {
	t0 := commontest.T0
	c, p, r := kernelsFixture(
		commontest.Kernel("k-one", "busy", t0, 1),
		commontest.Kernel("k-two", "idle", t0, 1),
		commontest.Kernel("k-three", "idle", t0, 1))
	// Title, two sessions, then the heading and three kernels.
	v := strings.Join(p.View(c, r, 60, 7), "\n")
	if !strings.Contains(v, "k-three") || strings.Contains(v, "more") {
		t.Errorf("three kernels in four lines:\n%s", v)
	}
	// Heading, one kernel, and the two left out.
	v = strings.Join(p.View(c, r, 60, 6), "\n")
	if !strings.Contains(v, "k-one") || !strings.Contains(v, "… 2 more") || strings.Contains(v, "k-two") {
		t.Errorf("three kernels in three lines:\n%s", v)
	}
}

// A kernel's id shows when at least ten cells are left for it (cut to
// what is left, its two-cell gap taken), not at all when fewer.
func TestKernelIDIsCutToTheWidth(t *testing.T) {
	c, p, r := kernelsFixture(commontest.Kernel("4f1c2a9e-1111-2222", "busy", commontest.T0, 1))
	// "  busy      last 17:00 · 1 connection" is 37 cells.
	line := func(w int) string {
		lines := commontest.MustSize(t, "sessions", p.View(c, r, w, 6), w, 6)
		return lines[4]
	}
	if got := line(47); !strings.HasSuffix(got, "1 connection  4f1c2a9…") {
		t.Errorf("47 cells: %q, want the id cut to 8 cells", got)
	}
	if got := line(46); !strings.HasSuffix(got, "1 connection") {
		t.Errorf("46 cells: %q, want no id", got)
	}
	if got := line(80); !strings.HasSuffix(got, "  4f1c2a9e-1111-2222") {
		t.Errorf("80 cells: %q, want the whole id", got)
	}
}
