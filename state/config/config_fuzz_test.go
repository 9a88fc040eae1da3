package config

import (
	"errors"
	"os"
	"strings"
	"testing"
	"unicode"
)

// FuzzLoadConfig feeds any bytes to the config loader: it never panics; a
// refusal is a *ConfigError whose Error() is one clean line with a line
// number inside the file; an accepted file's effective config parses back
// to the same settings.
func FuzzLoadConfig(f *testing.F) {
	for _, name := range []string{"testdata/full.yaml"} {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		"",
		"# only a comment\n",
		"refreshInterval: 10s\n",
		"refreshInterval: 1s\n",
		"refreshInterval: soon\n",
		"theme: light\nprofile: work\nprofiles:\n  work:\n    credentials: accessToken\n    accessTokenFile: /tmp/t\n",
		"profiles:\n  demo:\n    credentials: adc\n",
		"keys:\n  refresh: [ctrl+r, r]\n",
		"keys:\n  nosuchaction: x\n",
		"defaultRuntimeSpec:\n  variant: QPU\n  accelerator: Q7\n  shape: HUGE\n",
		"refreshInterval: 10s\nrefreshInterval: 20s\n",
		"a: b\n---\nc: d\n",
		"[1, 2\n",
		"profiles: {x: {endpoint: \"http://[::1\"}}\n",
		"\x00\x01\x1b[2J: 1\n",
		"autoRenew: yes\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSettings("c.yaml", data, SettingsOptions{Actions: testActions})
		if err != nil {
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("%q: error %T %v, want *ConfigError", data, err, err)
			}
			line := err.Error()
			if !strings.HasPrefix(line, "config c.yaml") {
				t.Fatalf("%q: error does not name the file: %q", data, line)
			}
			for _, r := range line {
				if unicode.IsControl(r) {
					t.Fatalf("%q: error has control character %U: %q", data, r, line)
				}
			}
			// YAML breaks lines at \n, \r\n and a lone \r.
			if ce.Line < 0 || ce.Line > strings.Count(string(data), "\n")+strings.Count(string(data), "\r")+1 {
				t.Fatalf("%q: line %d outside the file", data, ce.Line)
			}
			return
		}
		eff := s.Effective()
		again, err := ParseSettings("c.yaml", []byte(eff), SettingsOptions{Actions: testActions})
		if err != nil {
			t.Fatalf("%q: its effective config does not parse: %v\n%s", data, err, eff)
		}
		if again.Effective() != eff {
			t.Fatalf("%q: round trip changed the settings:\n%s\n---\n%s", data, eff, again.Effective())
		}
	})
}
