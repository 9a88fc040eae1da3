package profile

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/theme"
	"github.com/colabdash/colabdash/ui/widget/frame"
)

var t0 = time.Date(2026, 11, 29, 17, 0, 0, 0, time.UTC)

// fixture is the Context of a w×h dashboard with one runtime, the
// default key map, no colours, and the profiles alpha (active), broken
// and other.
func fixture(w, h int) *common.Context {
	snap := state.New(state.Config{})
	snap.ApplyRuntimes(t0, []api.Runtime{{Name: "runtimes/r-alpha",
		RuntimeSpec: api.RuntimeSpecKey{Variant: api.VariantCPU, Accelerator: api.AcceleratorNone, Shape: api.ShapeStandard}}})
	return &common.Context{Snap: snap, Keys: keymap.Default(), Styles: theme.New(true, theme.Dark),
		Now: func() time.Time { return t0 }, Location: time.UTC, Redact: func(s string) string { return s },
		Layout:  common.Layout{W: w, H: h, TableRows: 4, BottomRows: 4, SessLines: 2, SessWidth: w * 2 / 5},
		Profile: "alpha", Profiles: []string{"alpha", "broken", "other"}}
}

// draw paints o on an empty frame of c's size, checks it is exactly H
// lines none wider than W, and returns the body's lines that are not
// blank.
func draw(t *testing.T, o common.Overlay, c *common.Context) []string {
	t.Helper()
	f := frame.New(c.Layout.W, c.Layout.H)
	f.Lines = frame.PadLines(nil, c.Layout.H)
	o.Draw(c, f)
	if len(f.Lines) != c.Layout.H {
		t.Fatalf("%d lines drawn, want %d", len(f.Lines), c.Layout.H)
	}
	var body []string
	for i, l := range f.Lines {
		if w := ansi.StringWidth(l); w > c.Layout.W {
			t.Fatalf("line %d is %d wide at %d: %q", i, w, c.Layout.W, l)
		}
		if strings.TrimSpace(l) != "" {
			body = append(body, l)
		}
	}
	return body
}

func runes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

// The picker opens on the active profile; ↓ and enter switch to the next
// one; the cursor stops at either end.
func TestPickerChoosesAProfile(t *testing.T) {
	c := fixture(80, 24)
	c.Profile = "broken"
	p := New(c)
	got := draw(t, p, c)
	want := []string{"PROFILES  (enter switch · esc cancel)", "  alpha", "› broken (active)", "  other"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("picker:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if e := p.HandleKey(runes("j"), c); e != nil {
		t.Fatalf("j answered %#v", e)
	}
	if e := p.HandleKey(tea.KeyMsg{Type: tea.KeyEnter}, c); e != (common.SwitchProfile{Name: "other"}) {
		t.Fatalf("enter on other: %#v", e)
	}
	p.HandleKey(tea.KeyMsg{Type: tea.KeyDown}, c) // past the end: stays
	if e := p.HandleKey(tea.KeyMsg{Type: tea.KeyEnter}, c); e != (common.SwitchProfile{Name: "other"}) {
		t.Fatalf("down past the end, enter: %#v", e)
	}
	for range 5 {
		p.HandleKey(runes("k"), c)
	}
	if got := draw(t, p, c); got[1] != "› alpha" {
		t.Fatalf("up past the top:\n%s", strings.Join(got, "\n"))
	}
	if e := p.HandleKey(tea.KeyMsg{Type: tea.KeyEnter}, c); e != (common.SwitchProfile{Name: "alpha"}) {
		t.Fatalf("enter on alpha: %#v", e)
	}
	// No profile is active (a profile the config no longer names): the
	// first.
	c.Profile = "gone"
	if got := draw(t, New(c), c); got[1] != "› alpha" {
		t.Fatalf("no active profile:\n%s", strings.Join(got, "\n"))
	}
}

// esc, P and q close the picker; ctrl+c quits; a dashboard key does
// nothing (d would delete a runtime below).
func TestPickerKeys(t *testing.T) {
	c := fixture(80, 24)
	for _, tc := range []struct {
		key  tea.KeyMsg
		want string
	}{
		{tea.KeyMsg{Type: tea.KeyEsc}, "common.Close"},
		{runes("P"), "common.Close"},
		{runes("q"), "common.Close"},
		{tea.KeyMsg{Type: tea.KeyCtrlC}, "common.Quit"},
		{runes("d"), "<nil>"},
		{runes("n"), "<nil>"},
	} {
		if got := fmt.Sprintf("%T", New(c).HandleKey(tc.key, c)); got != tc.want {
			t.Errorf("%q: %s, want %s", tc.key.String(), got, tc.want)
		}
	}
	var words []string
	for _, b := range New(c).Keys(c) {
		words = append(words, b.Help().Key+" "+b.Help().Desc)
	}
	if got := strings.Join(words, " · "); got != "↑/↓ move · enter switch · esc/P/q cancel · ctrl+c quit" {
		t.Errorf("footer keys: %q", got)
	}
	if o := New(c); o.Name() != "profile picker" || !o.Fits(c) {
		t.Errorf("name %q fits %v", o.Name(), o.Fits(c))
	}
	// Rebound, the picker's keys follow the key map.
	if err := c.Keys.Rebind(keymap.ActionProfile, "ctrl+p"); err != nil {
		t.Fatal(err)
	}
	if e := New(c).HandleKey(runes("P"), c); e != nil {
		t.Errorf("P still closes after profile was rebound: %#v", e)
	}
	if _, ok := New(c).HandleKey(tea.KeyMsg{Type: tea.KeyCtrlP}, c).(common.Close); !ok {
		t.Error("ctrl+p does not close the picker")
	}
}

// A profile name from the config file reaches the terminal through
// termtext: no control character is drawn; a long one is cut.
func TestPickerNamesAreSafe(t *testing.T) {
	c := fixture(60, 15)
	c.Profiles = []string{"evil\x1b]0;pwned\x07", strings.Repeat("long", 30)}
	c.Profile = c.Profiles[1]
	got := strings.Join(draw(t, New(c), c), "\n")
	if strings.ContainsAny(got, "\x1b\x07") {
		t.Fatalf("a control reached the screen: %q", got)
	}
	if !strings.Contains(got, "evil") || !strings.Contains(got, "› longlong") {
		t.Fatalf("picker:\n%s", got)
	}
}
