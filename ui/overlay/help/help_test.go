package help

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
)

// The full help fits a 60×15 screen: no column is cut with "…", and what
// does not fit scrolls with j/k and pgdn, with "↓ more" while cut.
func TestHelpFitsAndScrolls(t *testing.T) {
	c := commontest.OverlayContext(60, 15, false, commontest.Alpha())
	h := New("")
	all := Lines(c, 60, "")
	seen := map[string]bool{}
	for step := 0; step < 40; step++ {
		lines := commontest.Draw(t, h, c)
		if !strings.HasPrefix(lines[2], "HELP") {
			t.Fatalf("no HELP title: %q", lines[2])
		}
		body := lines[3 : len(lines)-2] // between the HELP title and the footer
		if strings.Contains(strings.Join(body, "\n"), "…") {
			t.Fatalf("help cut at 60×15:\n%s", strings.Join(lines, "\n"))
		}
		for _, ln := range body {
			seen[strings.TrimRight(ln, " ")] = true
		}
		if !strings.Contains(strings.Join(lines, "\n"), "↓ more") {
			break
		}
		if e := h.HandleKey(commontest.Key("j"), c); e != nil {
			t.Fatalf("j answered %#v", e)
		}
	}
	for _, want := range all {
		if !seen[want] {
			t.Errorf("help line %q never shown while scrolling", want)
		}
	}
	for _, desc := range []string{"copy URL", "quit", "renew token now", "run code"} {
		if !strings.Contains(strings.Join(all, "\n"), desc) {
			t.Errorf("help lacks %q", desc)
		}
	}
	// pgdn and pgup scroll by pages; k goes back to the top.
	for i := 0; i < len(all) && h.Offset() > 0; i++ {
		before := h.Offset()
		h.HandleKey(commontest.Key("pgup"), c)
		if step := before - h.Offset(); step != min(before, Rows(c.Layout)-1) {
			t.Fatalf("pgup scrolled %d lines from %d, want a page", step, before)
		}
	}
	if h.Offset() != 0 || !strings.Contains(commontest.Screen(t, h, c), "↓ more") {
		t.Errorf("pgup did not return to the top (offset %d)", h.Offset())
	}
	h.HandleKey(commontest.Key("pgdown"), c)
	if h.Offset() == 0 {
		t.Error("pgdn did not scroll")
	}
	h.HandleKey(commontest.Key("k"), c)
	h.HandleKey(commontest.Key("pgup"), c)
	if h.Offset() != 0 {
		t.Errorf("k and pgup left the help at %d", h.Offset())
	}
	// Wide screens lay the groups out side by side: fewer lines.
	if wide := Lines(c, 160, ""); len(wide) >= len(all) {
		t.Errorf("160 columns: %d help lines, 60 columns: %d", len(wide), len(all))
	}
}

// Scrolling stops at the last page: pressing down more often than there
// are lines leaves the last line of the help on screen, "↓ more" gone.
func TestHelpScrollStopsAtTheEnd(t *testing.T) {
	c := commontest.OverlayContext(60, 15, false, commontest.Alpha())
	h := New("")
	all := Lines(c, 60, "")
	for range len(all) + 5 {
		h.HandleKey(commontest.Key("j"), c)
	}
	if want := len(all) - Rows(c.Layout); h.Offset() != want {
		t.Fatalf("offset %d after scrolling past the end, want %d", h.Offset(), want)
	}
	lines := commontest.Draw(t, h, c)
	v := strings.Join(lines, "\n")
	if strings.Contains(v, "↓ more") || !strings.Contains(v, all[len(all)-1]) {
		t.Fatalf("the last page:\n%s", v)
	}
	// On a screen tall enough for everything nothing scrolls.
	c = commontest.OverlayContext(160, 48, false, commontest.Alpha())
	h = New("")
	h.HandleKey(commontest.Key("j"), c)
	if h.Offset() != 0 {
		t.Fatalf("scrolled to %d on a screen that shows it all", h.Offset())
	}
}

// Only the help's own keys act: ? and esc close it, q and ctrl+c quit,
// and a dashboard key (d: delete, n: new runtime) does nothing; the
// footer names the keys in effect; the help fits the smallest screen.
func TestHelpKeys(t *testing.T) {
	c := commontest.OverlayContext(60, 15, false, commontest.Alpha())
	commontest.AssertOverlay(t, func() common.Overlay { return New("") }, c, commontest.OverlaySpec{
		Name: "help", Footer: "↑/↓ scroll · pgup/pgdn page · ?/esc close · q/ctrl+c quit",
		Close: []string{"?", "esc"}, Quit: []string{"q", "ctrl+c"}, Inert: []string{"d", "n", "enter"},
	})
}

