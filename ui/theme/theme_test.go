package theme

import (
	"testing"
	"time"
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
		{"COLORFGBG dark", env("15;0"), mustNotQuery, Dark},
		{"COLORFGBG light", env("0;15"), mustNotQuery, Light},
		{"COLORFGBG with default", env("0;default;15"), mustNotQuery, Light},
		{"answer light", env(""), func() (bool, bool) { return false, true }, Light},
		{"answer dark", env(""), func() (bool, bool) { return true, true }, Dark},
		{"no answer", env(""), func() (bool, bool) { return false, false }, Dark},
		{"query stalls", env(""), stall, Dark},
		{"query panics", env(""), func() (bool, bool) { panic("tty gone") }, Dark},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			done := make(chan string, 1)
			// Only the stalling query may reach the time limit: an answer
			// must win however slowly a busy machine schedules it.
			limit := time.Minute
			if c.name == "query stalls" {
				limit = 20 * time.Millisecond
			}
			go func() { done <- detectTheme(c.getenv, c.query, limit) }()
			select {
			case got := <-done:
				if got != c.want {
					t.Fatalf("got %s, want %s", got, c.want)
				}
			case <-time.After(2 * time.Minute):
				t.Fatal("detection stalled")
			}
		})
	}
}

// NO_COLOR set to anything, "0" included, turns colour off; unset or
// empty leaves it on (no-color.org, unlike strconv.ParseBool-based checks).
func TestNoColorAnyValue(t *testing.T) {
	for v, want := range map[string]bool{"": true, "1": false, "yes": false, "true": false, "0": false} {
		env := func(k string) string { return map[string]string{"NO_COLOR": v}[k] }
		if ColorOn(ColorAuto, true, env) != want {
			t.Errorf("NO_COLOR=%q on a terminal: colour %v, want %v", v, !want, want)
		}
	}
}

// ColorOn follows gh's rules: --color always/never wins over the
// environment; CLICOLOR_FORCE other than "0" forces colour on a pipe, even
// beside NO_COLOR; NO_COLOR or CLICOLOR=0 turns it off on a terminal;
// otherwise a terminal has colour and a pipe has none.
func TestColorOnFollowsGhRules(t *testing.T) {
	for _, c := range []struct {
		mode string
		env  map[string]string
		tty  bool
		want bool
	}{
		{"", nil, true, true},
		{"", nil, false, false},
		{"auto", nil, true, true},
		{"", map[string]string{"NO_COLOR": "1"}, true, false},
		{"", map[string]string{"CLICOLOR": "0"}, true, false},
		{"", map[string]string{"CLICOLOR": "1"}, true, true},
		{"", map[string]string{"CLICOLOR": "1"}, false, false},
		{"", map[string]string{"CLICOLOR_FORCE": "1"}, false, true},
		{"", map[string]string{"CLICOLOR_FORCE": "0"}, false, false},
		{"", map[string]string{"CLICOLOR_FORCE": "1", "NO_COLOR": "1"}, false, true},
		{"never", map[string]string{"CLICOLOR_FORCE": "1"}, true, false},
		{"always", map[string]string{"NO_COLOR": "1", "CLICOLOR": "0"}, false, true},
	} {
		got := ColorOn(c.mode, c.tty, func(k string) string { return c.env[k] })
		if got != c.want {
			t.Errorf("--color %q, env %v, terminal %v: colour %v, want %v", c.mode, c.env, c.tty, got, c.want)
		}
	}
	if CheckColorMode("sometimes") == nil || CheckColorMode("always") != nil || CheckColorMode("") != nil {
		t.Error("CheckColorMode accepts only auto, always, never and nothing")
	}
}
