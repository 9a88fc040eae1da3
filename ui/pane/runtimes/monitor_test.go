package runtimes

import (
	"strings"
	"testing"
	"time"

	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/ui/common/commontest"
)

// With the monitor on, the table shows RAM, GPU and ACTIVITY before
// SPEC from 80 columns up, the idle word in capitals for a runtime idle
// an hour (its GPU at 3 %, under the 5 % that would keep it busy), and nothing of them below 80 columns or with the monitor off.
func TestMonitorColumns(t *testing.T) {
	t0 := commontest.T0
	for _, w := range []int{80, 100, 160} {
		c, p := fixture()
		c.Layout.W = w
		mon := commontest.NewMonitor()
		c.Monitor = mon
		mon.Store.RecordResources("runtimes/r-bravo", t0, commontest.Resources(0.5, 0.03, true), nil)
		mon.Store.RecordKernels("runtimes/r-bravo", t0, []apimon.Kernel{commontest.Kernel("k1", "idle", t0.Add(-72*time.Minute), 1)}, nil)
		mon.Store.RecordResources("runtimes/r-alpha", t0, commontest.Resources(0.1, -1, false), nil)
		mon.Store.RecordKernels("runtimes/r-alpha", t0, []apimon.Kernel{commontest.Kernel("k2", "busy", t0.Add(-3*time.Minute), 1)}, nil)
		lines := p.View(c, t0, false)
		commontest.AssertSize(t, "table", lines, w, c.Layout.TableRows+2)
		v := strings.Join(lines, "\n")
		head := lines[1]
		if i, j := strings.Index(head, "RAM"), strings.Index(head, "SPEC"); i < 0 || j < i || !strings.Contains(head, "ACTIVITY") {
			t.Errorf("%d: header %q", w, head)
		}
		for _, want := range []string{"▅ 50% ▁  3% IDLE 1h12m  GPU/T", "▂ 10%     – busy 3m     CPU/S", "    –     – –           GPU/T"} {
			if !strings.Contains(v, want) {
				t.Errorf("%d: table lacks %q:\n%s", w, want, v)
			}
		}
	}
	c, p := fixture()
	if v := strings.Join(p.View(c, t0, false), "\n"); strings.Contains(v, "RAM") || strings.Contains(v, "ACTIVITY") {
		t.Errorf("monitor off:\n%s", v)
	}
	c.Monitor = commontest.NewMonitor()
	c.Layout.W = 79
	if v := strings.Join(p.View(c, t0, false), "\n"); strings.Contains(v, "RAM") {
		t.Errorf("79 columns:\n%s", v)
	}
}

// The runtimes on screen are the visible rows, gone ones left out.
func TestOnScreen(t *testing.T) {
	_, p := fixture()
	if got := p.OnScreen(2, nil); strings.Join(got, ",") != "runtimes/r-alpha,runtimes/r-bravo" {
		t.Errorf("%v", got)
	}
}
