package monitor

import (
	"slices"
	"strings"
	"time"
)

// Poll cadences and limits: together they bound what monitoring costs
// each runtime and the proxy.
const (
	// SelectedEvery is the selected runtime's poll interval.
	SelectedEvery = 5 * time.Second
	// OnScreenEvery is the other on-screen runtimes' poll interval.
	OnScreenEvery = 30 * time.Second
	// BackoffMin and BackoffMax bound the wait after failed polls: 30 s,
	// doubling per failure in a row, at most 5 min.
	BackoffMin = 30 * time.Second
	BackoffMax = 5 * time.Minute
	// NotOfferedRecheck is how often a runtime whose resources route is
	// not offered is asked again.
	NotOfferedRecheck = 10 * time.Minute
	// TerminalsEvery is how often a runtime's terminal list is read (with
	// one of its polls, the selected runtime's included): a terminal's
	// activity keeps a runtime busy for TerminalActiveWithin (2 min), so
	// a list every 30 s sees it in time at a small cost.
	TerminalsEvery = 30 * time.Second
	// MaxPerMinute is the most requests the monitor sends in any minute.
	MaxPerMinute = 120
	// SelectedReserve is the part of MaxPerMinute kept for the selected
	// runtime (two requests every SelectedEvery, and its terminal list
	// every TerminalsEvery: 26): the other runtimes share the rest, so
	// the selected one keeps its cadence at 1,000 runtimes.
	SelectedReserve = 2*int(time.Minute/SelectedEvery) + int(time.Minute/TerminalsEvery)
	// maxPollRequests is the most requests one poll sends.
	maxPollRequests = 3
)

// Poll is one poll Plan starts: of runtime Runtime, asking for its
// resources, its kernels and/or its terminals (one request each).
type Poll struct {
	Runtime   string
	Resources bool
	Kernels   bool
	// Terminals: the terminal list too (every TerminalsEvery).
	Terminals bool
}

// Requests is how many requests p sends.
func (p Poll) Requests() int {
	n := 0
	if p.Resources {
		n++
	}
	if p.Kernels {
		n++
	}
	if p.Terminals {
		n++
	}
	return n
}

type schedState struct {
	inFlight    bool
	started     time.Time // the last poll's start (zero: never)
	failures    int       // failed polls in a row
	retryAt     time.Time // after a failure: not before
	notOffered  time.Time // resources not offered, as of then (zero: offered)
	terminalsAt time.Time // the last poll that read the terminals (zero: never)
}

// Scheduler plans the monitor's polls. The caller asks Plan which polls
// to start (on a tick, or when a poll ends), starts them, and reports
// each end with Done; Next says when to ask again. Runtimes not on screen
// are never polled. The zero value is not usable; call NewScheduler.
type Scheduler struct {
	rt map[string]*schedState
	// sent holds the send times of the requests of the last minute,
	// oldest first (at most MaxPerMinute); others those of runtimes
	// other than the selected one (at most MaxPerMinute −
	// SelectedReserve).
	sent, others []time.Time
	// order is Plan's scratch list.
	order []candidate
}

// candidate is a runtime due for a poll, and since when.
type candidate struct {
	name string
	due  time.Time
}

// NewScheduler returns a Scheduler with nothing polled yet.
func NewScheduler() *Scheduler {
	return &Scheduler{rt: map[string]*schedState{}, sent: make([]time.Time, 0, MaxPerMinute),
		others: make([]time.Time, 0, MaxPerMinute-SelectedReserve)}
}

func (s *Scheduler) get(name string) *schedState {
	st := s.rt[name]
	if st == nil {
		st = &schedState{}
		s.rt[name] = st
	}
	return st
}

// due returns when runtime name (selected or not) is next polled; ok is
// false while a poll of it is in flight.
func (s *Scheduler) due(name string, selected bool) (time.Time, bool) {
	st := s.rt[name]
	if st == nil || st.started.IsZero() {
		return time.Time{}, true
	}
	if st.inFlight {
		return time.Time{}, false
	}
	every := OnScreenEvery
	if selected {
		every = SelectedEvery
	}
	at := st.started.Add(every)
	if st.retryAt.After(at) {
		at = st.retryAt
	}
	return at, true
}

// wantsResources reports whether a poll of st at now asks for the
// resources (not while "not offered", except every NotOfferedRecheck).
func wantsResources(st *schedState, now time.Time) bool {
	return st == nil || ResourcesDue(st.notOffered, now)
}

// trimWindow drops the times of w older than a minute before now.
func trimWindow(w []time.Time, now time.Time) []time.Time {
	cut := 0
	for cut < len(w) && now.Sub(w[cut]) >= time.Minute {
		cut++
	}
	if cut == 0 {
		return w
	}
	return append(w[:0], w[cut:]...)
}

func (s *Scheduler) trim(now time.Time) {
	s.sent = trimWindow(s.sent, now)
	s.others = trimWindow(s.others, now)
}

// roomAt returns when window w (limit requests a minute) has room for n
// more requests: now, or when enough of its oldest leave it.
func roomAt(w []time.Time, limit, n int, now time.Time) time.Time {
	if need := len(w) + n - limit; need > 0 && need <= len(w) {
		if t := w[need-1].Add(time.Minute); t.After(now) {
			return t
		}
	}
	return now
}

