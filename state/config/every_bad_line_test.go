package config

import (
	"errors"
	"strings"
	"testing"
)

// A config with several bad lines names every one, in line order, each
// with its line number; Error still says the first alone (one line, as
// the dashboard and every verb print it), and nothing is half-applied.
func TestEveryBadLineIsReported(t *testing.T) {
	src := "theme: blue\n" + // 1
		"refreshInterval: 1x\n" + // 2
		"colour: dark\n" + // 3: unknown key
		"keys:\n" + // 4
		"  nope: x\n" + // 5: unknown action
		"  quit: q\n" + // 6: good
		"profiles:\n" + // 7
		"  work:\n" + // 8
		"    endpoint: ftp://x\n" + // 9
		"  home:\n" + // 10
		"    credentials: magic\n" // 11
	s, err := parse(t, src)
	var ce *ConfigError
	if s != nil || !errors.As(err, &ce) {
		t.Fatalf("settings %v, error %v; want none and a *ConfigError", s, err)
	}
	want := []struct {
		line int
		says string
	}{{1, `theme: "blue"`}, {2, `refreshInterval: "1x"`}, {3, `unknown key "colour"`}, {5, `unknown action "nope"`},
		{9, "profiles.work.endpoint"}, {11, "profiles.home.credentials"}}
	all := ce.All()
	if len(all) != len(want) {
		var got []string
		for _, e := range all {
			got = append(got, e.Error())
		}
		t.Fatalf("%d bad lines reported, want %d:\n%s", len(all), len(want), strings.Join(got, "\n"))
	}
	for i, w := range want {
		if all[i].Line != w.line || !strings.Contains(all[i].Msg, w.says) || !strings.HasPrefix(all[i].Error(), "config /cfg/config.yaml:") {
			t.Errorf("bad line %d: %q (line %d), want line %d saying %s", i+1, all[i].Error(), all[i].Line, w.line, w.says)
		}
	}
	if strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), ":1: theme") {
		t.Errorf("Error() = %q, want the first bad line alone", err.Error())
	}
	// One bad line: no more.
	if _, err := parse(t, "theme: auto\nrefreshInterval: 1x\n"); !errors.As(err, &ce) || len(ce.More) != 0 || ce.Line != 2 {
		t.Errorf("one bad line: %v (more %d)", err, len(ce.More))
	}
}
