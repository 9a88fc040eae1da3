//go:build unix

package ui

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/ui/plugin/plugintest"
)

// pluginModel is the dashboard on the emulator (seed) with plugins,
// their keys bound as kit.BuildKeymap binds them.
func pluginModel(t *testing.T, seed string, readOnly bool, dir string, plugins ...config.Plugin) (*emu, Model) {
	t.Helper()
	km := keymap.Default()
	for _, p := range plugins {
		if err := km.AddPlugin(p.Name, p.Scope, p.Key, p.Description, p.Dangerous); err != nil {
			t.Fatal(err)
		}
	}
	return emuModel(t, colabfake.Options{Seed: seed}, func(o *Options) {
		o.Keymap, o.Plugins, o.ReadOnly, o.Profile = km, plugins, readOnly, "work"
		o.Environ = []string{"PATH=" + os.Getenv("PATH"), "REC_DIR=" + dir}
	})
}

// TestPlugins: a plugin's key runs it, on what the user selected, never
// through a shell, and never a dangerous one under --readonly. The
// dashboards are built here: the hostile seed's with a runtimes plugin,
// and the demo seed's with a dangerous one and a files one, read-only and
// not; each records into a directory of its own, emptied before each case.
func TestPlugins(t *testing.T) {
	hostileDir, roDir, dir := t.TempDir(), t.TempDir(), t.TempDir()
	rec := config.Plugin{Name: "rec", Key: "J", Description: "record it", Scope: config.PluginScopeRuntimes,
		Command: plugintest.Recorder(t, hostileDir), Args: []string{"$COLABDASH_RUNTIME", "; touch PWNED"}, Background: true, Timeout: time.Minute}
	wipe := config.Plugin{Name: "wipe", Key: "W", Scope: config.PluginScopeRuntimes, Command: plugintest.Recorder(t, dir),
		Dangerous: true, Confirm: true, Background: true, Timeout: time.Minute}
	peek := config.Plugin{Name: "peek", Key: "K", Description: "peek", Scope: config.PluginScopeFiles,
		Command: plugintest.Recorder(t, dir), Background: true, Timeout: time.Minute}
	he, hm := pluginModel(t, colabfake.SeedHostile, false, hostileDir, rec)
	roe, rom := pluginModel(t, colabfake.SeedDemo, true, roDir, wipe)
	e, m := pluginModel(t, colabfake.SeedDemo, false, dir, wipe, peek)
	t.Run("the runtimes plugin gets the selected runtime", func(t *testing.T) {
		pluginKeyRunsTheSelectedRuntimesPlugin(t, he, hm, hostileDir)
	})
	t.Run("a dangerous plugin is refused under readonly", func(t *testing.T) {
		plugintest.Reset(t, roDir)
		dangerousPluginRefusedUnderReadonly(t, roe, rom, roDir)
	})
	t.Run("a confirm plugin runs after y", func(t *testing.T) {
		plugintest.Reset(t, dir)
		m = confirmPluginRunsAfterY(t, e, e.closeAll(t, m, "rt-t4demo7k2p"), dir)
	})
	t.Run("the files plugin gets the selected file", func(t *testing.T) {
		plugintest.Reset(t, dir)
		m = filesPluginGetsTheSelectedFile(t, e, e.closeAll(t, m, "rt-t4demo7k2p"), dir)
	})
}

// A plugin's key on the runtimes table runs it without a shell, the
// selected runtime's id (a hostile one, from the server) reaching it only
// as COLABDASH_RUNTIME and its args as configured; its output reaches the
// event log through the sanitizer; ? and the footer list it.
func pluginKeyRunsTheSelectedRuntimesPlugin(t *testing.T, e *emu, m Model, dir string) {
	id := "rt-clip" + colabfake.HostileOSC52 + "board"
	m = m.selectID(t, id)
	mustContain(t, keyLine(m), "J", "record it")
	m = e.press(t, m, "J")
	if !plugintest.Ran(t, dir) {
		t.Fatalf("the plugin did not run:\n%s", m.View())
	}
	got, env := plugintest.Recorded(t, dir)
	if strings.Join(got, "|") != "$COLABDASH_RUNTIME|; touch PWNED" {
		t.Errorf("argv %q, want the configured args", got)
	}
	if env["COLABDASH_RUNTIME"] != id || env["COLABDASH_PROFILE"] != "work" || !strings.HasPrefix(env["COLABDASH_URL"], "https://") {
		t.Errorf("the environment lacks the runtime, profile or URL: %q", env)
	}
	if _, ok := env["COLABDASH_TOKEN"]; ok {
		t.Error("the proxy token was passed to a plugin that did not ask for it")
	}
	if len(plugintest.Created([]string{dir}, "PWNED")) != 0 {
		t.Error("an argument ran as shell code")
	}
	v := m.View()
	mustContain(t, v, "plugin rec: done")
	if strings.Contains(v, "\x1b]52") {
		t.Fatalf("the hostile name reached the screen raw:\n%q", v)
	}
	m = e.press(t, m, "L")
	mustContain(t, m.View(), "plugin rec", "output", "recorded rt-clip")
	if strings.Contains(m.View(), "\x1b]52") {
		t.Fatal("the plugin's output reached the event log raw")
	}
	m = e.press(t, m, "esc", "?")
	mustContain(t, m.View(), "plugins: runtimes table", "record it")
}

// A dangerous plugin is refused under --readonly (the status line says
// so and nothing runs).
func dangerousPluginRefusedUnderReadonly(t *testing.T, e *emu, m Model, dir string) {
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "W")
	mustContain(t, m.View(), "read-only mode: W (plugin wipe, dangerous) is disabled")
	if plugintest.Ran(t, dir) {
		t.Fatal("a dangerous plugin ran under --readonly")
	}
}

// A confirm plugin runs only after y.
func confirmPluginRunsAfterY(t *testing.T, e *emu, m Model, dir string) Model {
	m = e.press(t, m, "W")
	mustContain(t, m.View(), "Run plugin wipe?")
	if plugintest.Ran(t, dir) {
		t.Fatal("a confirm plugin ran before the answer")
	}
	m = e.press(t, m, "y")
	if !plugintest.Ran(t, dir) {
		t.Fatalf("the confirmed plugin did not run:\n%s", m.View())
	}
	return m
}

// A files-scope plugin's key in the files pane runs it on the selected
// file: COLABDASH_FILE is its path on the runtime, COLABDASH_RUNTIME the
// pane's runtime; the pane's footer lists the key.
func filesPluginGetsTheSelectedFile(t *testing.T, e *emu, m Model, dir string) Model {
	putRemote(t, e, "rt-t4demo7k2p", "content/data.csv", "a,b\n")
	m = e.press(t, m, "f", "down")
	mustContain(t, keyLine(m), "peek")
	m = e.press(t, m, "K")
	if !plugintest.Ran(t, dir) {
		t.Fatalf("the plugin did not run:\n%s", m.View())
	}
	if _, env := plugintest.Recorded(t, dir); env["COLABDASH_FILE"] != "/content/data.csv" || env["COLABDASH_RUNTIME"] != "rt-t4demo7k2p" {
		t.Errorf("COLABDASH_FILE=%q, COLABDASH_RUNTIME=%q; want /content/data.csv, rt-t4demo7k2p", env["COLABDASH_FILE"], env["COLABDASH_RUNTIME"])
	}
	return m
}
