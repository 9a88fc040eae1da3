package runtimes

import (
	"strings"
	"testing"
	"time"

	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
	"github.com/colabdash/colabdash/ui/render"
)

// monitorFixture is fixture with the monitor on at w columns and four
// runtimes: alpha RAM 10% busy 3 min, bravo RAM 50% GPU 2% idle 72 min,
// delta RAM 50% GPU 4% idle 5 min (GPUs under the 5 % that would keep
// them busy), charlie no figures yet; echo is gone.
func monitorFixture(w int) (*common.Context, *Pane, commontest.Monitor) {
	t0 := commontest.T0
	c := commontest.Context(w, 30,
		commontest.Runtime("r-alpha", specCPU, t0.Add(50*time.Minute)),
		commontest.Runtime("r-bravo", specT4, t0.Add(3*time.Minute)),
		commontest.Runtime("r-charlie", specT4, time.Time{}),
		commontest.Runtime("r-delta", specT4, t0.Add(9*time.Minute)),
		commontest.Runtime("r-echo", specT4, t0.Add(9*time.Minute)))
	c.Snap.MarkRuntimeGone(t0, "runtimes/r-echo", "NOT_FOUND")
	mon := commontest.NewMonitor()
	c.Monitor = mon
	rec := func(id string, ram, gpu float64, state string, last time.Duration) {
		mon.Store.RecordResources("runtimes/"+id, t0, commontest.Resources(ram, gpu, true), nil)
		mon.Store.RecordKernels("runtimes/"+id, t0, []apimon.Kernel{commontest.Kernel("k-"+id, state, t0.Add(-last), 1)}, nil)
	}
	rec("r-alpha", 0.1, -1, "busy", 3*time.Minute)
	rec("r-bravo", 0.5, 0.02, "idle", 72*time.Minute)
	rec("r-delta", 0.5, 0.04, "idle", 5*time.Minute)
	rec("r-echo", 0.01, 0.01, "idle", 1*time.Minute) // gone: last whatever its figures
	p := New()
	p.Sync(c)
	return c, p, mon
}

// M, U and I sort by RAM, GPU and ACTIVITY: up, then again reversed, the
// arrow on the column; ties by name; a runtime without figures after
// those with figures and the gone one last, in either direction.
func TestSortByMonitorColumns(t *testing.T) {
	c, p, _ := monitorFixture(120)
	for _, tc := range []struct {
		key, order, arrow, word string
	}{
		{"M", "r-alpha r-bravo r-delta r-charlie r-echo", "RAM↑", "RAM"},
		{"M", "r-bravo r-delta r-alpha r-charlie r-echo", "RAM↓", "RAM, reversed"},
		{"U", "r-bravo r-delta r-alpha r-charlie r-echo", "GPU↑", "GPU"}, // alpha has no GPU
		{"U", "r-delta r-bravo r-alpha r-charlie r-echo", "GPU↓", "GPU, reversed"},
		{"I", "r-alpha r-delta r-bravo r-charlie r-echo", "ACTIVITY↑", "activity"}, // busy, then idle shortest first
		{"I", "r-bravo r-delta r-alpha r-charlie r-echo", "ACTIVITY↓", "activity, reversed"},
	} {
		e, ok := p.HandleKey(commontest.Key(tc.key), c)
		sb, isSort := e.(common.SortBy)
		if !ok || !isSort {
			t.Fatalf("%s answered %#v", tc.key, e)
		}
		p.SortBy(sb.Action)
		p.Sync(c)
		header := p.View(c, commontest.T0, false)[1]
		if got := names(p.Rows()); got != tc.order || !strings.Contains(header, tc.arrow) || p.SortWord() != tc.word {
			t.Errorf("%s: rows %s header %q word %q; want %s, %s and %q", tc.key, got, header, p.SortWord(), tc.order, tc.arrow, tc.word)
		}
	}
}

// Sorted by a monitor column, new figures re-sort the rows at the next
// Sync (the snapshot's version does not change), the selection staying
// on its runtime; sorted by another column they do not re-sort.
func TestNewFiguresReSort(t *testing.T) {
	c, p, mon := monitorFixture(120)
	p.SortBy(keymap.ActionSortRAM)
	p.Sync(c)
	p.Select("runtimes/r-alpha")
	p.Sync(c)
	mon.Store.RecordResources("runtimes/r-alpha", commontest.T0.Add(5*time.Second), commontest.Resources(0.95, -1, false), nil)
	p.Sync(c)
	if got := names(p.Rows()); !strings.HasPrefix(got, "r-alpha") {
		t.Fatalf("re-sorted without a poll answer: %s", got)
	}
	p.FiguresChanged()
	p.Sync(c)
	if got := names(p.Rows()); got != "r-bravo r-delta r-alpha r-charlie r-echo" || p.Selected() != "runtimes/r-alpha" || p.Cursor() != 2 {
		t.Fatalf("after new figures: rows %s, selected %s at %d", got, p.Selected(), p.Cursor())
	}
	p.SortBy(keymap.ActionSortName)
	p.Sync(c)
	p.FiguresChanged()
	if p.rowsDirty {
		t.Fatal("new figures re-sort a table sorted by name")
	}
}

// A monitor column's key when the table does not show the monitor
// columns says why instead of sorting, and s skips them; with them shown
// s goes from NAME to RAM.
func TestMonitorSortKeysOnlyWhereShown(t *testing.T) {
	c, p, _ := monitorFixture(79)
	if e, _ := p.HandleKey(commontest.Key("M"), c); e != (common.Say{Text: "RAM is not shown at this width: nothing to sort by", Err: true}) {
		t.Errorf("M at 79 columns answered %#v", e)
	}
	c.Layout.W = 120
	c.Monitor = nil
	if e, _ := p.HandleKey(commontest.Key("I"), c); e != (common.Say{Text: "ACTIVITY is not shown with monitoring off: nothing to sort by", Err: true}) {
		t.Errorf("I with monitoring off answered %#v", e)
	}
	p.NextSort(c)
	if p.SortColumn() != &render.ColSpec {
		t.Errorf("s with monitoring off sorted by %s", p.SortWord())
	}
	c, p, _ = monitorFixture(120)
	p.NextSort(c)
	if p.SortColumn() != &render.SortRAM {
		t.Errorf("s after NAME sorted by %s", p.SortWord())
	}
	// Every sort key is one of the table's keys, none taken twice.
	seen := map[string]string{}
	for _, col := range render.Sortable() {
		b, ok := c.Keys.RuntimesTable.ForAction(col.Sort.Action)
		if !ok || len(b.Keys()) == 0 {
			t.Fatalf("%s has no key", col.Sort.Action)
		}
		if prev, dup := seen[b.Keys()[0]]; dup {
			t.Errorf("%s and %s share %s", prev, col.Sort.Action, b.Keys()[0])
		}
		seen[b.Keys()[0]] = col.Sort.Action
	}
}
