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
		dead  int
	}{
		{"up, then starting again with no connection: restarted, for as long as it has been starting",
			[3][]apimon.Kernel{{k("a", "idle", t0, 1)}, {k("a", "starting", t0.Add(time.Minute), 0)}, {k("a", "starting", t0.Add(time.Minute), 0)}},
			StateRestarted, 4 * time.Minute, 0, 0},
		{"seen autorestarting, then starting: restarted",
			[3][]apimon.Kernel{{k("a", "autorestarting", t0, 1)}, {k("a", "starting", t0.Add(time.Minute), 0)}, {k("a", "starting", t0.Add(time.Minute), 0)}},
			StateRestarted, 4 * time.Minute, 0, 0},
		{"never up, starting for minutes with no connection: never connected",
			[3][]apimon.Kernel{{k("a", "starting", t0, 0)}, {k("a", "starting", t0, 0)}, {k("a", "starting", t0, 0)}},
			StateNeverConnected, 0, 0, 0},
		{"restarted, then used again: idle",
			[3][]apimon.Kernel{{k("a", "idle", t0, 1)}, {k("a", "starting", t0.Add(time.Minute), 0)}, {k("a", "idle", t0.Add(4*time.Minute), 1)}},
			StateIdle, time.Minute, 1, 0},
		{"a dead kernel beside an idle one: idle since the idle one's activity, not the death",
			[3][]apimon.Kernel{nil, nil, {k("a", "idle", t0, 1), k("b", "dead", t0.Add(4*time.Minute), 0)}},
			StateIdle, 5 * time.Minute, 1, 1},
		{"every kernel dead: dead since the newest death",
			[3][]apimon.Kernel{nil, nil, {k("a", "dead", t0, 0), k("b", "dead", t0.Add(3*time.Minute), 0)}},
			StateDead, 2 * time.Minute, 0, 2},
		{"a dead kernel beside a busy one: busy",
			[3][]apimon.Kernel{nil, nil, {k("a", "busy", t0.Add(time.Minute), 1), k("b", "dead", t0.Add(4*time.Minute), 0)}},
			StateBusy, 4 * time.Minute, 0, 1},
		{"a kernel up in a list it has since left does not make a new one of the same id restarted",
			[3][]apimon.Kernel{{k("a", "idle", t0, 1)}, {}, {k("a", "starting", t0.Add(4*time.Minute), 1)}},
			StateStarting, 0, 0, 0},
		{"up, then gone from the list (the server dropped it when its restarts failed): dead since the first list without it",
			[3][]apimon.Kernel{{k("a", "idle", t0, 0)}, {}, {}},
			StateDead, 4 * time.Minute, 0, 1},
		{"never up, then gone: no kernels (it never ran anything)",
			[3][]apimon.Kernel{{k("a", "starting", t0, 0)}, {}, {}},
			StateNoKernels, 0, 0, 0},
		{"up, gone, then a new kernel started: the new kernel's word alone",
			[3][]apimon.Kernel{{k("a", "idle", t0, 0)}, {}, {k("b", "idle", t0.Add(2*time.Minute), 0)}},
			StateIdle, 3 * time.Minute, 1, 0},
		{"replaced between two lists: the new kernel's word alone",
			[3][]apimon.Kernel{nil, {k("a", "idle", t0, 0)}, {k("b", "starting", t0.Add(2*time.Minute), 1)}},
			StateStarting, 0, 0, 0},
		{"one of two gone, the other idle: idle, one dead",
			[3][]apimon.Kernel{{k("a", "idle", t0, 0), k("b", "busy", t0, 1)}, {k("a", "idle", t0, 0)}, {k("a", "idle", t0, 0)}},
			StateIdle, 5 * time.Minute, 1, 1},
	} {
		s := NewStore()
		for i, ks := range c.lists {
			if ks != nil {
				s.RecordKernels("rt", t0.Add(time.Duration(i)*time.Minute), ks, nil)
			}
		}
		now := t0.Add(5 * time.Minute)
		a := s.Get("rt").Activity(now)
		if a.State != c.state || a.For != c.for_ || a.Idle() != c.idle || a.Dead != c.dead {
			t.Errorf("%s: %s for %v with %d idle %d dead, want %s for %v with %d idle %d dead (%+v)",
				c.name, a.State, a.For, a.Idle(), a.Dead, c.state, c.for_, c.idle, c.dead, a)
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

// A runtime whose only kernel died for good (the server dropped it and
// its session) reads dead by the kernel signal, not "no kernels", and a
// terminal typed in since keeps it busy as ever.
func TestVanishedKernelVerdict(t *testing.T) {
	s := NewStore()
	s.RecordKernels("rt", t0, []apimon.Kernel{{ID: "a", ExecutionState: "idle", LastActivity: t0}}, nil)
	s.RecordKernels("rt", t0.Add(time.Minute), []apimon.Kernel{}, nil)
	s.RecordTerminals("rt", t0.Add(time.Minute), nil, nil)
	s.RecordJobs("rt", 0, time.Time{}, true)
	now := t0.Add(3 * time.Minute)
	v := s.Get("rt").Verdict(now)
	if v.State != StateDead || v.By != SignalKernel || v.Kernels != 1 || v.Vanished != 1 || v.For != 2*time.Minute {
		t.Errorf("a kernel gone from the list: %s by %q (%+v)", v.State, v.By, v)
	}
	s.RecordTerminals("rt", now, []apimon.Terminal{{Name: "1", LastActivity: now.Add(-10 * time.Second)}}, nil)
	if v := s.Get("rt").Verdict(now); v.State != StateBusy || v.By != SignalTerminal {
		t.Errorf("a dead kernel beside a terminal typed in: %s by %q", v.State, v.By)
	}
}

// A kernel that leaves the list when a session of its runtime was closed
// (by colabdash, or gone from Colab's session list) was closed with it:
// the runtime reads no kernels, not dead, whichever was learnt first;
// a close long before or after the kernel vanished does not excuse it.
func TestKernelClosedWithItsSessionIsNotDead(t *testing.T) {
	up := []apimon.Kernel{{ID: "a", ExecutionState: "idle", LastActivity: t0}}
	for _, c := range []struct {
		name     string
		closedAt time.Duration // after t0
		before   bool          // the close is recorded before the list without the kernel
		state    State
	}{
		{"closed, then the kernel gone", 50 * time.Second, true, StateNoKernels},
		{"the kernel gone, then the session seen gone from Colab's list", 90 * time.Second, false, StateNoKernels},
		{"a session closed long before", -5 * time.Minute, true, StateDead},
		{"a session closed long after", 10 * time.Minute, false, StateDead},
	} {
		s := NewStore()
		s.RecordKernels("rt", t0, up, nil)
		if c.before {
			s.SessionClosed("rt", t0.Add(c.closedAt))
		}
		s.RecordKernels("rt", t0.Add(time.Minute), []apimon.Kernel{}, nil)
		if !c.before {
			s.SessionClosed("rt", t0.Add(c.closedAt))
		}
		s.RecordKernels("rt", t0.Add(11*time.Minute), []apimon.Kernel{}, nil)
		if a := s.Get("rt").Activity(t0.Add(12 * time.Minute)); a.State != c.state {
			t.Errorf("%s: %s (%+v)", c.name, a.State, a)
		}
	}
}
