package ui

import (
	"testing"
	"time"
)

// The config's renewLead and autoRenew reach the renewal loop: with a
// one-minute lead only the expired token is renewed, not the one with
// 4:47 left; with autoRenew off nothing is.
func TestRenewLeadAndNoAutoRenew(t *testing.T) {
	f, _, m := fixture(t)
	m.opts.RenewLead = time.Minute
	m.calls.renew.Lead = time.Minute // what New makes of Options.RenewLead
	m, cmd := update(m, tickMsg{gen: m.life.tickGen})
	m, _ = run(t, m, cmd)
	if got := f.count("get_runtime"); got != 1 {
		t.Fatalf("renewLead 1m: %d get_runtime calls, want 1 (only the expired token)", got)
	}
	f2, _, m2 := fixture(t)
	m2.opts.NoAutoRenew = true
	m2, cmd = update(m2, tickMsg{gen: m2.life.tickGen})
	run(t, m2, cmd)
	if got := f2.count("get_runtime"); got != 0 {
		t.Fatalf("autoRenew off: %d get_runtime calls", got)
	}
	if n := New(Options{Service: f, ExpiringThreshold: 7 * time.Minute}); n.opts.RenewLead != 7*time.Minute {
		t.Fatalf("RenewLead default %v, want the expiring threshold", n.opts.RenewLead)
	}
}
