package state

import (
	"testing"
	"time"
)

// A hold holds while its last date is within HoldFresh of now, on either
// side, and not after; a holder dates it again every HoldBeatEvery.
func TestHoldLiveAndBeatDue(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		now  time.Time
		live bool
	}{
		{t0, true},
		{t0.Add(HoldFresh), true},
		{t0.Add(HoldFresh + time.Second), false}, // the holder was killed
		{t0.Add(-HoldFresh), true},
		{t0.Add(-HoldFresh - time.Second), false}, // dated far ahead
	} {
		if got := HoldLive(t0, c.now); got != c.live {
			t.Errorf("HoldLive(beat %v, now %v) = %v, want %v", t0, c.now.Sub(t0), got, c.live)
		}
	}
	if HoldBeatDue(t0, t0.Add(HoldBeatEvery-time.Second)) || !HoldBeatDue(t0, t0.Add(HoldBeatEvery)) || !HoldBeatDue(t0, t0.Add(-time.Second)) {
		t.Error("HoldBeatDue: want a beat every HoldBeatEvery, and after the clock went back")
	}
	if HoldBeatEvery*3 > HoldFresh {
		t.Error("a hold would go stale after fewer than three missed beats")
	}
}
