package config

import (
	"strings"
	"testing"
	"time"
)

const pluginsYAML = `plugins:
  jupyter:
    key: ctrl+j
    description: open Jupyter
    scope: runtimes
    command: colabdash
    args: [forward, --open]
  wipe:
    key: W
    scope: sessions
    command: /usr/local/bin/wipe
    confirm: true
    dangerous: true
    background: true
    token: true
    timeout: 1m
`

// Plugins are read in file order with every field; the schema accepts
// the same file.
func TestPluginsParse(t *testing.T) {
	s, err := ParseSettings("c.yaml", []byte(pluginsYAML), SettingsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Plugins) != 2 {
		t.Fatalf("plugins: %+v", s.Plugins)
	}
	j, w := s.Plugins[0], s.Plugins[1]
	if j.Name != "jupyter" || j.Key != "ctrl+j" || j.Scope != PluginScopeRuntimes || j.Command != "colabdash" ||
		strings.Join(j.Args, " ") != "forward --open" || j.Confirm || j.Dangerous || j.Background || j.Token || j.Timeout != DefaultPluginTimeout {
		t.Errorf("jupyter: %+v", j)
	}
	if !w.Confirm || !w.Dangerous || !w.Background || !w.Token || w.Timeout != time.Minute || s.Line("plugins.wipe.key") != 9 {
		t.Errorf("wipe: %+v, key on line %d", w, s.Line("plugins.wipe.key"))
	}
	if err := validAgainstSchema(t, pluginsYAML); err != nil {
		t.Errorf("the schema refuses the plugins: %v", err)
	}
	if !strings.Contains(s.Effective(), "  wipe:\n    key: W\n    scope: sessions\n") {
		t.Errorf("config does not print the plugins:\n%s", s.Effective())
	}
}

// A bad plugin is one line naming its line and what is accepted.
func TestPluginErrorsNameTheLine(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{"plugins:\n  x:\n    key: J\n    scope: kernels\n    command: true\n", "c.yaml:4: plugins.x.scope: \"kernels\" is not accepted (accepted: runtimes, sessions, files)"},
		{"plugins:\n  x:\n    key: J\n    scope: files\n", "c.yaml:2: plugins.x: no command"},
		{"plugins:\n  x:\n    key: J\n    scope: files\n    command: c\n    args: -rf\n", "c.yaml:6: plugins.x.args must be a list"},
		{"plugins:\n  x:\n    key: J\n    scope: files\n    command: c\n    shell: true\n", "c.yaml:6: unknown key \"shell\" in plugins.x"},
		{"plugins:\n  x y:\n    key: J\n", "c.yaml:2: plugin name \"x y\""},
	} {
		_, err := ParseSettings("c.yaml", []byte(c.doc), SettingsOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.doc, err, c.want)
		}
		if validAgainstSchema(t, c.doc) == nil {
			t.Errorf("the schema accepts %q", c.doc)
		}
	}
}
