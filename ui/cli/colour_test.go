package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/ui"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

func TestThemeFlag(t *testing.T) {
	home := isolate(t)
	cfg := writeFile(t, filepath.Join(home, "c.yaml"), "theme: light\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"config"}, "auto"},
		{[]string{"--config", cfg, "config"}, "light"},
		{[]string{"--config", cfg, "--theme", "DARK", "config"}, "dark"},
	} {
		cmd := &cobra.Command{}
		g := kit.Globals{}
		cmd.Flags().StringVar(&g.Theme, "theme", "", "")
		cmd.Flags().StringVar(&g.Config, "config", "", "")
		if err := cmd.Flags().Parse(c.args[:len(c.args)-1]); err != nil {
			t.Fatal(err)
		}
		if err := kit.LoadConfig(cmd, &g, os.Getenv); err != nil {
			t.Fatal(err)
		}
		if got := g.ThemeName(); got != c.want {
			t.Errorf("%v: theme %q, want %q", c.args, got, c.want)
		}
		if o := dashboardOptions(g); o.Theme != c.want {
			t.Errorf("%v: Options.Theme %q", c.args, o.Theme)
		}
	}
	if code, _, errs := runCLI(t, "status", "--demo", "--theme", "solarized"); code != kit.ExitUsage || !strings.Contains(errs, "accepted: auto, dark, light") {
		t.Fatalf("bad --theme: exit %d %q", code, errs)
	}
}

// NO_COLOR (any non-empty value) turns the dashboard's colour off and
// keeps it from querying the terminal for its background colour; without
// it, theme auto asks the terminal and an explicit theme is kept.
func TestColourSettingsFollowNoColor(t *testing.T) {
	asked := 0
	detect := func() string { asked++; return ui.ThemeLight }
	for _, c := range []struct {
		env, theme, want string
		noColor          bool
		asks             int
	}{
		{"1", config.ThemeAuto, ui.ThemeDark, true, 0},
		{"false", config.ThemeAuto, ui.ThemeDark, true, 0},
		{"1", ui.ThemeLight, ui.ThemeLight, true, 0},
		{"", config.ThemeAuto, ui.ThemeLight, false, 1},
		{"", ui.ThemeDark, ui.ThemeDark, false, 0},
	} {
		t.Setenv("NO_COLOR", c.env)
		asked = 0
		noColor, theme := colourSettings("", c.theme, detect)
		if noColor != c.noColor || theme != c.want || asked != c.asks {
			t.Errorf("NO_COLOR=%q theme %s: no colour %v, theme %s, %d terminal queries; want %v, %s, %d",
				c.env, c.theme, noColor, theme, asked, c.noColor, c.want, c.asks)
		}
	}
}

// startColour returns before the terminal has answered (the dashboard
// connects and starts its calls meanwhile); resolved waits for the
// answer, and asks nothing when colour is off.
func TestStartColourDoesNotWaitForTheTerminal(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	release := make(chan struct{})
	noColor, resolved := startColour("", config.ThemeAuto, func() string { <-release; return ui.ThemeLight })
	if noColor {
		t.Fatal("colour off without NO_COLOR")
	}
	close(release) // had startColour waited for detect, it would never have returned
	if got := resolved(); got != ui.ThemeLight {
		t.Errorf("theme %s, want the terminal's %s", got, ui.ThemeLight)
	}
	if got := resolved(); got != ui.ThemeLight {
		t.Errorf("theme %s the second time", got)
	}
	t.Setenv("NO_COLOR", "1")
	_, resolved = startColour("", config.ThemeAuto, func() string { t.Error("asked the terminal with colour off"); return "" })
	if got := resolved(); got != ui.ThemeDark {
		t.Errorf("theme %s with colour off, want %s", got, ui.ThemeDark)
	}
}
