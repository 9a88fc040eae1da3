package monitor

import (
	"context"
	"errors"
	"maps"
	"time"

	apimon "github.com/colabdash/colabdash/api/monitor"
)

// StaleAfter is how many polls in a row may fail before a runtime's
// figures (or kernels) are marked stale.
const StaleAfter = 3

// Outcome is what one part of a poll (resources or kernels) came to; the
// Scheduler plans the next poll from it.
type Outcome int

// Poll outcomes.
const (
	// OutcomeSkipped: the part was not asked for, or the poll was
	// cancelled (the caller's context: not the runtime's fault).
	OutcomeSkipped Outcome = iota
	// OutcomeOK: figures came.
	OutcomeOK
	// OutcomeFailed: a 5xx, a bad body, no reply in time, a token the
	// proxy refused even after renewal…: back off.
	OutcomeFailed
	// OutcomeNotOffered: the runtime has no such route (a Jupyter 404):
	// re-check rarely (NotOfferedRecheck).
	OutcomeNotOffered
)

// OutcomeOf classifies an error from package api/monitor: nil is OK,
// ErrNotOffered NotOffered, a cancelled context Skipped, anything else
// Failed.
func OutcomeOf(err error) Outcome {
	if err == nil { // an if chain: see Judge
		return OutcomeOK
	}
	if errors.Is(err, apimon.ErrNotOffered) {
		return OutcomeNotOffered
	}
	if errors.Is(err, context.Canceled) {
		return OutcomeSkipped
	}
	return OutcomeFailed
}

// Runtime is what is known of one runtime's resources and kernels. Its
// fields are read by the views; Store's methods write them.
type Runtime struct {
	// Resources is the newest figures (valid when ResourcesAt is not
	// zero) and Last their Sample; ResourcesAt when they came.
	Resources   apimon.Resources
	Last        Sample
	ResourcesAt time.Time
	// ResourcesErr is the last failure of the resources poll (nil after
	// a success); ResourcesMissed the failed polls in a row.
	ResourcesErr    error
	ResourcesMissed int
	// NotOffered is set when the runtime has no resources route (a
	// stock Jupyter server).
	NotOffered bool
	// Kernels is the newest kernel list (nil before the first);
	// KernelsAt when it came; KernelsErr and KernelsMissed as for
	// resources.
	Kernels       []apimon.Kernel
	KernelsAt     time.Time
	KernelsErr    error
	KernelsMissed int
	// History holds the last 15 minutes of figures.
	History History
	// Terminals is the newest terminal list (valid when TerminalsKnown:
	// a server without terminals has none); TerminalsAt when it came;
	// TerminalsErr the last failure (the last list is kept until
	// StaleAfter failures in a row make it unknown).
	Terminals       []apimon.Terminal
	TerminalsKnown  bool
	TerminalsAt     time.Time
	TerminalsErr    error
	TerminalsMissed int
	// LastTerminal is the terminal whose activity is the newest seen in
	// any list (kept once the terminal is closed and no longer listed:
	// closing a shell does not erase the work done in it).
	LastTerminal apimon.Terminal
	// LastKernel is the newest kernel activity seen: a kernel's
	// last_activity or the time of a list showing it busy (kept once the
	// kernel is gone: shutting a kernel down does not erase the work done
	// in it).
	LastKernel time.Time
	// FirstSeen is when colabdash first saw the runtime listed (Seen;
	// zero: not told, as in a single read of top).
	FirstSeen time.Time
	// Jobs is how many jobs run on the runtime and LastJobEnd when the
	// newest ended (valid when JobsKnown: the last listing succeeded).
	Jobs       int
	LastJobEnd time.Time
	JobsKnown  bool

	// starting is when each kernel was first seen "starting" (local
	// clock), up the kernels seen idle or busy, and vanished when each
	// kernel seen up was first missing from a list, for Judge.
	starting map[string]time.Time
	up       map[string]bool
	vanished map[string]time.Time
	// closed is when a session of the runtime was last closed (by this
	// process, or seen gone from Colab's session list).
	closed time.Time
}

// ClosedKernelWithin is how close in time a kernel's vanishing and a
// closed session of its runtime must be for the kernel to count as
// closed with the session rather than dead: two minutes either way (the
// kernel list of a runtime on screen and Colab's session list are each
// read about every 30 s, at different times, and later when the call
// budget is short).
const ClosedKernelWithin = 2 * time.Minute

// closedNear reports whether a session of r was closed within
// ClosedKernelWithin of t.
func (r *Runtime) closedNear(t time.Time) bool { return closedWithin(r.closed, t) }

// closedWithin reports whether closed (not zero) is within ClosedKernelWithin
// of t, either way.
func closedWithin(closed, t time.Time) bool {
	d := t.Sub(closed)
	return !closed.IsZero() && d <= ClosedKernelWithin && d >= -ClosedKernelWithin
}

