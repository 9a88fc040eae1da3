package profile

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
)

// fixture is the Context of a w×h dashboard with one runtime and the
// profiles alpha (active), broken and other.
func fixture(w, h int) *common.Context {
	c := commontest.OverlayContext(w, h, false, commontest.Alpha())
	c.Profile, c.Profiles = "alpha", []string{"alpha", "broken", "other"}
	return c
}

// nonBlank is lines without the blank ones: what the picker drew on a
// blank frame.
func nonBlank(lines []string) []string {
	var body []string
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			body = append(body, l)
		}
	}
	return body
}

// The picker opens on the active profile; ↓ and enter switch to the next
// one; the cursor stops at either end.
func TestPickerChoosesAProfile(t *testing.T) {
	c := fixture(80, 24)
	c.Profile = "broken"
	p := New(c)
	got := nonBlank(commontest.Draw(t, p, c))
	want := []string{"PROFILES  (enter switch · esc cancel)", "  alpha", "› broken (active)", "  other"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("picker:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if e := p.HandleKey(commontest.Key("j"), c); e != nil {
		t.Fatalf("j answered %#v", e)
	}
	if e := p.HandleKey(commontest.Key("enter"), c); e != (common.SwitchProfile{Name: "other"}) {
		t.Fatalf("enter on other: %#v", e)
	}
	p.HandleKey(commontest.Key("down"), c) // past the end: stays
	if e := p.HandleKey(commontest.Key("enter"), c); e != (common.SwitchProfile{Name: "other"}) {
		t.Fatalf("down past the end, enter: %#v", e)
	}
	for range 5 {
		p.HandleKey(commontest.Key("k"), c)
	}
	if got := nonBlank(commontest.Draw(t, p, c)); got[1] != "› alpha" {
		t.Fatalf("up past the top:\n%s", strings.Join(got, "\n"))
	}
	if e := p.HandleKey(commontest.Key("enter"), c); e != (common.SwitchProfile{Name: "alpha"}) {
		t.Fatalf("enter on alpha: %#v", e)
	}
	// No profile is active (a profile the config no longer names): the
	// first.
	c.Profile = "gone"
	if got := nonBlank(commontest.Draw(t, New(c), c)); got[1] != "› alpha" {
		t.Fatalf("no active profile:\n%s", strings.Join(got, "\n"))
	}
}

// esc, P and q close the picker; ctrl+c quits; a dashboard key does
// nothing (d would delete a runtime below).
func TestPickerKeys(t *testing.T) {
	c := fixture(80, 24)
	commontest.AssertOverlay(t, func() common.Overlay { return New(c) }, c, commontest.OverlaySpec{
		Name: "profile picker", Footer: "↑/↓ move · enter switch · esc/P/q cancel · ctrl+c quit",
		Close: []string{"esc", "P", "q"}, Quit: []string{"ctrl+c"}, Inert: []string{"d", "n"},
	})
	// Rebound, the picker's keys follow the key map.
	if err := c.Keys.Rebind(keymap.ActionProfile, "ctrl+p"); err != nil {
		t.Fatal(err)
	}
	if e := New(c).HandleKey(commontest.Key("P"), c); e != nil {
		t.Errorf("P still closes after profile was rebound: %#v", e)
	}
	if _, ok := New(c).HandleKey(commontest.Key("ctrl+p"), c).(common.Close); !ok {
		t.Error("ctrl+p does not close the picker")
	}
}

// A profile name from the config file reaches the terminal through
// termtext: no control character is drawn; a long one is cut.
func TestPickerNamesAreSafe(t *testing.T) {
	c := fixture(60, 15)
	c.Profiles = []string{"evil\x1b]0;pwned\x07", strings.Repeat("long", 30)}
	c.Profile = c.Profiles[1]
	got := strings.Join(nonBlank(commontest.Draw(t, New(c), c)), "\n")
	if strings.ContainsAny(got, "\x1b\x07") {
		t.Fatalf("a control reached the screen: %q", got)
	}
	if !strings.Contains(got, "evil") || !strings.Contains(got, "› longlong") {
		t.Fatalf("picker:\n%s", got)
	}
}

// Only the profile under the cursor is drawn highlighted (reverse
// video), the active one is marked only by its word.
func TestPickerHighlightsTheCursorOnly(t *testing.T) {
	c := fixture(80, 24)
	c.Styles = commontest.ANSIStyles()
	p := New(c)
	p.HandleKey(commontest.Key("j"), c) // the cursor on broken, alpha active
	reversed := func(line string) bool { return strings.Contains(line, "\x1b[7m") }
	var lines []string
	for _, l := range nonBlank(commontest.Draw(t, p, c)) {
		if plain := ansi.Strip(l); strings.Contains(plain, "alpha") || strings.Contains(plain, "broken") || strings.Contains(plain, "other") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 3 || reversed(lines[0]) || !reversed(lines[1]) || reversed(lines[2]) {
		t.Fatalf("only broken (the cursor's) should be highlighted: %q", lines)
	}
}

// With no profile configured, enter switches to nothing and closes the
// picker.
func TestPickerWithoutProfiles(t *testing.T) {
	c := fixture(80, 24)
	c.Profile, c.Profiles = "", nil
	p := New(c)
	p.HandleKey(commontest.Key("down"), c)
	p.HandleKey(commontest.Key("up"), c)
	if e, ok := p.HandleKey(commontest.Key("enter"), c).(common.Close); !ok || e.Text != "" {
		t.Fatalf("enter with no profiles: %#v", e)
	}
}

// G moves to the last profile and g to the first, as in every list.
func TestPickerTopAndBottomKeys(t *testing.T) {
	c := fixture(80, 24)
	p := New(c) // on alpha, the first
	if e := p.HandleKey(commontest.Key("G"), c); e != nil {
		t.Fatalf("G answered %#v", e)
	}
	if e := p.HandleKey(commontest.Key("enter"), c); e != (common.SwitchProfile{Name: "other"}) {
		t.Fatalf("G then enter: %#v, want the last profile (other)", e)
	}
	p.HandleKey(commontest.Key("g"), c)
	if got := nonBlank(commontest.Draw(t, p, c)); got[1] != "› alpha (active)" {
		t.Fatalf("after g:\n%s", strings.Join(got, "\n"))
	}
}
