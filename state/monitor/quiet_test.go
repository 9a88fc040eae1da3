package monitor

import (
	"testing"
	"time"

	apimon "github.com/colabdash/colabdash/api/monitor"
)

// pollAll records one poll of runtime name at now: its kernels and
// terminals as listed, no job and a CPU runtime's resources (every
// signal read).
func pollAll(s *Store, name string, now time.Time, ks []apimon.Kernel, ts []apimon.Terminal) {
	s.RecordKernels(name, now, ks, nil)
	s.RecordTerminals(name, now, ts, nil)
	s.RecordJobs(name, 0, time.Time{}, true)
	s.RecordResources(name, now, apimon.Resources{}, nil)
}

// An hour of work in a shell, then the shell closed (the server no longer
// lists its terminal): the runtime is quiet since the shell's last
// activity, not since the kernel's older one, and not "busy term" either
// (the terminal is gone); the idle guard's clock starts at the shell's
// end.
func TestClosedTerminalKeepsItsActivity(t *testing.T) {
	s := NewStore()
	name := "runtimes/r"
	start := t0
	kernel := []apimon.Kernel{{ID: "k", ExecutionState: "idle", LastActivity: start, Connections: 1}}
	now := start
	for now.Before(start.Add(time.Hour)) {
		now = now.Add(30 * time.Second)
		pollAll(s, name, now, kernel, []apimon.Terminal{{Name: "1", LastActivity: now.Add(-5 * time.Second)}})
	}
	if v := s.Get(name).Verdict(now); v.State != StateBusy || v.By != SignalTerminal {
		t.Fatalf("typing in the shell: %+v", v)
	}
	shellEnd := now.Add(-5 * time.Second)
	now = now.Add(3 * time.Second)
	pollAll(s, name, now, kernel, []apimon.Terminal{}) // ~. : the terminal is gone
	v := s.Get(name).Verdict(now)
	if v.State != StateIdle || v.By != SignalTerminal || !v.Since.Equal(shellEnd) || v.For != 8*time.Second {
		t.Fatalf("3 s after the shell closed: %s by %q since %s for %s; want idle by terminal since %s (the kernel's %s is older)",
			v.State, v.By, v.Since, v.For, shellEnd, start)
	}
	if got := v.GuardSince(); !got.Equal(shellEnd) {
		t.Errorf("the idle guard counts from %s, want %s", got, shellEnd)
	}
	now = now.Add(20 * time.Minute)
	pollAll(s, name, now, kernel, []apimon.Terminal{})
	if v := s.Get(name).Verdict(now); v.For != 20*time.Minute+8*time.Second {
		t.Errorf("20 min later: idle %s", v.For)
	}
}

// A kernel that worked and was then shut down (its session closed from
// another client): the runtime, now without kernels, is idle since the
// kernel's last activity, not "no kernels" since it was first seen.
func TestShutDownKernelKeepsItsActivity(t *testing.T) {
	s := NewStore()
	name := "runtimes/r"
	pollAll(s, name, t0, []apimon.Kernel{{ID: "k", ExecutionState: "busy", LastActivity: t0, Connections: 1}}, nil)
	worked := t0.Add(40 * time.Minute)
	pollAll(s, name, worked, []apimon.Kernel{{ID: "k", ExecutionState: "idle", LastActivity: worked, Connections: 1}}, nil)
	now := worked.Add(10 * time.Minute)
	s.SessionClosed(name, now)
	pollAll(s, name, now, []apimon.Kernel{}, nil)
	v := s.Get(name).Verdict(now)
	if v.State != StateIdle || v.By != SignalKernel || !v.Since.Equal(worked) || !v.GuardSince().Equal(worked) {
		t.Errorf("kernel shut down: %s by %q since %s; want idle by kernel since %s", v.State, v.By, v.Since, worked)
	}
}

// A runtime created and never used (no kernel, terminal or job ever):
// the word stays "no kernels", but it is quiet since colabdash first read
// it, which the idle guard counts (it bills all the same), as one stretch
// whatever process first saw it (unknown when not told: a single read of
// top); not while a signal is unknown, and no longer once a terminal was
// used.
func TestNoKernelsIsQuietSinceFirstSeen(t *testing.T) {
	s := NewStore()
	name := "runtimes/r"
	pollAll(s, name, t0.Add(time.Second), []apimon.Kernel{}, []apimon.Terminal{})
	now := t0.Add(45 * time.Minute)
	pollAll(s, name, now, []apimon.Kernel{}, []apimon.Terminal{})
	if v := s.Get(name).Verdict(now); v.State != StateNoKernels || v.By != "" || !v.Since.IsZero() || !v.GuardSince().IsZero() {
		t.Fatalf("not told when the runtime was first seen (a single read of top): %+v", v)
	}
	s.Seen(name, t0.Add(time.Minute))
	s.Seen(name, t0) // the earliest stands
	s.Seen(name, t0.Add(2*time.Minute))
	v := s.Get(name).Verdict(now)
	if v.State != StateNoKernels || v.By != SignalFirstSeen || v.For != 45*time.Minute {
		t.Fatalf("never used: %s by %q for %s", v.State, v.By, v.For)
	}
	if !v.GuardSince().Equal(t0) || v.Stretch() != "first seen" {
		t.Errorf("the guard's view: since %s, stretch %q", v.GuardSince(), v.Stretch())
	}
	s.RecordJobs(name, 0, time.Time{}, false)
	if v := s.Get(name).Verdict(now); !v.GuardSince().IsZero() || v.Stretch() != "" {
		t.Errorf("jobs not read, yet quiet for the guard since %s", v.GuardSince())
	}
	s.RecordJobs(name, 0, time.Time{}, true)
	used := now.Add(time.Minute)
	now = used.Add(5 * time.Minute)
	pollAll(s, name, now, []apimon.Kernel{}, []apimon.Terminal{{Name: "1", LastActivity: used}})
	v = s.Get(name).Verdict(now)
	if v.State != StateIdle || v.By != SignalTerminal || v.For != 5*time.Minute || v.Stretch() != used.Format(time.RFC3339Nano) {
		t.Errorf("after a terminal was used: %s by %q for %s, stretch %q", v.State, v.By, v.For, v.Stretch())
	}
}