// ResourcesStale reports whether the figures shown are stale: StaleAfter
// or more resources polls failed in a row.
func (r *Runtime) ResourcesStale() bool { return r.ResourcesMissed >= StaleAfter }

// KernelsStale is ResourcesStale for the kernel list.
func (r *Runtime) KernelsStale() bool { return r.KernelsMissed >= StaleAfter }

// Activity judges the runtime's kernels at now (Judge, with what
// earlier lists showed: when kernels were first seen starting, and which
// were up).
func (r *Runtime) Activity(now time.Time) Activity { return Judge(r.Kernels, now, r) }

// Signals is every signal known of the runtime at now, for Decide: the
// kernels' verdict (unknown once stale), the terminals, the jobs and the
// GPUs of the newest resources (unknown while none came, when not
// offered, or once stale).
func (r *Runtime) Signals(now time.Time) Signals {
	s := Signals{Jobs: r.Jobs, LastJobEnd: r.LastJobEnd, JobsKnown: r.JobsKnown, LastTerminal: r.LastTerminal, LastKernel: r.LastKernel, FirstSeen: r.FirstSeen}
	if !r.KernelsStale() {
		s.Kernels = r.Activity(now)
	}
	if r.TerminalsKnown && r.TerminalsMissed < StaleAfter {
		s.Terminals, s.TerminalsKnown = r.Terminals, true
	}
	if !r.ResourcesAt.IsZero() && !r.NotOffered && !r.ResourcesStale() {
		s.GPUs, s.GPUsKnown = r.Resources.GPUs, true
	}
	return s
}

// Verdict is the runtime's activity by every signal at now (Decide).
func (r *Runtime) Verdict(now time.Time) Verdict { return Decide(r.Signals(now), now) }

// StartingSince is when kernel id was first seen "starting" in the lists
// that have shown it starting since (a KernelHistory).
func (r *Runtime) StartingSince(id string) (time.Time, bool) {
	t, ok := r.starting[id]
	return t, ok
}

// WasUp reports whether kernel id was seen idle or busy in a list (a
// KernelHistory), and is still listed.
func (r *Runtime) WasUp(id string) bool { return r.up[id] }

// Vanished is, for each kernel seen up that a later list no longer
// showed, when a list first missed it (a KernelHistory); it is
// forgotten once the runtime lists a kernel it did not list before (a
// kernel started since), or the runtime itself.
func (r *Runtime) Vanished() []time.Time {
	var ts []time.Time
	for _, t := range r.vanished {
		ts = append(ts, t)
	}
	return ts
}

// Store holds a Runtime per runtime name. The zero value is not usable;
// call NewStore.
type Store struct {
	m map[string]*Runtime
}

// NewStore returns an empty Store.
func NewStore() *Store { return &Store{m: map[string]*Runtime{}} }

// Get returns what is known of runtime name, nil when nothing is.
func (s *Store) Get(name string) *Runtime { return s.m[name] }

func (s *Store) get(name string) *Runtime {
	r := s.m[name]
	if r == nil {
		r = &Runtime{}
		s.m[name] = r
	}
	return r
}

// Seen records that colabdash first saw runtime name listed at at (the
// earliest kept), for a runtime the Store knows (polled once at least);
// a runtime never used is quiet since then (Signals.FirstSeen). Colab's
// listing gives no creation time.
func (s *Store) Seen(name string, at time.Time) {
	if r := s.m[name]; r != nil && !at.IsZero() && (r.FirstSeen.IsZero() || at.Before(r.FirstSeen)) {
		r.FirstSeen = at
	}
}

// Len returns how many runtimes the Store knows.
func (s *Store) Len() int { return len(s.m) }

// RecordResources records the outcome of a resources poll of runtime
// name that ended at now (res valid when err is nil) and returns it as
// an Outcome for the Scheduler. A success adds to the History; a failure
// keeps the last figures (stale after StaleAfter in a row); "not
// offered" drops them.
func (s *Store) RecordResources(name string, now time.Time, res apimon.Resources, err error) Outcome {
	o := OutcomeOf(err)
	r := s.get(name)
	switch o {
	case OutcomeOK:
		r.Resources, r.ResourcesAt, r.ResourcesErr, r.ResourcesMissed, r.NotOffered = res, now, nil, 0, false
		r.Last = SampleOf(now, res)
		r.History.Add(r.Last)
	case OutcomeNotOffered:
		r.Resources, r.Last, r.ResourcesAt, r.ResourcesErr, r.ResourcesMissed, r.NotOffered = apimon.Resources{}, Sample{}, time.Time{}, err, 0, true
	case OutcomeFailed:
		r.ResourcesErr = err
		r.ResourcesMissed++
	}
	return o
}

