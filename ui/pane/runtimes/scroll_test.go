package runtimes

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
)

// Each cursor key answers how far it moves: a row, a page (the table's
// rows), or to either end.
func TestCursorKeysMoveByRowPageAndEnd(t *testing.T) {
	c, p := fixture()
	page := c.Layout.TableRows
	for _, tc := range []struct {
		key  string
		want int
	}{{"up", -1}, {"down", 1}, {"pgup", -page}, {"pgdown", page}, {"home", -1 << 30}, {"end", 1 << 30}} {
		e, ok := p.HandleKey(commontest.Key(tc.key), c)
		if mv, isMove := e.(common.Move); !ok || !isMove || mv.N != tc.want {
			t.Errorf("%s answered %#v, %v; want a move by %d", tc.key, e, ok, tc.want)
		}
	}
}

// A filter that hides the selected last row selects the last row it
// leaves.
func TestFilterHidingTheLastRowSelectsTheLastShown(t *testing.T) {
	c, p := fixture()
	p.Move(2, c.Layout.TableRows)
	p.SetFilter("alpha")
	p.Sync(c)
	if p.Selected() != "runtimes/r-alpha" || p.Cursor() != 0 {
		t.Fatalf("selected %q at %d, want r-alpha, the only row left", p.Selected(), p.Cursor())
	}
}

// Five runtimes in three rows: the window scrolls only when the cursor
// would leave it, and the title says which rows are shown.
func TestTableScrollsToKeepTheCursorShown(t *testing.T) {
	c, p := fiveRuntimes(100)
	c.Layout.TableRows = 3
	step := func(delta int, want string) {
		t.Helper()
		p.Move(delta, Visible(c.Layout.TableRows, 0))
		lines := commontest.MustSize(t, "table", p.View(c, now, false), 100, 5)
		if !strings.HasSuffix(lines[0], want) || !strings.HasPrefix(rowAt(lines, p.Rows()[p.Cursor()].ID()), "›") {
			t.Errorf("cursor on %s: title %q, want it to end %q; rows:\n%s", p.Rows()[p.Cursor()].ID(), lines[0], want, strings.Join(lines[2:], "\n"))
		}
	}
	step(0, "· 1–3")
	step(1, "· 1–3") // r-bravo, inside the window
	step(1, "· 1–3")
	step(1, "· 2–4") // r-delta, one row past it
	step(1, "· 3–5")
	step(-1, "· 3–5") // back up inside the window
	step(-2, "· 2–4") // r-bravo, one row above it
	// A taller table shows every row from the top.
	p.Move(1<<30, 3)
	if got := strings.Join(p.OnScreen(5, nil), " "); got != "runtimes/r-charlie runtimes/r-delta" {
		t.Errorf("after the bottom in three rows, the window from the third row shows %s", got)
	}
	p.Scroll(5)
	if got := strings.Join(p.OnScreen(5, nil), " "); got != "runtimes/r-alpha runtimes/r-bravo runtimes/r-charlie runtimes/r-delta" {
		t.Errorf("five rows in a taller table show %s", got)
	}
	c.Layout.TableRows = 5
	if title := p.View(c, now, false)[0]; strings.Contains(title, "–") {
		t.Errorf("every row shown, yet the title gives a range: %q", title)
	}
}

// Creates under way take the table's rows above the runtimes, but leave
// one row for them.
func TestCreatesLeaveARuntimeRow(t *testing.T) {
	c, p := fixture()
	c.Layout.TableRows = 3
	c.Activity.Creating = func(time.Time) []common.Creation {
		cr := common.Creation{Name: "new runtime", Spec: "GPU/T4/STANDARD", Status: "waiting"}
		return []common.Creation{cr, cr, cr, cr, cr}
	}
	lines := commontest.MustSize(t, "table", p.View(c, commontest.T0, false), c.Layout.W, 5)
	if !strings.HasPrefix(lines[4], "›") || !strings.Contains(lines[4], "r-alpha") || strings.Count(strings.Join(lines, "\n"), "new runtime") != 2 {
		t.Errorf("five creates in three rows:\n%s", strings.Join(lines, "\n"))
	}
}

