package ui

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"
)

func TestDetectTheme(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "COLORFGBG" {
				return v
			}
			return ""
		}
	}
	never := make(chan struct{})
	defer close(never)
	stall := func() (bool, bool) { <-never; return false, false } // a query that never returns
	mustNotQuery := func() (bool, bool) { t.Error("queried the terminal although COLORFGBG decides"); return true, true }
	cases := []struct {
		name   string
		getenv func(string) string
		query  func() (bool, bool)
		want   string
	}{
		{"COLORFGBG dark", env("15;0"), mustNotQuery, ThemeDark},
		{"COLORFGBG light", env("0;15"), mustNotQuery, ThemeLight},
		{"COLORFGBG with default", env("0;default;15"), mustNotQuery, ThemeLight},
		{"answer light", env(""), func() (bool, bool) { return false, true }, ThemeLight},
		{"answer dark", env(""), func() (bool, bool) { return true, true }, ThemeDark},
		{"no answer", env(""), func() (bool, bool) { return false, false }, ThemeDark},
		{"query stalls", env(""), stall, ThemeDark},
		{"query panics", env(""), func() (bool, bool) { panic("tty gone") }, ThemeDark},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			done := make(chan string, 1)
			go func() { done <- detectTheme(c.getenv, c.query, 20*time.Millisecond) }()
			select {
			case got := <-done:
				if got != c.want {
					t.Fatalf("got %s, want %s", got, c.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("detection stalled")
			}
		})
	}
}

// ansiRenderer renders with the 16-colour ANSI profile, so goldens show
// which palette index each theme uses.
func ansiRenderer() *lipgloss.Renderer {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.ANSI)
	return r
}

// The light and dark themes as a colour terminal receives them. EXPIRING
// is yellow (33) on dark and magenta (35) on light; the selected row is
// reverse video with a "›" marker in both, so it shows without colour.
func TestThemeGoldens(t *testing.T) {
	for _, theme := range []string{ThemeDark, ThemeLight} {
		t.Run(theme, func(t *testing.T) {
			_, _, m := fixture(t)
			m.opts.Theme = theme
			m.st = newThemeStyles(ansiRenderer(), paletteFor(theme))
			m.help.Styles = m.st.help
			v := m.View()
			golden.RequireEqual(t, []byte(v))
			var expiring string
			for _, ln := range strings.Split(v, "\n") {
				if strings.Contains(ln, "EXPIRING") && !strings.Contains(ln, "›") {
					expiring = ln
				}
			}
			yellow, magenta := strings.Contains(expiring, "\x1b[1;33m"), strings.Contains(expiring, "\x1b[1;35m")
			if theme == ThemeDark && (!yellow || magenta) || theme == ThemeLight && (yellow || !magenta) {
				t.Errorf("%s: EXPIRING row %q", theme, expiring)
			}
			var sel string
			for _, ln := range strings.Split(v, "\n") {
				if strings.HasPrefix(ansi.Strip(ln), "› ") {
					sel = ln
				}
			}
			if !strings.Contains(sel, "\x1b[7m") {
				t.Errorf("%s: selected row not in reverse video: %q", theme, sel)
			}
		})
	}
	// Options.Theme reaches the styles.
	if m := New(Options{Service: newFake(), Theme: ThemeLight}); m.opts.Theme != ThemeLight {
		t.Fatal("theme lost")
	}
}
