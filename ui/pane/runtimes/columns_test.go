package runtimes

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
)

// now is when the five-runtime table is drawn: 12 s after its last list.
var now = commontest.T0.Add(12 * time.Second)

// fiveRuntimes is a w-wide table of five runtimes, each token in another
// state: r-alpha (GPU T4, 42m5s left, version 2025.10, 2 sessions),
// r-bravo (CPU, 4:47: EXPIRING), r-charlie (TPU, expired), r-delta (GPU
// A100, no token, version 2025.07) and r-echo, gone since it was last
// listed two minutes before the others. Every session count is from the
// last list.
func fiveRuntimes(w int) (*common.Context, *Pane) {
	t0 := commontest.T0
	tpu := api.RuntimeSpecKey{Variant: api.VariantTPU, Accelerator: "V6E1", Shape: api.ShapeHighMem}
	a100 := api.RuntimeSpecKey{Variant: api.VariantGPU, Accelerator: "A100", Shape: api.ShapeHighMem}
	alpha := commontest.Runtime("r-alpha", specT4, t0.Add(42*time.Minute+17*time.Second))
	alpha.Version = "2025.10"
	delta := commontest.Runtime("r-delta", a100, time.Time{})
	delta.ConnectionInfo, delta.Version = nil, "2025.07"
	rts := []api.Runtime{alpha, commontest.Runtime("r-bravo", specCPU, t0.Add(4*time.Minute+59*time.Second)),
		commontest.Runtime("r-charlie", tpu, t0.Add(-30*time.Second)), delta,
		commontest.Runtime("r-echo", specCPU, t0.Add(time.Hour))}
	c := commontest.Context(w, 30)
	c.Snap = state.New(state.Config{})
	c.Snap.ApplyRuntimes(t0.Add(-2*time.Minute), rts)
	c.Snap.ApplyRuntimes(t0, rts[:4])
	for _, r := range rts[:4] {
		var ss []api.Session
		if r.ID() == "r-alpha" {
			ss = []api.Session{{Name: "runtimes/r-alpha/sessions/colabdash-1a2b"}, {Name: "runtimes/r-alpha/sessions/3f2c9a7e"}}
		}
		c.Snap.ApplySessions(t0, string(r.Name), ss)
	}
	c.Now = func() time.Time { return now }
	p := New()
	p.Sync(c)
	return c, p
}

// press hands keys to the table as the dashboard does: a sort key's
// effect sorts it.
func press(t *testing.T, p *Pane, c *common.Context, keys ...string) {
	t.Helper()
	for _, k := range keys {
		e, ok := p.HandleKey(commontest.Key(k), c)
		sb, isSort := e.(common.SortBy)
		if !ok || !isSort {
			t.Fatalf("%s answered %#v", k, e)
		}
		p.SortBy(sb.Action)
		p.Sync(c)
	}
}

// rowAt is the table line of runtime id ("" when not drawn).
func rowAt(lines []string, id string) string {
	for _, ln := range lines {
		if strings.Contains(ln, " "+id+" ") {
			return ln
		}
	}
	return ""
}

// A key per column sorts by it, the same key again (or O) reverses; the
// header's arrow says which column and which way; gone rows stay last.
func TestSortKeysAndTheHeaderArrow(t *testing.T) {
	for _, tc := range []struct {
		keys          []string
		header, order string
	}{
		{nil, "NAME↑", "r-alpha r-bravo r-charlie r-delta r-echo"},
		{[]string{"A"}, "NAME↓", "r-delta r-charlie r-bravo r-alpha r-echo"},
		{[]string{"T"}, "TOKEN↑", "r-charlie r-bravo r-alpha r-delta r-echo"},
		{[]string{"T", "T"}, "TOKEN↓", "r-delta r-alpha r-bravo r-charlie r-echo"},
		{[]string{"T", "O"}, "TOKEN↓", "r-delta r-alpha r-bravo r-charlie r-echo"},
		{[]string{"E"}, "SESS↑", "r-bravo r-charlie r-delta r-alpha r-echo"},
		{[]string{"E", "O"}, "SESS↓", "r-alpha r-bravo r-charlie r-delta r-echo"},
		{[]string{"C"}, "SPEC↑", "r-bravo r-delta r-alpha r-charlie r-echo"},
		{[]string{"V"}, "VERSION↑", "r-delta r-alpha r-bravo r-charlie r-echo"},
		{[]string{"V", "V"}, "VERSION↓", "r-bravo r-charlie r-alpha r-delta r-echo"}, // ties keep their name order
	} {
		c, p := fiveRuntimes(80)
		press(t, p, c, tc.keys...)
		if got := names(p.Rows()); got != tc.order {
			t.Errorf("%v: rows %s, want %s", tc.keys, got, tc.order)
		}
		header := p.View(c, now, false)[1]
		if !strings.Contains(header, tc.header) || strings.Count(header, "↑")+strings.Count(header, "↓") != 1 {
			t.Errorf("%v: header %q, want one arrow on %s", tc.keys, header, tc.header)
		}
	}
}

