package api

import (
	"strings"
	"testing"
)

// The quick test in front of Redact's patterns never lets a secret they
// catch through: every sample a pattern redacts is one mayHoldPattern
// sends to them, and plain text comes back as it was, without them.
func TestMayHoldPatternCoversRedact(t *testing.T) {
	for _, s := range []string{
		`{"access_token":"abc.def"}`, `"token" : "x"`, `Authorization: Bearer abcdef`, "bearer\tabcdefgh", `BEARER abc`,
		`ya29.a0AfH6SMBx`, `YA29.ABC`, `X-Colab-Runtime-Proxy-Token: tok123`, `authorization=abc`, `?token=abc&x=1`,
		`client_secret=s3cr3t&refresh_token=r`, "-----BEGIN PRIVATE KEY-----\nMIIE", `password=hunter2`,
	} {
		if !mayHoldPattern(s) {
			t.Errorf("mayHoldPattern(%q) = false", s)
		}
		if (&Redactor{}).Redact(s) == s {
			t.Errorf("Redact(%q) changed nothing: not a sample of a pattern", s)
		}
	}
	for _, s := range []string{"img_000001_augmented_sample.png", "       0 B  2026-11-01  model (v2).pt", "Bear ears", ""} {
		if mayHoldPattern(s) {
			t.Errorf("mayHoldPattern(%q) = true for plain text", s)
		}
	}
	// Registered secrets are still replaced in plain text.
	r := &Redactor{}
	r.Add("plainsecretvalue123")
	if got := r.Redact("file_plainsecretvalue123.txt"); strings.Contains(got, "plainsecretvalue123") {
		t.Errorf("Redact = %q", got)
	}
}
