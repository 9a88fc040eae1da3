package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/keymap"
)

// The empty runtimes list points at the key that creates one (there is no
// `colabdash create` command), the configured key when rebound, and only
// says "no runtimes" in --readonly, where creating is disabled.
func TestEmptyListNamesTheCreateKey(t *testing.T) {
	k := keymap.Default()
	if err := k.Rebind(keymap.ActionNewRuntime, "space"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		mod  func(*Options)
		want string
	}{
		{"default", nil, "no runtimes: press n to create one"},
		{"rebound", func(o *Options) { o.Keymap = k }, "no runtimes: press space to create one"},
		{"readonly", func(o *Options) { o.ReadOnly = true }, "no runtimes\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, m := emuModel(t, colabfake.Options{Seed: colabfake.SeedEmpty}, tc.mod)
			v := m.View()
			if !strings.Contains(stripRight(v), tc.want) || strings.Contains(v, "colabdash create") {
				t.Errorf("view lacks %q:\n%s", tc.want, v)
			}
		})
	}
}

// stripRight drops trailing blanks of every line.
func stripRight(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// A long get_subscription error does not push the profile and the tier off
// a 60-column header: they come first, the error is cut to what is left.
func TestHeaderKeepsProfileAndTierBeforeAnError(t *testing.T) {
	f := newFake()
	f.panicOn = "get_subscription"
	clk := &clock{t: t0}
	m := testModel(f, clk)
	m.cx.Profile = "work"
	m.opts.Account = "credentials file /home/someone/keys/a-very-long-name-for-a-key.json (authorized_user)"
	m, _ = update(m, tea.WindowSizeMsg{Width: 60, Height: 15})
	m, _ = run(t, m, m.Init())
	first := strings.Split(m.View(), "\n")[0]
	if !strings.HasPrefix(first, "colabdash · profile work · tier unknown (retrying: intern") || !strings.HasSuffix(first, "…)") {
		t.Errorf("header line: %q", first)
	}
	if w := ansi.StringWidth(first); w > 60 {
		t.Errorf("header is %d columns wide at 60", w)
	}
}

// The full help fits a 60×15 screen: no column is cut with "…", and what
// does not fit scrolls with j/k and pgdn, with "↓ more" while cut.
func TestHelpFitsAndScrolls(t *testing.T) {
	f := newFake()
	m := testModel(f, &clock{t: t0})
	m, _ = update(m, tea.WindowSizeMsg{Width: 60, Height: 15})
	m, _ = update(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("?")})
	all := m.helpLines(60)
	seen := map[string]bool{}
	for step := 0; step < 40; step++ {
		v := m.View()
		body := strings.Split(v, "\n")
		body = body[3 : len(body)-2] // between the HELP title and the footer
		if strings.Contains(strings.Join(body, "\n"), "…") {
			t.Fatalf("help cut at 60×15:\n%s", v)
		}
		for _, ln := range body {
			seen[strings.TrimRight(ln, " ")] = true
		}
		if !strings.Contains(v, "↓ more") {
			break
		}
		m, _ = update(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("j")})
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
	for i := 0; i < len(all) && m.helpOffset() > 0; i++ {
		before := m.helpOffset()
		m, _ = update(m, tea.KeyMsg{Type: tea.KeyPgUp})
		if step := before - m.helpOffset(); step != min(before, helpRows(m.cx.Layout)-1) {
			t.Fatalf("pgup scrolled %d lines from %d, want a page", step, before)
		}
	}
	if m.helpOffset() != 0 || !strings.Contains(m.View(), "↓ more") {
		t.Errorf("pgup did not return to the top (offset %d)", m.helpOffset())
	}
	m, _ = update(m, tea.KeyMsg{Type: tea.KeyPgDown})
	if m.helpOffset() == 0 {
		t.Error("pgdn did not scroll")
	}
	// Wide screens lay the groups out side by side: fewer lines.
	if wide := m.helpLines(160); len(wide) >= len(all) {
		t.Errorf("160 columns: %d help lines, 60 columns: %d", len(wide), len(all))
	}
}
