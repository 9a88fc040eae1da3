package monitor

import (
	"testing"
	"time"

	apimon "github.com/colabdash/colabdash/api/monitor"
)

// A last_activity exactly ActivityHorizon away, either way, still counts
// (the newest one decides "idle for"); a second further it is no time at
// all.
func TestJudgeActivityHorizonIsInclusive(t *testing.T) {
	now := t0
	hourAgo := kernel("idle", now.Add(-time.Hour), 1)
	for _, c := range []struct {
		name  string
		last  time.Time
		since time.Time
		for_  time.Duration
	}{
		{"a year ago exactly", now.Add(-ActivityHorizon), now.Add(-time.Hour), time.Hour},
		{"ahead by the horizon exactly", now.Add(ActivityHorizon), now.Add(ActivityHorizon), 0},
		{"a second past the horizon", now.Add(-ActivityHorizon - time.Second), now.Add(-time.Hour), time.Hour},
		{"a second ahead of the horizon", now.Add(ActivityHorizon + time.Second), now.Add(-time.Hour), time.Hour},
	} {
		// With an idle kernel an hour ago beside it: the other's time,
		// when it counts, is the newer one only when it is in the future.
		a := Judge([]apimon.Kernel{hourAgo, {ID: "k2", ExecutionState: "idle", LastActivity: c.last}}, now, nil)
		if a.State != StateIdle || !a.Since.Equal(c.since) || a.For != c.for_ {
			t.Errorf("%s: %s since %v for %v, want since %v for %v", c.name, a.State, a.Since, a.For, c.since, c.for_)
		}
	}
	// Alone, a time exactly a year old is the idle time shown.
	a := Judge([]apimon.Kernel{{ID: "k", ExecutionState: "idle", LastActivity: now.Add(-ActivityHorizon)}}, now, nil)
	if a.For != ActivityHorizon || !a.IdleWarning() {
		t.Errorf("idle a year exactly: %+v", a)
	}
}

// The idle warning starts at IdleWarnAfter exactly.
func TestIdleWarningAtExactlyIdleWarnAfter(t *testing.T) {
	a := Judge([]apimon.Kernel{kernel("idle", t0.Add(-IdleWarnAfter), 1)}, t0, nil)
	if a.For != IdleWarnAfter || !a.IdleWarning() {
		t.Errorf("idle for %v: warning %v, want one", a.For, a.IdleWarning())
	}
}

// A kernel starting for NeverConnectedAfter exactly is still starting;
// past it, never connected.
func TestNeverConnectedOnlyPastNeverConnectedAfter(t *testing.T) {
	at := Judge([]apimon.Kernel{kernel("starting", t0.Add(-NeverConnectedAfter), 0)}, t0, nil)
	if at.State != StateStarting || at.Starting != 1 {
		t.Errorf("starting for %v exactly: %+v", NeverConnectedAfter, at)
	}
	past := Judge([]apimon.Kernel{kernel("starting", t0.Add(-NeverConnectedAfter-time.Nanosecond), 0)}, t0, nil)
	if past.State != StateNeverConnected || past.NeverConnected != 1 {
		t.Errorf("starting for just over %v: %+v", NeverConnectedAfter, past)
	}
}