// The title counts the gone apart, says nothing of marks when none, and
// marks the focused table.
func TestTitleCountsAndFocus(t *testing.T) {
	c, p := fixture()
	c.Focus = common.PanelRuntimes
	title := p.View(c, commontest.T0, false)[0]
	if !strings.HasPrefix(title, "▶ RUNTIMES 3") || strings.Contains(title, "marked") || strings.Contains(title, "gone") {
		t.Errorf("focused title %q", title)
	}
	c.Focus = common.PanelSessions
	c.Snap.MarkRuntimeGone(commontest.T0, "runtimes/r-alpha", "NOT_FOUND")
	p.Sync(c)
	if title := p.View(c, commontest.T0, false)[0]; !strings.HasPrefix(title, "  RUNTIMES 2") || !strings.Contains(title, " · 1 gone") {
		t.Errorf("unfocused title with a gone runtime %q", title)
	}
}

// An empty table says why: the first list failed, or the filter hides
// every runtime (gone ones count as known).
func TestEmptyTableSaysWhy(t *testing.T) {
	c, p := fixture()
	c.Snap = state.New(state.Config{})
	c.Snap.ApplyError(state.ListRuntimes, commontest.T0, errors.New("quota exceeded"))
	p.Sync(c)
	if got := strings.TrimSpace(p.View(c, commontest.T0, false)[2]); !strings.HasPrefix(got, "could not list runtimes: ") || !strings.Contains(got, "quota exceeded") {
		t.Errorf("failed first list says %q", got)
	}
	c = commontest.Context(100, 30, commontest.Runtime("r-alpha", specT4, commontest.T0.Add(time.Hour)))
	c.Snap.MarkRuntimeGone(commontest.T0, "runtimes/r-alpha", "NOT_FOUND")
	p = New()
	p.SetFilter("nothing-matches")
	p.Sync(c)
	if got := strings.TrimSpace(p.View(c, commontest.T0, false)[2]); got != "no runtime matches the filter" {
		t.Errorf("filter hiding the one gone runtime says %q", got)
	}
}

// Gone runtimes sort last whatever their name, by a column of the
// snapshot as by a monitor column.
func TestGoneRuntimesSortLast(t *testing.T) {
	c, p := fixture()
	c.Snap.MarkRuntimeGone(commontest.T0, "runtimes/r-alpha", "NOT_FOUND")
	p.Sync(c)
	if got := names(p.Rows()); got != "r-bravo r-charlie r-alpha" {
		t.Errorf("by name: %s", got)
	}
	c, p, _ = monitorFixture(120)
	c.Snap.MarkRuntimeGone(commontest.T0, "runtimes/r-alpha", "NOT_FOUND")
	press(t, p, c, "M")
	if got := names(p.Rows()); got != "r-bravo r-delta r-charlie r-alpha r-echo" {
		t.Errorf("by RAM: %s", got)
	}
}

// A create's row never runs past the screen's edge: its name cell gives
// back what a long status needs (never below the name asked for).
func TestCreateRowFitsTheScreen(t *testing.T) {
	c, p := fixture()
	for n := 40; n <= 66; n++ {
		status := strings.Repeat("s", n)
		c.Activity.Creating = func(time.Time) []common.Creation {
			return []common.Creation{{Name: "r-new", Spec: "GPU/T4/STANDARD", Status: status}}
		}
		lines := commontest.MustSize(t, "table", p.View(c, commontest.T0, false), c.Layout.W, c.Layout.TableRows+2)
		if !strings.Contains(lines[2], "r-new ") || !strings.HasSuffix(lines[2], status) {
			t.Fatalf("a status of %d cells: %q", n, lines[2])
		}
	}
}

// On a terminal so short the table has one row, it draws that row.
func TestOneRowTable(t *testing.T) {
	c, p := fixture()
	c.Layout.TableRows = 1
	lines := commontest.MustSize(t, "table", p.View(c, commontest.T0, false), c.Layout.W, 3)
	if !strings.HasPrefix(lines[2], "›") || !strings.Contains(lines[2], "r-alpha") {
		t.Errorf("a one-row table:\n%s", strings.Join(lines, "\n"))
	}
}