// The keys follow the key map: rebound, the new key scrolls and closes,
// the old one no longer does, and the help lists the new keys.
func TestHelpFollowsRebinding(t *testing.T) {
	c := commontest.OverlayContext(60, 15, false, commontest.Alpha())
	if err := c.Keys.Rebind(keymap.ActionDown, "w"); err != nil {
		t.Fatal(err)
	}
	if err := c.Keys.Rebind(keymap.ActionHelp, "f1"); err != nil {
		t.Fatal(err)
	}
	h := New("")
	h.HandleKey(commontest.Key("j"), c)
	if h.Offset() != 0 {
		t.Fatal("j still scrolls after down was rebound to w")
	}
	h.HandleKey(commontest.Key("w"), c)
	if h.Offset() != 1 {
		t.Fatalf("w did not scroll (offset %d)", h.Offset())
	}
	if e := h.HandleKey(commontest.Key("?"), c); e != nil {
		t.Fatalf("? still answers %#v after help was rebound to f1", e)
	}
	if e := h.HandleKey(commontest.Key("f1"), c); !commontest.SameKind(e, common.Close{}) {
		t.Fatalf("f1 answered %#v", e)
	}
	lines := Lines(c, 200, "")
	if f := strings.Fields(lines[1]); f[0] != "w" || f[1] != "down" || !strings.Contains(strings.Join(strings.Fields(lines[1]), " "), "f1 help") {
		t.Fatalf("the help does not show the rebound keys:\n%s", strings.Join(lines, "\n"))
	}
}

