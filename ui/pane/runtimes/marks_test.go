package runtimes

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
	"github.com/colabdash/colabdash/ui/render"
)

// The table's own keys answer with their effects (space, the
// clear key, each sort key and the reverse), following the key map.
func TestMarkAndSortKeysAnswerTheirEffects(t *testing.T) {
	c, p := fixture()
	for _, tc := range []struct {
		k    tea.KeyMsg
		want common.Effect
	}{
		{commontest.Key("space"), common.Mark{}},
		{commontest.Key(`ctrl+\`), common.ClearMarks{}},
		{commontest.Key("A"), common.SortBy{Action: keymap.ActionSortName}},
		{commontest.Key("C"), common.SortBy{Action: keymap.ActionSortSpec}},
		{commontest.Key("V"), common.SortBy{Action: keymap.ActionSortVersion}},
		{commontest.Key("E"), common.SortBy{Action: keymap.ActionSortSessions}},
		{commontest.Key("T"), common.SortBy{Action: keymap.ActionSortExpiry}},
		{commontest.Key("O"), common.SortBy{Action: keymap.ActionSortReverse}},
	} {
		if e, ok := p.HandleKey(tc.k, c); !ok || e != tc.want {
			t.Errorf("%q answered %#v, %v; want %#v", tc.k, e, ok, tc.want)
		}
	}
	// Below 80 columns there is no VERSION column: V says so, sorts nothing.
	c.Layout.W = 60
	if e, _ := p.HandleKey(commontest.Key("V"), c); e != (common.Say{Text: "VERSION is not shown at this width: nothing to sort by", Err: true}) {
		t.Fatalf("V at 60 columns answered %#v", e)
	}
	// With the monitor's columns VERSION goes below 100 columns: V says
	// so there too, as the table it draws has no VERSION.
	c.Monitor = commontest.NewMonitor()
	c.Layout.W = 80
	if e, _ := p.HandleKey(commontest.Key("V"), c); e != (common.Say{Text: "VERSION is not shown at this width: nothing to sort by", Err: true}) {
		t.Fatalf("V at 80 columns with the monitor answered %#v", e)
	}
	c.Layout.W = 100
	if e, _ := p.HandleKey(commontest.Key("V"), c); e != (common.SortBy{Action: keymap.ActionSortVersion}) {
		t.Fatalf("V at 100 columns with the monitor answered %#v", e)
	}
	c.Monitor = nil
	// Rebound: the new key sorts, the old one is the table's no more.
	if err := c.Keys.Rebind(keymap.ActionSortExpiry, "X"); err != nil {
		t.Fatal(err)
	}
	if e, _ := p.HandleKey(commontest.Key("X"), c); e != (common.SortBy{Action: keymap.ActionSortExpiry}) {
		t.Fatalf("rebound X answered %#v", e)
	}
	if _, ok := p.HandleKey(commontest.Key("T"), c); ok {
		t.Fatal("T still sorts after the rebind")
	}
}

// A marked row reads "*" in its mark cell without colour (the fixture
// draws none), the title counts the marks the table shows and those the
// filter hides, and marks follow the runtime's name through a filter and
// drop when it is gone.
func TestMarksReadWithoutColourAndDropWithTheirRuntime(t *testing.T) {
	c, p := fixture()
	if id, marked, ok := p.ToggleMark(c.Layout.TableRows); id != "r-alpha" || !marked || !ok || p.Selected() != "runtimes/r-bravo" {
		t.Fatalf("space on r-alpha: %q %v %v, selected %s", id, marked, ok, p.Selected())
	}
	p.Move(1, c.Layout.TableRows)
	p.ToggleMark(c.Layout.TableRows) // r-charlie
	v := strings.Join(p.View(c, commontest.T0, false), "\n")
	for _, want := range []string{"  *r-alpha", "   r-bravo", "› *r-charlie", "RUNTIMES 3 · 2 marked"} {
		if !strings.Contains(v, want) {
			t.Errorf("table lacks %q:\n%s", want, v)
		}
	}
	if got := names(p.Marked()); got != "r-alpha r-charlie" {
		t.Fatalf("marked %s", got)
	}
	// The filter hides r-alpha: only r-charlie is acted on.
	p.SetFilter("t4")
	p.Sync(c)
	if got := names(p.Marked()); got != "r-charlie" || p.HiddenMarks() != 1 {
		t.Fatalf("filtered: marked %s, %d hidden", got, p.HiddenMarks())
	}
	if title := p.View(c, commontest.T0, false)[0]; !strings.Contains(title, "1 marked · 1 marked hidden by the filter") {
		t.Fatalf("title %q", title)
	}
	// r-charlie is gone: its mark drops, and a gone row cannot be marked.
	c.Snap.MarkRuntimeGone(commontest.T0, "runtimes/r-charlie", "NOT_FOUND")
	p.Sync(c)
	if p.IsMarked("runtimes/r-charlie") {
		t.Fatal("a gone runtime kept its mark")
	}
	p.Select("runtimes/r-charlie")
	p.Sync(c)
	if id, _, ok := p.ToggleMark(c.Layout.TableRows); ok || id != "r-charlie" {
		t.Fatalf("a gone row was marked (%q %v)", id, ok)
	}
	if n := p.ClearMarks(); n != 1 || p.IsMarked("runtimes/r-alpha") {
		t.Fatalf("cleared %d", n)
	}
}

func names(rs []*state.Runtime) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ID())
	}
	return strings.Join(out, " ")
}

// Each column's key sorts by it; the same key again, or the reverse key,
// reverses; the header carries the arrow; gone rows stay last.
func TestSortByEachColumnAndReverse(t *testing.T) {
	c, p := fixture()
	c.Snap.MarkRuntimeGone(commontest.T0, "runtimes/r-alpha", "NOT_FOUND")
	for _, tc := range []struct {
		action, order, arrow string
	}{
		{keymap.ActionSortExpiry, "r-bravo r-charlie r-alpha", "TOKEN↑"}, // unknown expiry after a known one
		{keymap.ActionSortExpiry, "r-charlie r-bravo r-alpha", "TOKEN↓"},
		{keymap.ActionSortReverse, "r-bravo r-charlie r-alpha", "TOKEN↑"},
		{keymap.ActionSortName, "r-bravo r-charlie r-alpha", "NAME↑"},
		{keymap.ActionSortName, "r-charlie r-bravo r-alpha", "NAME↓"},
		{keymap.ActionSortSpec, "r-bravo r-charlie r-alpha", "SPEC↑"},
	} {
		if !p.SortBy(tc.action) {
			t.Fatalf("%s: not a sort", tc.action)
		}
		p.Sync(c)
		header := p.View(c, commontest.T0, false)[1]
		if got := names(p.Rows()); got != tc.order || !strings.Contains(header, tc.arrow) {
			t.Errorf("%s: rows %s header %q; want %s and %s", tc.action, got, header, tc.order, tc.arrow)
		}
	}
	if p.SortBy(keymap.ActionDeleteRuntime) {
		t.Fatal("delete_runtime sorted")
	}
	// s cycles through every sortable column shown (monitoring off: not
	// RAM, GPU, ACTIVITY), back to the first.
	for range len(render.Sortable()) - len(render.MonColumns) {
		p.NextSort(c)
	}
	if p.SortColumn() != &render.ColSpec || p.Reversed() {
		t.Fatalf("s cycled to %s", p.SortWord())
	}
}

// A create's status stays whole on a wide screen, where NAME takes the
// width: the name cell gives it room.
func TestCreateStatusStaysWholeWhenNameIsWide(t *testing.T) {
	c, p := fixture()
	c.Layout.W = 200
	status := "rate limited, retrying 2/5 in 0:53 · c cancel"
	c.Activity.Creating = func(time.Time) []common.Creation {
		return []common.Creation{{Name: "new runtime", Spec: "GPU/T4/STANDARD", Status: status}}
	}
	if v := strings.Join(p.View(c, commontest.T0, false), "\n"); !strings.Contains(v, status) {
		t.Fatalf("the create's status is cut:\n%s", v)
	}
}
