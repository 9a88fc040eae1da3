package state

import (
	"errors"
	"testing"
	"time"
)

// A token's EXPIRING threshold is the configured one until its lifetime is
// known, then at most a quarter of that lifetime, never under a second.
func TestExpiringThreshold(t *testing.T) {
	rn := NewRenewals(5 * time.Minute)
	for _, c := range []struct {
		life, want time.Duration
	}{
		{0, 5 * time.Minute},
		{time.Hour, 5 * time.Minute},
		{2 * time.Minute, 30 * time.Second},
		{2 * time.Second, time.Second},
	} {
		rn.Learn("r", c.life)
		if c.life == 0 {
			rn.Forget("r")
		}
		if got := rn.ExpiringThreshold("r", 5*time.Minute); got != c.want {
			t.Errorf("lifetime %v: threshold %v, want %v", c.life, got, c.want)
		}
	}
}

// The configured lead is when a token of unknown lifetime is renewed; no
// lead (0 or negative) means the 5-minute default, not renewing at the
// last instant.
func TestRenewalsLead(t *testing.T) {
	exp := t0.Add(time.Hour)
	for _, c := range []struct {
		lead, want time.Duration
	}{
		{0, 5 * time.Minute},
		{-time.Second, 5 * time.Minute},
		{2 * time.Minute, 2 * time.Minute},
		{10 * time.Minute, 10 * time.Minute},
	} {
		if at, ok := NewRenewals(c.lead).Due("r", exp, t0); !ok || exp.Sub(at) != c.want {
			t.Errorf("lead %v: renewed %v before expireTime (ok %v), want %v", c.lead, exp.Sub(at), ok, c.want)
		}
	}
}

// Once a token's lifetime is known it is renewed in its last tenth, at
// least 5 s ahead, but never before half of it has passed: a 6 s token is
// renewed 3 s before it lapses, not 1 s after it was issued.
func TestRenewalLeadForShortLivedTokens(t *testing.T) {
	for _, c := range []struct {
		life, want time.Duration
	}{
		{time.Hour, 5 * time.Minute},
		{10 * time.Minute, time.Minute},
		{2 * time.Minute, 12 * time.Second},
		{20 * time.Second, 5 * time.Second},
		{10 * time.Second, 5 * time.Second},
		{6 * time.Second, 3 * time.Second},
	} {
		rn := NewRenewals(5 * time.Minute)
		rn.Learn("r", c.life)
		exp := t0.Add(c.life)
		if at, _ := rn.Due("r", exp, t0); exp.Sub(at) != c.want {
			t.Errorf("%v token: renewed %v before expireTime, want %v", c.life, exp.Sub(at), c.want)
		}
	}
}

// A create reply without a lifetime (no expireTime) does not make a known
// one unknown again: the token keeps its lead and EXPIRING threshold.
func TestLearnKeepsAKnownLifetime(t *testing.T) {
	rn := NewRenewals(5 * time.Minute)
	rn.Learn("r", 2*time.Minute)
	rn.Learn("r", 0)
	rn.Learn("r", -time.Second)
	if lead, th := rn.LeadFor("r"), rn.ExpiringThreshold("r", 5*time.Minute); lead != 12*time.Second || th != 30*time.Second {
		t.Fatalf("after an unknown lifetime: lead %v, EXPIRING from %v; want 12s and 30s", lead, th)
	}
}

// Failures counts the failed renewals in a row, and a good one clears it.
func TestRenewalFailuresInARow(t *testing.T) {
	rn := NewRenewals(5 * time.Minute)
	if n := rn.Failures("r"); n != 0 {
		t.Fatalf("a runtime never renewed has %d failures", n)
	}
	exp := t0.Add(5 * time.Minute)
	down := errors.New("UNAVAILABLE")
	for i := 1; i <= 3; i++ {
		rn.Done("r", t0.Add(time.Duration(i)*time.Minute), exp, time.Time{}, down)
		if n := rn.Failures("r"); n != i {
			t.Fatalf("after %d failed renewals: %d failures", i, n)
		}
	}
	rn.Done("r", t0.Add(4*time.Minute), exp, t0.Add(time.Hour), nil)
	if n := rn.Failures("r"); n != 0 {
		t.Fatalf("after a good renewal: %d failures", n)
	}
}
