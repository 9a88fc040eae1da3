// Package termtexttest holds the assertions tests make on text bound for
// a terminal: that it carries nothing a terminal, or a shell's line
// editor, acts on. It is imported by tests only.
package termtexttest

import "testing"

// NoControls fails t (fatally) when s holds a C0 control other than
// newline and tab (NUL and ESC included), DEL, or a C1 control; the
// message names what (the text's origin, e.g. "stdout"), the first such
// character and s quoted.
func NoControls(t testing.TB, what, s string) {
	t.Helper()
	for _, r := range s {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f {
			t.Fatalf("%s holds control character %U:\n%q", what, r, s)
		}
	}
}

// Inert is NoControls, and also fails t (fatally) when s holds a
// bidirectional control (U+202A to U+202E, U+2066 to U+2069), which
// reorders what a terminal draws.
func Inert(t testing.TB, what, s string) {
	t.Helper()
	NoControls(t, what, s)
	for _, r := range s {
		if r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
			t.Fatalf("%s holds bidirectional control %U: %q", what, r, s)
		}
	}
}
