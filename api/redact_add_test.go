package api

import (
	"testing"
)

// Add is called with every reply that carries a proxy token, nearly
// always one already registered: that costs no allocation, leaves the
// matcher as it was built (no rebuild), and a new value is still learnt
// afterwards.
func TestRedactorAddKnownDoesNoWork(t *testing.T) {
	var r Redactor
	r.Add("tok-aaaaaaaaaaaa", "tok-bbbbbbbbbbbb", "a-longer-secret-value")
	r.Redact("")
	before := r.m
	if allocs := testing.AllocsPerRun(100, func() { r.Add(" tok-bbbbbbbbbbbb", "tok-aaaaaaaaaaaa", "short") }); allocs != 0 {
		t.Errorf("Add of known tokens allocates %.0f times a call; want 0 (no forms rebuilt, no re-sort)", allocs)
	}
	r.Redact("")
	if r.m != before {
		t.Errorf("Add of known tokens rebuilt the matcher")
	}
	r.Add("tok-bbbbbbbbbbbb", "tok-cccccccccccc")
	if got := r.Redact("a tok-cccccccccccc b tok-bbbbbbbbbbbb"); got != "a "+Redacted+" b "+Redacted {
		t.Errorf("after adding a new token with a known one: %q", got)
	}
}

// BenchmarkRedactorAddKnown is Add of a proxy token already registered,
// among the tokens of 50 runtimes (what every list_runtimes reply does).
func BenchmarkRedactorAddKnown(b *testing.B) {
	var r Redactor
	for i := range 50 {
		r.Add("proxy-token-" + string(rune('A'+i%26)) + string(rune('a'+i/26)) + "-0123456789abcdef")
	}
	tok := "proxy-token-Ba-0123456789abcdef"
	r.Add(tok)
	b.ReportAllocs()
	for b.Loop() {
		r.Add(tok)
	}
}
