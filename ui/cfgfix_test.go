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
	m.opts.Profile = "work"
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
