package api

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeClock is a clock a test moves by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// listings registers n proxy tokens the way a server that sends a new
// token with every listing makes colabdash see them: one a round, each
// valid for an hour, the clock moving by every between rounds. It
// returns the tokens in order.
func listings(r *Redactor, c *fakeClock, n int, every time.Duration) []string {
	toks := make([]string, n)
	for i := range toks {
		sum := sha256.Sum256([]byte(fmt.Sprint(i)))
		toks[i] = "pt-" + hex.EncodeToString(sum[:12])
		r.AddFields(map[string]any{"connectionInfo": map[string]any{"token": toks[i],
			"expireTime": c.t.Add(time.Hour).Format(time.RFC3339), "url": "https://127.0.0.1/"}})
		c.t = c.t.Add(every)
	}
	return toks
}

// A server that sends a new proxy token with every listing: the tokens
// that can no longer be valid are forgotten, every one still valid is
// redacted in every form, and the redactor holds as many values after
// 24,000 listings as after a few hours of them.
func TestRedactorForgetsTokensPastTheirLife(t *testing.T) {
	c := &fakeClock{t: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)}
	var r Redactor
	r.SetClock(c.now)
	r.Add("ya29.a-credential-that-stays")
	toks := listings(&r, c, 24000, 2*time.Second)
	life := int((time.Hour + ForgetGrace) / (2 * time.Second))
	if n := r.Known(); n > life+2 {
		t.Errorf("after 24,000 listings the redactor holds %d values; want at most %d (the tokens of the last hour and its grace, and the credential)", n, life+2)
	}
	for _, tok := range toks[len(toks)-life+10:] {
		if got := r.Redact("echo " + strings.ToUpper(tok) + " " + tok[3:]); got != "echo "+Redacted+" "+Redacted {
			t.Fatalf("a token still valid is not redacted: %q", got)
		}
	}
	if got := r.Redact("old " + toks[0]); got != "old "+toks[0] {
		t.Errorf("a token long expired is still redacted (kept forever): %q", got)
	}
	if got := r.Redact("x ya29.a-credential-that-stays"); strings.Contains(got, "credential") {
		t.Errorf("a credential was forgotten: %q", got)
	}
}

// A token a listing still carries is kept past its expireTime; one a
// server claims lives for years is forgotten MaxTokenLife and the grace
// after the last reply that carried it; one never carried again is
// kept until its expireTime and the grace.
func TestRedactorForgetTimes(t *testing.T) {
	c := &fakeClock{t: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)}
	var r Redactor
	r.SetClock(c.now)
	carried, forever, once := "carried-0123456789", "forever-0123456789", "once-0123456789ab"
	r.AddExpiring(c.t.Add(time.Hour), carried)
	r.AddExpiring(c.t.Add(100*365*24*time.Hour), forever)
	r.AddExpiring(c.t.Add(time.Hour), once)
	redacted := func(tok string) bool { return r.Redact(tok) == Redacted }
	for range 90 { // 90 minutes of listings that carry one of them
		c.t = c.t.Add(time.Minute)
		r.AddExpiring(time.Date(2026, 5, 1, 1, 0, 0, 0, time.UTC), carried)
	}
	if !redacted(carried) || !redacted(forever) {
		t.Fatalf("at 1h30: carried %v, forever %v; want both redacted", redacted(carried), redacted(forever))
	}
	if redacted(once) {
		t.Errorf("at 1h30 a token expired at 1h and never carried again is still redacted")
	}
	c.t = time.Date(2026, 5, 1, 1, 30, 0, 0, time.UTC).Add(ForgetGrace - time.Second)
	if !redacted(carried) {
		t.Errorf("a token carried a grace ago is already forgotten")
	}
	c.t = time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC).Add(MaxTokenLife + ForgetGrace)
	if redacted(carried) || redacted(forever) {
		t.Errorf("past MaxTokenLife and the grace: carried %v, forever %v; want both forgotten", redacted(carried), redacted(forever))
	}
}

// BenchmarkRedactManyTokensSeen is one redaction of a 1 KiB line after
// 24,000 listings that each brought a new proxy token (13 hours of
// `top --watch` against such a server), beside the same redaction with
// only the live tokens ever seen (x-fresh, the ratio) and with one token
// (x-one): CI holds both flat (.ci/run). The three are timed in turn,
// 15 rounds of 20 redactions each, and each ratio is the median of the
// rounds' ratios: a busy moment slows the three alike. "values" is how
// many secrets the redactor still holds (the live tokens only).
func BenchmarkRedactManyTokensSeen(b *testing.B) {
	line := strings.Repeat("disk kernel 12.5 GiB used of 100 GiB, gpu Tesla T4 0.42; ", 18)[:1024]
	c := &fakeClock{t: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)}
	var seen Redactor
	seen.SetClock(c.now)
	toks := listings(&seen, c, 24000, 2*time.Second)
	var fresh Redactor
	fc := &fakeClock{t: c.t}
	fresh.SetClock(fc.now)
	for _, tok := range toks[len(toks)-seen.Known():] {
		fresh.AddExpiring(fc.t.Add(time.Hour), tok)
	}
	var one Redactor
	one.AddExpiring(fc.t.Add(time.Hour), toks[len(toks)-1])
	const rounds, each = 15, 20
	timeOf := func(r *Redactor) time.Duration {
		start := time.Now()
		for range each {
			r.Redact(line)
		}
		return time.Since(start)
	}
	for _, r := range []*Redactor{&seen, &fresh, &one} {
		r.Redact(line) // built once before timing
	}
	b.ResetTimer()
	for range b.N {
		seen.Redact(line)
	}
	b.StopTimer()
	var xFresh, xOne []float64
	for range rounds {
		after, base, single := timeOf(&seen), timeOf(&fresh), timeOf(&one)
		xFresh = append(xFresh, float64(after)/float64(base))
		xOne = append(xOne, float64(after)/float64(single))
	}
	b.ReportMetric(median(xFresh), "x-fresh")
	b.ReportMetric(median(xOne), "x-one")
	b.ReportMetric(float64(seen.Known()), "values")
}

// median is the middle value of xs (sorted in place).
func median(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}