// Plan returns the polls to start at now, and marks them in flight:
// each asks for the kernels, the resources (unless not offered) and,
// every TerminalsEvery, the terminals;
// selected first (every SelectedEvery), then the other runtimes of
// onScreen (every OnScreenEvery), longest overdue first, as long as the
// last minute's requests stay within MaxPerMinute. A runtime with a poll
// in flight, or waiting out a failure's backoff, is left out. selected
// may be "" (none) and need not be in onScreen.
func (s *Scheduler) Plan(now time.Time, selected string, onScreen []string) []Poll {
	s.trim(now)
	var out []Poll
	try := func(name string) {
		st := s.rt[name]
		p := Poll{Runtime: name, Resources: wantsResources(st, now), Kernels: true,
			Terminals: st == nil || st.terminalsAt.IsZero() || now.Sub(st.terminalsAt) >= TerminalsEvery}
		n := p.Requests()
		other := name != selected
		if len(s.sent)+n > MaxPerMinute || (other && len(s.others)+n > MaxPerMinute-SelectedReserve) {
			return
		}
		st = s.get(name)
		st.inFlight, st.started = true, now
		if p.Terminals {
			st.terminalsAt = now
		}
		for range n {
			s.sent = append(s.sent, now)
			if other {
				s.others = append(s.others, now)
			}
		}
		out = append(out, p)
	}
	if selected != "" {
		if at, ok := s.due(selected, true); ok && !at.After(now) {
			try(selected)
		}
	}
	s.order = s.order[:0]
	for _, name := range onScreen {
		if name == selected {
			continue
		}
		if at, ok := s.due(name, false); ok && !at.After(now) {
			s.order = append(s.order, candidate{name, at})
		}
	}
	// Longest overdue first (never polled: first of all), name as the tie
	// break so the plan does not depend on the screen's order.
	slices.SortFunc(s.order, func(a, b candidate) int {
		if c := a.due.Compare(b.due); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	// Each is tried (try checks the budget): past a poll of two that
	// does not fit, one of one request (resources not offered) may.
	for _, c := range s.order {
		try(c.name)
	}
	return out
}

// Done records the end at now of runtime name's poll with the outcome of
// its resources and kernels parts (OutcomeSkipped for a part not asked
// for); the terminals part backs nothing off (a failed list is asked
// again TerminalsEvery later, with a poll that is due anyway). A failed part
// backs the runtime off (BackoffMin, doubling per failed poll in a row,
// at most BackoffMax); a success of every asked part resets it. Resources
// not offered are asked again after NotOfferedRecheck.
func (s *Scheduler) Done(name string, now time.Time, resources, kernels Outcome) {
	st := s.rt[name]
	if st == nil {
		return
	}
	st.inFlight = false
	switch resources {
	case OutcomeNotOffered:
		st.notOffered = now
	case OutcomeOK:
		st.notOffered = time.Time{}
	}
	if resources == OutcomeFailed || kernels == OutcomeFailed {
		st.failures++
		st.retryAt = now.Add(Backoff(st.failures))
		return
	}
	st.failures, st.retryAt = 0, time.Time{}
}

// Backoff is the wait after n failed polls in a row (n ≥ 1): BackoffMin
// doubling, at most BackoffMax.
func Backoff(n int) time.Duration {
	d := BackoffMin
	for i := 1; i < n && d < BackoffMax; i++ {
		d *= 2
	}
	return min(d, BackoffMax)
}

// Failures returns runtime name's failed polls in a row.
func (s *Scheduler) Failures(name string) int {
	if st := s.rt[name]; st != nil {
		return st.failures
	}
	return 0
}

// InFlight reports whether a poll of runtime name is in flight.
func (s *Scheduler) InFlight(name string) bool {
	st := s.rt[name]
	return st != nil && st.inFlight
}

// Next returns when Plan should next be asked (with the same selection
// and screen): the earliest due poll, not before the rate limits let its
// requests go; ok is false when nothing is to be polled (nothing on
// screen, or every poll in flight: a Done will come).
func (s *Scheduler) Next(now time.Time, selected string, onScreen []string) (at time.Time, ok bool) {
	s.trim(now)
	consider := func(t time.Time) {
		if !ok || t.Before(at) {
			at, ok = t, true
		}
	}
	if selected != "" {
		if t, due := s.due(selected, true); due {
			consider(latest(t, roomAt(s.sent, MaxPerMinute, maxPollRequests, now)))
		}
	}
	var first time.Time
	found := false
	for _, name := range onScreen {
		if name == selected {
			continue
		}
		if t, due := s.due(name, false); due && (!found || t.Before(first)) {
			first, found = t, true
		}
	}
	if found {
		consider(latest(first, roomAt(s.sent, MaxPerMinute, maxPollRequests, now), roomAt(s.others, MaxPerMinute-SelectedReserve, maxPollRequests, now)))
	}
	if ok && at.Before(now) {
		at = now
	}
	return at, ok
}

func latest(ts ...time.Time) time.Time {
	var m time.Time
	for _, t := range ts {
		if t.After(m) {
			m = t
		}
	}
	return m
}

// Forget drops runtime name (gone); a poll of it still in flight is then
// ignored by Done.
func (s *Scheduler) Forget(name string) { delete(s.rt, name) }

// Retain drops every runtime for which keep is false.
func (s *Scheduler) Retain(keep func(name string) bool) {
	for name := range s.rt {
		if !keep(name) {
			delete(s.rt, name)
		}
	}
}