// RecordKernels records the outcome of a kernels poll of runtime name
// that ended at now (ks valid when err is nil) and returns its Outcome.
func (s *Store) RecordKernels(name string, now time.Time, ks []apimon.Kernel, err error) Outcome {
	o := OutcomeOf(err)
	r := s.get(name)
	switch o {
	case OutcomeOK:
		if ks == nil {
			ks = []apimon.Kernel{}
		}
		r.noteVanished(ks, now)
		r.Kernels, r.KernelsAt, r.KernelsErr, r.KernelsMissed = ks, now, nil, 0
		seen, up := map[string]time.Time{}, map[string]bool{}
		for _, k := range ks {
			last := plausible(k.LastActivity, now)
			if busyState(k.ExecutionState) {
				last = now
			}
			if last.After(r.LastKernel) {
				r.LastKernel = last
			}
			if r.up[k.ID] || k.ExecutionState == "idle" || busyState(k.ExecutionState) {
				up[k.ID] = true
			}
			if k.ExecutionState != "starting" {
				continue
			}
			if t, ok := r.starting[k.ID]; ok {
				seen[k.ID] = t
			} else {
				seen[k.ID] = now
			}
		}
		r.starting, r.up = seen, up
	case OutcomeNotOffered, OutcomeFailed:
		r.KernelsErr = err
		r.KernelsMissed++
	}
	return o
}

// noteVanished updates which kernels vanished, given the new list ks at
// now: a kernel seen up that ks lacks vanished at now, unless a session
// was closed near then (it was closed with it); a kernel in ks
// that the previous list lacked was started since, and the runtime
// works again, so the vanished ones are forgotten.
func (r *Runtime) noteVanished(ks []apimon.Kernel, now time.Time) {
	listed, before := map[string]bool{}, map[string]bool{}
	for _, k := range ks {
		listed[k.ID] = true
	}
	for _, k := range r.Kernels {
		before[k.ID] = true
	}
	// A new map, never written in place: a copy of the Runtime (top's
	// rows) may still read the old one.
	var gone map[string]time.Time
	for id := range r.up {
		if !listed[id] && !r.closedNear(now) {
			if gone == nil {
				gone = maps.Clone(r.vanished)
				if gone == nil {
					gone = map[string]time.Time{}
				}
			}
			gone[id] = now
		}
	}
	if gone != nil {
		r.vanished = gone
	}
	for id := range listed {
		if !before[id] {
			r.vanished = nil
			return
		}
	}
}

// RecordTerminals records the outcome of a terminals list of runtime
// name that ended at now (ts valid when err is nil) and returns its
// Outcome. A server without terminals (ErrNotOffered: a 404 from Jupyter)
// has none: no terminal, and known so. The newest activity of any terminal
// listed is remembered (LastTerminal), also once it is no longer listed.
func (s *Store) RecordTerminals(name string, now time.Time, ts []apimon.Terminal, err error) Outcome {
	o := OutcomeOf(err)
	r := s.get(name)
	switch o {
	case OutcomeOK, OutcomeNotOffered:
		if ts == nil {
			ts = []apimon.Terminal{}
		}
		for _, t := range ts {
			if last := plausible(t.LastActivity, now); last.After(r.LastTerminal.LastActivity) {
				r.LastTerminal = apimon.Terminal{Name: t.Name, LastActivity: last}
			}
		}
		r.Terminals, r.TerminalsKnown, r.TerminalsAt, r.TerminalsErr, r.TerminalsMissed = ts, true, now, nil, 0
	case OutcomeFailed:
		r.TerminalsErr = err
		r.TerminalsMissed++
	}
	return o
}

// RecordJobs records runtime name's jobs as listed: running of them run,
// and the newest of the others ended at lastEnd (zero: none ended);
// known is false when the listing failed (the jobs are then unknown).
func (s *Store) RecordJobs(name string, running int, lastEnd time.Time, known bool) {
	r := s.get(name)
	if !known {
		r.Jobs, r.LastJobEnd, r.JobsKnown = 0, time.Time{}, false
		return
	}
	r.Jobs, r.LastJobEnd, r.JobsKnown = running, lastEnd, true
}

// SessionClosed records that a session of runtime name was closed at
// at: by this process (delete_session), or by another client (it left
// Colab's session list). A kernel that vanishes within
// ClosedKernelWithin of it, before or after, was closed with it: it is
// not dead.
func (s *Store) SessionClosed(name string, at time.Time) {
	r := s.m[name]
	if r == nil { // never polled: no kernel was seen up
		return
	}
	if at.After(r.closed) {
		r.closed = at
	}
	kept := maps.Clone(r.vanished) // a new map: see noteVanished
	maps.DeleteFunc(kept, func(_ string, t time.Time) bool { return closedWithin(at, t) })
	r.vanished = kept
}

// Forget drops runtime name (gone).
func (s *Store) Forget(name string) { delete(s.m, name) }

// Retain drops every runtime for which keep is false (those no longer
// listed).
func (s *Store) Retain(keep func(name string) bool) {
	for name := range s.m {
		if !keep(name) {
			delete(s.m, name)
		}
	}
}