// Opened from a layer (the files pane), the help starts with that
// layer's keys under its title; from the dashboard, with the dashboard's.
func TestHelpOpenedFromALayerListsItsKeysFirst(t *testing.T) {
	c := commontest.OverlayContext(120, 40, false, commontest.Alpha())
	files := commontest.Draw(t, New(keymap.ScopeFiles), c)
	if !strings.Contains(files[3], "files pane (f)") {
		t.Fatalf("the help from the files pane starts with %q:\n%s", files[3], strings.Join(files, "\n"))
	}
	dash := commontest.Draw(t, New(""), c)
	if strings.Contains(dash[3], "files pane") || !strings.HasPrefix(strings.Join(strings.Fields(dash[3]), " "), "↑/k up") {
		t.Fatalf("the dashboard's help starts with %q / %q", dash[3], dash[4])
	}
	for _, want := range []string{"files pane (f)", "download to a path", "run-code console (e)", "back (code keeps running)"} {
		if !strings.Contains(strings.Join(dash, "\n"), want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

// --readonly hides the keys that change something: the help does not
// offer what would be refused.
func TestHelpLeavesOutDisabledKeys(t *testing.T) {
	c := commontest.OverlayContext(160, 48, true, commontest.Alpha())
	all := strings.Join(Lines(c, 160, ""), "\n")
	for _, gone := range []string{"new runtime", "delete", "run code", "upload here"} {
		if strings.Contains(all, gone) {
			t.Errorf("read-only help offers %q:\n%s", gone, all)
		}
	}
	for _, kept := range []string{"refresh", "copy URL", "download here"} {
		if !strings.Contains(all, kept) {
			t.Errorf("read-only help lacks %q", kept)
		}
	}
}

// Scrolled to its end and then drawn on a wider screen, where the groups
// sit side by side in fewer lines, the help shows its new last page whole:
// the offset is clamped to it, never left past the end.
func TestHelpWidenedAtTheEndShowsTheLastPage(t *testing.T) {
	narrow, wide := commontest.OverlayContext(60, 15, false, commontest.Alpha()), commontest.OverlayContext(120, 15, false, commontest.Alpha())
	h := New("")
	for range len(Lines(narrow, 60, "")) {
		h.HandleKey(commontest.Key("j"), narrow)
	}
	all, rows := Lines(wide, 120, ""), Rows(wide.Layout)
	if len(all) <= rows || h.Offset() <= len(all)-rows {
		t.Fatalf("the fixture does not scroll past the wide help's end: offset %d, %d lines on %d rows", h.Offset(), len(all), rows)
	}
	lines := commontest.Draw(t, h, wide)
	for i, want := range all[len(all)-rows:] {
		if got := strings.TrimRight(lines[3+i], " "); got != want {
			t.Fatalf("line %d of the last page is %q, want %q:\n%s", i, got, want, strings.Join(lines, "\n"))
		}
	}
}

// Opened from a layer, the help moves that layer's group first and keeps
// every other group once, in the key map's order.
func TestHelpFromALayerListsEachGroupOnce(t *testing.T) {
	c := commontest.OverlayContext(60, 200, false, commontest.Alpha())
	text := strings.Join(Lines(c, 60, keymap.ScopeFiles), "\n")
	var titles []string
	for _, g := range c.Keys.HelpGroups() {
		if g.Title != "" {
			titles = append(titles, g.Title)
		}
	}
	if len(titles) < 2 {
		t.Fatalf("the key map has %d titled groups", len(titles))
	}
	for _, title := range titles {
		if n := strings.Count(text, title); n != 1 {
			t.Errorf("group %q listed %d times:\n%s", title, n, text)
		}
	}
}

// A group wider than the screen (keys rebound to many names can make
// one) still gets a row of its own: the layout never waits for room that
// will not come, and every group is listed.
func TestHelpGroupWiderThanTheScreenGetsItsOwnRow(t *testing.T) {
	c := commontest.OverlayContext(60, 15, false, commontest.Alpha())
	wide, narrow := Lines(c, 200, ""), Lines(c, 10, "")
	if len(narrow) <= len(wide) {
		t.Fatalf("10 columns: %d lines, 200 columns: %d", len(narrow), len(wide))
	}
	text := strings.Join(narrow, "\n")
	for _, desc := range []string{"copy URL", "quit", "download to a path", "back (code keeps running)"} {
		if !strings.Contains(text, desc) {
			t.Errorf("the help at 10 columns lacks %q:\n%s", desc, text)
		}
	}
}

// Side by side, each group is a column: every line of a group starts in
// the cell its title starts in, however wide the cells to its left are.
func TestHelpGroupsSideBySideAreAligned(t *testing.T) {
	c := commontest.OverlayContext(200, 48, false, commontest.Alpha())
	lines := Lines(c, 200, "")
	title := ansi.Strip(lines[0])
	i := strings.Index(title, "files pane (f)")
	if i < 0 {
		t.Fatalf("the files pane's group is not in the first row at 200 columns:\n%s", strings.Join(lines, "\n"))
	}
	x := ansi.StringWidth(title[:i])
	for r, key := range []string{"enter/→", "backspace/←", "d ", "D ", "u ", "x/delete"} {
		line := ansi.Strip(lines[1+r])
		if got := ansi.Cut(line, x-1, x+ansi.StringWidth(key)); got != " "+key {
			t.Errorf("line %d has %q at the column of the files pane's keys (cell %d), want %q:\n%s", 1+r, got, x, key, strings.Join(lines, "\n"))
		}
	}
}

// A row of groups takes one more column as soon as that column fits with
// the 3-cell gap kept free at the right: at every width the widest line
// leaves those 3 cells, and where the layout changes it leaves no more.
func TestHelpTakesAColumnAsSoonAsItFits(t *testing.T) {
	c := commontest.OverlayContext(200, 48, false, commontest.Alpha())
	widest := func(w int) int {
		m := 0
		for _, l := range Lines(c, w, "") {
			m = max(m, ansi.StringWidth(l))
		}
		return m
	}
	changes := 0
	for w := 61; w <= 200; w++ {
		m := widest(w)
		if m > w-3 {
			t.Fatalf("at %d columns a line is %d cells wide: no 3-cell margin", w, m)
		}
		if strings.Join(Lines(c, w, ""), "\n") != strings.Join(Lines(c, w-1, ""), "\n") {
			changes++
			if m != w-3 {
				t.Errorf("at %d columns the layout changed but its widest line is %d cells: the column fitted earlier", w, m)
			}
		}
	}
	if changes == 0 {
		t.Fatal("the layout never changed between 61 and 200 columns")
	}
}

// G goes to the help's last page and g back to its top, as in every
// list that scrolls.
func TestHelpTopAndBottomKeys(t *testing.T) {
	c := commontest.OverlayContext(60, 15, false, commontest.Alpha())
	h := New("")
	all := Lines(c, 60, "")
	if e := h.HandleKey(commontest.Key("G"), c); e != nil {
		t.Fatalf("G answered %#v", e)
	}
	if want := len(all) - Rows(c.Layout); h.Offset() != want || want <= 0 {
		t.Fatalf("after G the help is at line %d, want its last page at %d", h.Offset(), want)
	}
	if v := commontest.Screen(t, h, c); strings.Contains(v, "↓ more") || !strings.Contains(v, all[len(all)-1]) {
		t.Fatalf("after G, not the last page:\n%s", v)
	}
	h.HandleKey(commontest.Key("g"), c)
	if h.Offset() != 0 {
		t.Fatalf("after g the help is at line %d, want its top", h.Offset())
	}
}
