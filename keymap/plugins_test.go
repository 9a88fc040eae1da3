package keymap

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

func pluginPress(s string) tea.KeyMsg {
	if s == "ctrl+j" {
		return tea.KeyMsg{Type: tea.KeyCtrlJ}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

// A plugin key is matched in its scope only, shows in the help, may not
// shadow a built-in key read there nor another plugin's, and a dangerous
// one is off (but recognised) under --readonly.
func TestPluginKeys(t *testing.T) {
	k := Default()
	if err := k.AddPlugin("jupyter", "runtimes", "ctrl+j", "open Jupyter", false); err != nil {
		t.Fatal(err)
	}
	if err := k.AddPlugin("wipe", "runtimes", "W", "", true); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ scope, key, want string }{
		{"runtimes", "r", `conflict: key "r" is refresh's in the dashboard`},
		{"sessions", "j", `conflict: key "j" is down's in the sessions pane`},
		{"files", "d", `conflict: key "d" is files_download's in the files pane`},
		{"runtimes", "W", `plugin wipe's too`},
		{"runtimes", "ctrl+c", "always quits"},
		{"runtimes", "hyper+x", "is not a key name"},
		{"kernels", "X", "unknown plugin scope"},
	} {
		if err := k.AddPlugin("x", c.scope, c.key, "", false); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q: %v, want %q", c.scope, c.key, err, c.want)
		}
	}
	// W is free in the sessions pane.
	if err := k.AddPlugin("other", "sessions", "W", "", false); err != nil {
		t.Errorf("the same key in another scope: %v", err)
	}
	if p, off, ok := k.PluginMatch("runtimes", pluginPress("ctrl+j")); !ok || off || p.Name != "jupyter" {
		t.Errorf("ctrl+j in the runtimes table: %+v %v %v", p, off, ok)
	}
	if _, _, ok := k.PluginMatch("files", pluginPress("ctrl+j")); ok {
		t.Error("a runtimes plugin matched in the files pane")
	}
	var help []string
	for _, g := range k.HelpGroups() {
		for _, b := range g.Keys {
			help = append(help, g.Title+"|"+b.Help().Key+"|"+b.Help().Desc)
		}
	}
	if h := strings.Join(help, "\n"); !strings.Contains(h, "plugins: runtimes table|ctrl+j|open Jupyter") || !strings.Contains(h, "plugins: runtimes table|W|wipe") {
		t.Errorf("the help does not list the plugins:\n%s", h)
	}
	k.SetReadOnly(true)
	if p, off, ok := k.PluginMatch("runtimes", pluginPress("W")); !ok || !off || p.Name != "wipe" {
		t.Errorf("W under --readonly: %+v disabled %v matched %v; want the plugin, disabled", p, off, ok)
	}
	if _, off, _ := k.PluginMatch("runtimes", pluginPress("ctrl+j")); off {
		t.Error("a plugin that is not dangerous is off under --readonly")
	}
	for _, b := range k.PluginBindings("runtimes") {
		if b.Help().Desc == "wipe" {
			t.Error("the help lists a dangerous plugin under --readonly")
		}
	}
}
