package monitor

import (
	"testing"
	"time"

	apimon "github.com/colabdash/colabdash/api/monitor"
)

// A kernel's story over three kernel lists, as a Store sees it: what the
// runtime reads after each. A kernel that was up and is starting again
// was restarted (it died: an out-of-memory kill) however long it waits
// for a connection; one that never came up is still "never connected";
// a dead kernel is no activity.
func TestKernelRestartedAndDead(t *testing.T) {
	k := func(id, state string, last time.Time, conns int) apimon.Kernel {
		return apimon.Kernel{ID: id, ExecutionState: state, LastActivity: last, Connections: conns}
	}
	for _, c := range []struct {
		name  string
		lists [3][]apimon.Kernel
		state State
		for_  time.Duration // how long the verdict has held, at the third list
		idle  int
	}{
		{"up, then starting again with no connection: restarted, for as long as it has been starting",
			[3][]apimon.Kernel{{k("a", "idle", t0, 1)}, {k("a", "starting", t0.Add(time.Minute), 0)}, {k("a", "starting", t0.Add(time.Minute), 0)}},
			StateRestarted, 4 * time.Minute, 0},
		{"seen autorestarting, then starting: restarted",
			[3][]apimon.Kernel{{k("a", "autorestarting", t0, 1)}, {k("a", "starting", t0.Add(time.Minute), 0)}, {k("a", "starting", t0.Add(time.Minute), 0)}},
			StateRestarted, 4 * time.Minute, 0},
		{"never up, starting for minutes with no connection: never connected",
			[3][]apimon.Kernel{{k("a", "starting", t0, 0)}, {k("a", "starting", t0, 0)}, {k("a", "starting", t0, 0)}},
			StateNeverConnected, 0, 0},
		{"restarted, then used again: idle",
			[3][]apimon.Kernel{{k("a", "idle", t0, 1)}, {k("a", "starting", t0.Add(time.Minute), 0)}, {k("a", "idle", t0.Add(4*time.Minute), 1)}},
			StateIdle, time.Minute, 1},
		{"a dead kernel beside an idle one: idle since the idle one's activity, not the death",
			[3][]apimon.Kernel{nil, nil, {k("a", "idle", t0, 1), k("b", "dead", t0.Add(4*time.Minute), 0)}},
			StateIdle, 5 * time.Minute, 1},
		{"every kernel dead: dead since the newest death",
			[3][]apimon.Kernel{nil, nil, {k("a", "dead", t0, 0), k("b", "dead", t0.Add(3*time.Minute), 0)}},
			StateDead, 2 * time.Minute, 0},
		{"a dead kernel beside a busy one: busy",
			[3][]apimon.Kernel{nil, nil, {k("a", "busy", t0.Add(time.Minute), 1), k("b", "dead", t0.Add(4*time.Minute), 0)}},
			StateBusy, 4 * time.Minute, 0},
		{"a kernel up in a list it has since left does not make a new one of the same id restarted",
			[3][]apimon.Kernel{{k("a", "idle", t0, 1)}, {}, {k("a", "starting", t0.Add(4*time.Minute), 1)}},
			StateStarting, 0, 0},
	} {
		s := NewStore()
		for i, ks := range c.lists {
			if ks != nil {
				s.RecordKernels("rt", t0.Add(time.Duration(i)*time.Minute), ks, nil)
			}
		}
		now := t0.Add(5 * time.Minute)
		a := s.Get("rt").Activity(now)
		if a.State != c.state || a.For != c.for_ || a.Idle() != c.idle {
			t.Errorf("%s: %s for %v with %d idle, want %s for %v with %d idle (%+v)", c.name, a.State, a.For, a.Idle(), c.state, c.for_, c.idle, a)
		}
	}
}

// Judge without a history knows nothing of earlier lists: a starting
// kernel is starting or never connected, never restarted.
func TestJudgeWithoutHistoryNeverSaysRestarted(t *testing.T) {
	a := Judge([]apimon.Kernel{{ID: "a", ExecutionState: "starting", LastActivity: t0, Connections: 1}}, t0.Add(time.Hour), nil)
	if a.State != StateStarting || a.Restarted != 0 {
		t.Errorf("%+v", a)
	}
	if got := []string{StateRestarted.String(), StateDead.String()}; got[0] != "restarted" || got[1] != "dead" {
		t.Errorf("words %q", got)
	}
}
