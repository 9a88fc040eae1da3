package state

import (
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
