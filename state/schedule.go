package state

import (
	"slices"
	"time"
)

// DefaultCallBudget is how many calls a minute the dashboard makes in the
// background by default (config callBudget): enough for list_runtimes and
// list_sessions of ten runtimes every 30 s (22 calls), and flat from there
// whatever the number of runtimes.
const DefaultCallBudget = 24

// CallBudget counts the dashboard's background calls over the last minute
// (a sliding window). Calls that cannot wait (list_runtimes, the selected
// runtime's sessions, a runtime's first sessions, token renewals) are made
// whatever the budget says but are recorded, so they leave less room for
// the rest. The zero value has no limit; NewCallBudget sets one. It reads no
// clock: every method takes now. Not safe for concurrent use.
type CallBudget struct {
	perMinute int
	calls     []time.Time // call times within the last minute, oldest first
}

// NewCallBudget returns a budget of perMinute calls a minute; perMinute ≤ 0
// means no limit.
func NewCallBudget(perMinute int) *CallBudget { return &CallBudget{perMinute: perMinute} }

// PerMinute returns the budget (≤ 0: unlimited).
func (b *CallBudget) PerMinute() int {
	if b == nil {
		return 0
	}
	return b.perMinute
}

func (b *CallBudget) trim(now time.Time) {
	cut := 0
	for cut < len(b.calls) && now.Sub(b.calls[cut]) >= time.Minute {
		cut++
	}
	if cut > 0 {
		b.calls = slices.Delete(b.calls, 0, cut)
	}
}

// Record counts n calls made at now. With no limit nothing is kept.
func (b *CallBudget) Record(now time.Time, n int) {
	if b == nil || b.perMinute <= 0 {
		return
	}
	b.trim(now)
	for range n {
		b.calls = append(b.calls, now)
	}
}

// Room returns how many more calls fit in the minute ending at now: 0 when
// spent (or overspent by calls that could not wait), a large number when
// there is no limit.
func (b *CallBudget) Room(now time.Time) int {
	if b == nil || b.perMinute <= 0 {
		return 1 << 30
	}
	b.trim(now)
	return max(b.perMinute-len(b.calls), 0)
}

// Used returns the calls counted in the minute ending at now.
func (b *CallBudget) Used(now time.Time) int {
	if b == nil {
		return 0
	}
	b.trim(now)
	return len(b.calls)
}

// SessionPlan is what PlanSessions decided.
type SessionPlan struct {
	// Refresh are the runtimes to call list_sessions for now: the ones that
	// cannot wait first, then the oldest counts that fit the budget.
	Refresh []string
	// Deferred counts the runtimes whose count is due (at least one
	// refresh interval old) but waits for room in the budget.
	Deferred int
	// OldestDeferred is the age of the oldest deferred count (0 when
	// none, or when one was never loaded).
	OldestDeferred time.Duration
}

// sessionsDue reports whether r's sessions are due for a refresh at now:
// never listed, or last listed (or last failed) at least interval ago.
func sessionsDue(r *Runtime, now time.Time, interval time.Duration) bool {
	f := r.SessionsFresh
	last := f.FetchedAt
	if f.FailedAt.After(last) {
		last = f.FailedAt
	}
	return last.IsZero() || now.Sub(last) >= interval
}

// PlanSessions decides whose sessions to list at now, so that the idle
// cost stays flat in the number of runtimes. Gone runtimes and those
// inFlight reports are skipped. Made whatever the budget: the selected
// runtime's when withList is set (right after list_runtimes, so the one the
// user looks at is as fresh as the list), and every runtime's first load.
// Then the due counts (listed at least interval ago; with the list, 9/10 of
// it, so a count listed just after the previous list rides along with this
// one), oldest first (never listed before listed, then by the time of the
// last listing), as many as budget.Room allows. The caller records the
// calls it makes in the budget.
func (s *Snapshot) PlanSessions(now time.Time, selected string, withList bool, interval time.Duration, budget *CallBudget, inFlight func(name string) bool) SessionPlan {
	var plan SessionPlan
	var due []*Runtime
	if withList {
		interval = interval * 9 / 10
	}
	for name, r := range s.runtimes {
		if r.Gone() || (inFlight != nil && inFlight(name)) {
			continue
		}
		switch {
		case withList && name == selected, !r.SessionsFresh.Loaded() && r.SessionsFresh.FailedAt.IsZero():
			plan.Refresh = append(plan.Refresh, name)
		case sessionsDue(r, now, interval):
			due = append(due, r)
		}
	}
	slices.Sort(plan.Refresh) // deterministic order
	room := max(budget.Room(now)-len(plan.Refresh), 0)
	if len(due) == 0 {
		return plan
	}
	slices.SortFunc(due, func(a, b *Runtime) int {
		if c := a.SessionsFresh.FetchedAt.Compare(b.SessionsFresh.FetchedAt); c != 0 {
			return c
		}
		return cmpString(a.Name, b.Name)
	})
	n := min(room, len(due))
	for _, r := range due[:n] {
		plan.Refresh = append(plan.Refresh, r.Name)
	}
	if rest := due[n:]; len(rest) > 0 {
		plan.Deferred = len(rest)
		if at := rest[0].SessionsFresh.FetchedAt; !at.IsZero() {
			plan.OldestDeferred = now.Sub(at)
		}
	}
	return plan
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