// At 160 and 200 columns the width is spread over the columns, a few
// cells each: the selected row (reverse video) spans the screen, and a
// short name is not followed by a screenful of blanks before its figures.
func TestWideScreenSpreadsTheWidth(t *testing.T) {
	for _, w := range []int{160, 200} {
		c, p := fiveRuntimes(w)
		lines := p.View(c, now, false)
		if sel := lines[2]; !strings.HasPrefix(sel, "›  r-alpha") || ansi.StringWidth(sel) != w {
			t.Fatalf("%d columns: the selected row is %d cells: %q", w, ansi.StringWidth(sel), sel)
		}
		// Each column takes a few of the extra cells, the rest pads the
		// row's end: TOKEN stays near the names.
		if at := ansi.StringWidth(lines[1][:strings.Index(lines[1], "TOKEN")]); at > 80 {
			t.Fatalf("%d columns: TOKEN at %d, far from the names: %q", w, at, lines[1])
		}
		if at := ansi.StringWidth(lines[1][:strings.Index(lines[1], "SPEC")]); at > w/3 {
			t.Fatalf("%d columns: SPEC at %d, far from the names: %q", w, at, lines[1])
		}
	}
}

// On a narrow screen the spec's shape word shortens before anything is
// cut, and NAME is cut last.
func TestNarrowScreenShortensSpecBeforeName(t *testing.T) {
	t0 := commontest.T0
	c := commontest.Context(60, 15, commontest.Runtime("rt-t4demo7k2p", specT4, t0.Add(52*time.Minute)),
		commontest.Runtime("rt-cpudemo4qx", specCPU, t0.Add(3*time.Minute)),
		commontest.Runtime("rt-v6edemo2mw", api.RuntimeSpecKey{Variant: api.VariantTPU, Accelerator: "V6E1", Shape: api.ShapeStandard}, t0.Add(-30*time.Second)))
	p := New()
	p.Sync(c)
	commontest.MustContain(t, strings.Join(p.View(c, t0, false), "\n"), "rt-t4demo7k2p ", "rt-cpudemo4qx ", "rt-v6edemo2mw ", "GPU/T4/STANDARD ", "TPU/V6E1/STD ")
}

// The empty runtimes list points at the key that creates one (there is no
// `colabdash create` command), the configured key when rebound, and only
// says "no runtimes" in --readonly, where creating is disabled.
func TestEmptyListNamesTheCreateKey(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys func(*keymap.KeyMap)
		want string
	}{
		{"default", func(*keymap.KeyMap) {}, "no runtimes: press n to create one"},
		{"rebound", func(k *keymap.KeyMap) {
			if err := k.Rebind(keymap.ActionNewRuntime, "space"); err != nil {
				t.Fatal(err)
			}
		}, "no runtimes: press space to create one"},
		{"readonly", func(k *keymap.KeyMap) { k.SetReadOnly(true) }, "no runtimes"},
	} {
		c := commontest.Context(100, 30)
		tc.keys(c.Keys)
		p := New()
		p.Sync(c)
		v := p.View(c, commontest.T0, false)
		if got := strings.TrimSpace(v[2]); got != tc.want || strings.Contains(strings.Join(v, "\n"), "colabdash create") {
			t.Errorf("%s: the empty list says %q, want %q", tc.name, got, tc.want)
		}
	}
}

// The TOKEN countdown reads the clock when drawn: after a jump (a
// suspended laptop waking up) it shows the time left then.
func TestCountdownFollowsTheClock(t *testing.T) {
	c, p := fiveRuntimes(80)
	commontest.MustContain(t, rowAt(p.View(c, now, false), "r-alpha"), "42m5s OK")
	commontest.MustContain(t, rowAt(p.View(c, now.Add(40*time.Minute), false), "r-alpha"), "2m5s EXPIRING")
}

// A count older than one refresh shows its age in the SESS column.
func TestSessColumnShowsAge(t *testing.T) {
	c, p := fiveRuntimes(80)
	later := commontest.T0.Add(5 * time.Minute) // no refresh since: every count is 5 minutes old
	if row := rowAt(p.View(c, later, false), "r-alpha"); !strings.Contains(row, " 2 5m ") {
		t.Fatalf("r-alpha's 2 sessions, 5 minutes old, not shown as \"2 5m\": %q", row)
	}
}

// At 100 columns every row kind keeps the name in the same column and its
// status word whole: a failed renewal, a gone runtime, a create in
// progress (which shows the requested id, or what it creates).
func TestRowColumnsAlignedAt100(t *testing.T) {
	c, p := fiveRuntimes(100)
	c.Snap.ApplyRenewError(now, "runtimes/r-bravo", errors.New("backend unavailable"))
	c.Activity.Creating = func(time.Time) []common.Creation {
		return []common.Creation{{Name: "my-a100", Spec: "GPU/A100/HIGHMEM", Status: "creating… 1s"},
			{Name: "new runtime", Spec: "GPU/A100/HIGHMEM", Status: "creating… 1s"}}
	}
	p.Sync(c)
	v := ansi.Strip(strings.Join(p.View(c, now, false), "\n"))
	col := func(name string) int {
		for _, ln := range strings.Split(v, "\n") {
			if i := strings.Index(ln, name); i >= 0 {
				return ansi.StringWidth(ln[:i])
			}
		}
		t.Fatalf("no %q in\n%s", name, v)
		return -1
	}
	want := col("r-alpha")
	for _, n := range []string{"r-bravo", "r-echo", "my-a100", "new runtime", "NAME"} {
		if got := col(n); got != want {
			t.Errorf("%s starts at column %d, want %d:\n%s", n, got, want, v)
		}
	}
	commontest.MustContain(t, v+"\n", "! r-bravo", "RENEW FAILED\n", "GONE 12s ago\n", "creating… 1s")
	if strings.Contains(v, "…\n") {
		t.Fatalf("a row is cut:\n%s", v)
	}
}
