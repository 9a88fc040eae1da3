package sessions

import (
	"strings"
	"testing"
	"time"

	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/ui/common/commontest"
)

// Below the sessions, each kernel's execution_state, last activity and
// connections; "… n more" when they do not all fit; nothing with the
// monitor off.
func TestKernelsUnderTheSessions(t *testing.T) {
	c, p := fixture()
	r := c.Snap.Runtime("runtimes/r-alpha")
	t0 := commontest.T0
	mon := commontest.NewMonitor()
	c.Monitor = mon
	mon.Store.RecordKernels(r.Name, t0, []apimon.Kernel{
		commontest.Kernel("4f1c2a9e-0000", "busy", t0.Add(-42*time.Second), 1),
		commontest.Kernel("77aa", "idle", t0.Add(-72*time.Minute), 0),
	}, nil)
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
