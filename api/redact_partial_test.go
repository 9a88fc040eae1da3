package api

import (
	"encoding/base64"
	"testing"
)

// Written for the mutants .ci/mutation left alive in the redactor's
// cut-short, JSON-escaped and base64 forms: the exact text that stays.
func TestRedactCutShortAndEncodedExactly(t *testing.T) {
	const sec = "0123456789abcdef"
	var r Redactor
	r.Add(sec, `se"cret-1234`, "s3cr3t")
	for in, want := range map[string]string{
		"tok 0123456789ab… end": "tok " + Redacted + "… end", // its start, cut short
		"x 0123456789":          "x " + Redacted,             // cut at the end of the text
		"01234567":              Redacted,                    // exactly 8 bytes of its start
		"0123456":               "0123456",                   // 7: too short to tell
		"cut …456789abcdef!":    "cut …" + Redacted + "!",    // its end, cut from the front
		"56789abcdef rest":      Redacted + " rest",          // its end at the start of the text
		"a 89abcdef b":          "a " + Redacted + " b",
		"end …89abcdef":         "end …" + Redacted,         // its end at the end of the text
		`{"k":"se\"cret-1234"}`: `{"k":"` + Redacted + `"}`, // JSON-escaped whole
		"basic " + base64.StdEncoding.EncodeToString([]byte("s3cr3t")) + " end": "basic " + Redacted + " end",
	} {
		if got := r.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// A secret split by control characters is a secret: a sanitizer that
// drops them (or a terminal that ignores them) joins it again, so the
// span redacted reaches over them. Text without controls is untouched
// around the match.
func TestRedactSecretSplitByControls(t *testing.T) {
	const sec = "ya29.SECRETTOKEN123456"
	var r Redactor
	r.Add(sec)
	for in, want := range map[string]string{
		"denied ya\a29.SECRETTOKEN1234\a56 now":             "denied " + Redacted + " now", // BEL inside its first and last 8 bytes
		"x ya29.SECRET\x1bTOKEN123456":                      "x " + Redacted,               // ESC
		"ya29.SECRETTOKEN\u0085123456 y":                    Redacted + " y",               // C1 NEL in UTF-8
		"a\tb ya29.SECRETTOKEN123456\n":                     "a\tb " + Redacted + "\n",     // controls outside it stay
		"ya29.SECRE\x00TTOK\x7fEN1234":                      Redacted,                      // NUL and DEL, cut short
		"\aclean text\a":                                    "\aclean text\a",              // nothing to redact
		"ya2\x079.SECRETTOKEN123456 ya29.SECRETTOKEN123456": Redacted + " " + Redacted,
	} {
		if got := r.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}
