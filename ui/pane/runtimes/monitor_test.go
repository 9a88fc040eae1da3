package runtimes

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/ui/common"
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

// A create's row fits the columns the runtime rows have: while it is
// listed, at 80 and 100 columns, the header and every runtime row are as
// they were (the monitor columns stay, SPEC keeps its width), and a name
// asked for that is longer than NAME is cut in its own row.
func TestCreateRowKeepsTheColumns(t *testing.T) {
	for _, w := range []int{80, 100} {
		c, p, _ := monitorFixture(w)
		before := p.View(c, commontest.T0, false)
		c.Activity.Creating = func(time.Time) []common.Creation {
			return []common.Creation{{Name: "my-very-long-runtime-id-for-training", Spec: "GPU/T4/STANDARD", Status: "creating… 1s"}}
		}
		after := commontest.MustSize(t, "table", p.View(c, commontest.T0, false), w, c.Layout.TableRows+2)
		if after[1] != before[1] {
			t.Errorf("%d columns: the header changed while a create is listed:\nbefore %q\nafter  %q", w, before[1], after[1])
		}
		if !strings.Contains(after[1], "ACTIVITY") {
			t.Errorf("%d columns: no monitor columns while a create is listed: %q", w, after[1])
		}
		for i, row := range before[2:5] {
			if after[3+i] != row {
				t.Errorf("%d columns: runtime row %d changed while a create is listed:\nbefore %q\nafter  %q", w, i, row, after[3+i])
			}
		}
		if !strings.HasPrefix(ansi.Strip(after[2]), " + my-very") || !strings.Contains(after[2], "…") || !strings.Contains(after[2], "GPU/T4/ST") || strings.Contains(after[2], "STAND…") || !strings.Contains(after[2], "creating… 1s") {
			t.Errorf("%d columns: the create's row %q", w, after[2])
		}
	}
}
