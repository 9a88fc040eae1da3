package filter

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
	"github.com/colabdash/colabdash/ui/widget/frame"
)

// fixture is the Context of a w×h dashboard with one runtime.
func fixture(w, h int) *common.Context {
	return commontest.Context(w, h, commontest.Runtime("r-alpha", api.RuntimeSpecKey{Variant: api.VariantGPU, Accelerator: "T4", Shape: api.ShapeStandard}, time.Time{}))
}

// draw paints o on a frame of c's size whose lines say where they are,
// checks it is exactly H lines none wider than W and that only the status
// line changed, and returns the status line.
func draw(t *testing.T, o common.Overlay, c *common.Context) string {
	t.Helper()
	f := frame.New(c.Layout.W, c.Layout.H)
	for i := range c.Layout.H {
		f.Lines = append(f.Lines, fmt.Sprint("line ", i))
	}
	o.Draw(c, f)
	if len(f.Lines) != c.Layout.H {
		t.Fatalf("%d lines drawn, want %d", len(f.Lines), c.Layout.H)
	}
	for i, l := range f.Lines {
		if w := ansi.StringWidth(l); w > c.Layout.W {
			t.Fatalf("line %d is %d wide at %d: %q", i, w, c.Layout.W, l)
		}
		if i != c.Layout.H-2 && l != fmt.Sprint("line ", i) {
			t.Fatalf("line %d drawn over: %q", i, l)
		}
	}
	return f.Lines[c.Layout.H-2]
}

// typing answers the filter typed so far, so the table follows it.
func TestFilterFollowsTyping(t *testing.T) {
	c := fixture(80, 24)
	f := New("")
	if e := f.HandleKey(commontest.Key("t"), c); e != (common.Filter{Text: "t"}) {
		t.Fatalf("t: %#v", e)
	}
	if e := f.HandleKey(commontest.Key("4"), c); e != (common.Filter{Text: "t4"}) {
		t.Fatalf("4: %#v", e)
	}
	if s := draw(t, f, c); !strings.HasPrefix(s, "/t4█") || !strings.Contains(s, "enter apply · esc clear") {
		t.Fatalf("status line: %q", s)
	}
	if e := f.HandleKey(tea.KeyMsg{Type: tea.KeyBackspace}, c); e != (common.Filter{Text: "t"}) {
		t.Fatalf("backspace: %#v", e)
	}
	if f.Value() != "t" {
		t.Fatalf("value %q", f.Value())
	}
}

// enter keeps the filter (Close), esc clears it, ctrl+c quits; q is text.
func TestFilterKeys(t *testing.T) {
	c := fixture(80, 24)
	for _, tc := range []struct {
		key  tea.KeyMsg
		want string
	}{
		{tea.KeyMsg{Type: tea.KeyEnter}, "common.Close"},
		{tea.KeyMsg{Type: tea.KeyEsc}, "common.ClearFilter"},
		{tea.KeyMsg{Type: tea.KeyCtrlC}, "common.Quit"},
		{commontest.Key("q"), "common.Filter"},
		{commontest.Key("?"), "common.Filter"},
	} {
		if got := fmt.Sprintf("%T", New("").HandleKey(tc.key, c)); got != tc.want {
			t.Errorf("%q: %s, want %s", tc.key.String(), got, tc.want)
		}
	}
	var words []string
	for _, b := range New("").Keys(c) {
		words = append(words, b.Help().Key+" "+b.Help().Desc)
	}
	if got := strings.Join(words, " · "); got != "enter apply · esc clear · ctrl+c quit" {
		t.Errorf("footer keys: %q", got)
	}
	if o := New(""); o.Name() != "filter" || !o.Fits(c) {
		t.Errorf("name %q fits %v", o.Name(), o.Fits(c))
	}
}

// Reopening / shows the old filter selected: typing replaces it,
// backspace edits it, enter keeps it.
func TestReopenedFilterIsReplacedByTyping(t *testing.T) {
	c := fixture(80, 24)
	f := New("t4")
	if s := draw(t, f, c); !strings.HasPrefix(s, "/t4█") || !strings.Contains(s, "type to replace") {
		t.Fatalf("reopened status line: %q", s)
	}
	f.HandleKey(commontest.Key("c"), c)
	if e := f.HandleKey(commontest.Key("p"), c); e != (common.Filter{Text: "cp"}) {
		t.Fatalf("typing appended to the old filter: %#v", e)
	}
	if s := draw(t, f, c); strings.Contains(s, "type to replace") {
		t.Fatalf("still selected after typing: %q", s)
	}
	f = New("cp")
	if e := f.HandleKey(tea.KeyMsg{Type: tea.KeyBackspace}, c); e != (common.Filter{Text: "c"}) {
		t.Fatalf("backspace on the reopened filter: %#v", e)
	}
	if _, ok := f.HandleKey(tea.KeyMsg{Type: tea.KeyEnter}, c).(common.Close); !ok {
		t.Fatal("enter did not keep the filter")
	}
}

// A paste of "a1", ESC "]0;T" BEL, CR, "00" leaves no control;
// a paste of controls only changes nothing.
func TestPasteIntoFilterDropsControls(t *testing.T) {
	c := fixture(120, 24)
	f := New("")
	if e := f.HandleKey(tea.KeyMsg{Type: tea.KeyRunes, Paste: true, Runes: []rune("a1\x1b]0;T\x07\r00")}, c); e != (common.Filter{Text: "a100"}) {
		t.Fatalf("filter after the paste: %#v, want a100", e)
	}
	f.HandleKey(tea.KeyMsg{Type: tea.KeyRunes, Paste: true, Runes: []rune("\x1b[2J\x07")}, c)
	if f.Value() != "a100" {
		t.Fatalf("filter after a paste of controls = %q", f.Value())
	}
	if s := draw(t, f, c); strings.ContainsAny(s, "\x1b\x07\r") {
		t.Fatalf("a control reached the status line: %q", s)
	}
}

// A filter longer than the screen scrolls within the status line: the
// end being typed stays visible, the line no wider than the screen; the
// filter stops at Limit characters.
func TestLongFilterFits(t *testing.T) {
	c := fixture(60, 15)
	f := New("")
	f.HandleKey(commontest.Key(strings.Repeat("x", 70)+"END"), c)
	if s := draw(t, f, c); !strings.Contains(s, "END█") {
		t.Fatalf("the end of a long filter is not shown: %q", s)
	}
	reopened := New(strings.Repeat("y", 80))
	draw(t, reopened, c) // selected: cut to the width, never wider
	f.HandleKey(commontest.Key(strings.Repeat("z", 2*Limit)), c)
	if n := len(f.Value()); n != Limit {
		t.Fatalf("filter of %d characters, want at most %d", n, Limit)
	}
}
