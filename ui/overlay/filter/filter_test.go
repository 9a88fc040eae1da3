package filter

import (
	"fmt"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
)

// statusLine draws o (commontest.DrawOver) over a frame whose lines say
// where they are, checks that only the status line changed, and returns
// it.
func statusLine(t *testing.T, o common.Overlay, c *common.Context) string {
	t.Helper()
	var under []string
	for i := range c.Layout.H {
		under = append(under, fmt.Sprint("line ", i))
	}
	lines := commontest.DrawOver(t, o, c, under)
	for i, l := range lines {
		if i != c.Layout.H-2 && l != under[i] {
			t.Fatalf("line %d drawn over: %q", i, l)
		}
	}
	return lines[c.Layout.H-2]
}

// typing answers the filter typed so far, so the table follows it.
func TestFilterFollowsTyping(t *testing.T) {
	c := commontest.OverlayContext(80, 24, false)
	f := New("")
	if e := f.HandleKey(commontest.Key("t"), c); e != (common.Filter{Text: "t"}) {
		t.Fatalf("t: %#v", e)
	}
	if e := f.HandleKey(commontest.Key("4"), c); e != (common.Filter{Text: "t4"}) {
		t.Fatalf("4: %#v", e)
	}
	if s := statusLine(t, f, c); !strings.HasPrefix(s, "/t4█") || !strings.Contains(s, "enter apply · esc clear") {
		t.Fatalf("status line: %q", s)
	}
	if e := f.HandleKey(commontest.Key("backspace"), c); e != (common.Filter{Text: "t"}) {
		t.Fatalf("backspace: %#v", e)
	}
	if f.Value() != "t" {
		t.Fatalf("value %q", f.Value())
	}
}

// enter keeps the filter (Close), esc clears it, ctrl+c quits; q is text.
func TestFilterKeys(t *testing.T) {
	c := commontest.OverlayContext(80, 24, false)
	commontest.AssertOverlay(t, func() common.Overlay { return New("") }, c, commontest.OverlaySpec{
		Name: "filter", Footer: "enter apply · esc clear · ctrl+c quit",
		Close: []string{"enter"}, Quit: []string{"ctrl+c"},
		Keys: []commontest.KeyEffect{{Key: "esc", Want: common.ClearFilter{}}, {Key: "q", Want: common.Filter{}}, {Key: "?", Want: common.Filter{}}},
	})
}

// Reopening / shows the old filter selected: typing replaces it,
// backspace edits it, enter keeps it.
func TestReopenedFilterIsReplacedByTyping(t *testing.T) {
	c := commontest.OverlayContext(80, 24, false)
	f := New("t4")
	if s := statusLine(t, f, c); !strings.HasPrefix(s, "/t4█") || !strings.Contains(s, "type to replace") {
		t.Fatalf("reopened status line: %q", s)
	}
	f.HandleKey(commontest.Key("c"), c)
	if e := f.HandleKey(commontest.Key("p"), c); e != (common.Filter{Text: "cp"}) {
		t.Fatalf("typing appended to the old filter: %#v", e)
	}
	if s := statusLine(t, f, c); strings.Contains(s, "type to replace") {
		t.Fatalf("still selected after typing: %q", s)
	}
	f = New("cp")
	if e := f.HandleKey(commontest.Key("backspace"), c); e != (common.Filter{Text: "c"}) {
		t.Fatalf("backspace on the reopened filter: %#v", e)
	}
	if _, ok := f.HandleKey(commontest.Key("enter"), c).(common.Close); !ok {
		t.Fatal("enter did not keep the filter")
	}
}

// A paste of "a1", ESC "]0;T" BEL, CR, "00" leaves no control;
// a paste of controls only changes nothing.
func TestPasteIntoFilterDropsControls(t *testing.T) {
	c := commontest.OverlayContext(120, 24, false)
	f := New("")
	if e := f.HandleKey(commontest.Paste("a1\x1b]0;T\x07\r00"), c); e != (common.Filter{Text: "a100"}) {
		t.Fatalf("filter after the paste: %#v, want a100", e)
	}
	f.HandleKey(commontest.Paste("\x1b[2J\x07"), c)
	if f.Value() != "a100" {
		t.Fatalf("filter after a paste of controls = %q", f.Value())
	}
	if s := statusLine(t, f, c); strings.ContainsAny(s, "\x1b\x07\r") {
		t.Fatalf("a control reached the status line: %q", s)
	}
}

// A filter longer than the screen scrolls within the status line: the
// end being typed stays visible, the line no wider than the screen; the
// filter stops at Limit characters.
func TestLongFilterFits(t *testing.T) {
	c := commontest.OverlayContext(60, 15, false)
	f := New("")
	f.HandleKey(commontest.Key(strings.Repeat("x", 70)+"END"), c)
	if s := statusLine(t, f, c); !strings.Contains(s, "END█") {
		t.Fatalf("the end of a long filter is not shown: %q", s)
	}
	reopened := New(strings.Repeat("y", 80))
	statusLine(t, reopened, c) // selected: cut to the width, never wider
	f.HandleKey(commontest.Key(strings.Repeat("z", 2*Limit)), c)
	if n := len(f.Value()); n != Limit {
		t.Fatalf("filter of %d characters, want at most %d", n, Limit)
	}
}
