package state

import (
	"cmp"
	"slices"
	"time"
)

// DefaultCallBudget is how many calls a minute the dashboard makes in the
// background by default (config callBudget), every call counted: the
// refresh's own four (list_runtimes and the selected runtime's sessions,
// every 30 s) and 18 for the rest, enough for the session counts of ten
// runtimes every 30 s, or for every renewal of 1,080 runtimes with
// hour-long proxy tokens; flat from there whatever the number of
// runtimes. It stays clearly under the goal of at most 25 calls in any
// minute (docs/performance.md).
const DefaultCallBudget = 22

// CallBudget limits the dashboard's background calls to perMinute in any
// minute (a sliding window). Calls that cannot wait (list_runtimes, the
// selected runtime's sessions and renewal, a runtime's first sessions) are
// made whatever the budget says: a reserve is kept for list_runtimes and
// the selected runtime's sessions, and the selected runtime's renewal is
// recorded (PlanRenewals), its callers keeping a call of room for it
// while it is due within the minute. The others (the other runtimes'
// session counts and token renewals) share the rest: PlanSessions and
// PlanRenewals record them, and stop when Room says the minute is spent.
// The zero value has no limit;
// NewCallBudget sets one. It reads no clock: every method takes now. Not
// safe for concurrent use.
type CallBudget struct {
	perMinute int
	reserve   int
	calls     []time.Time // call times within the last minute, oldest first
}

// NewCallBudget returns a budget of perMinute calls a minute (≤ 0: no
// limit) that keeps reserve of them for the calls that cannot wait: for
// the dashboard, list_runtimes and the selected runtime's sessions of the
// refreshes in a minute (ReserveFor).
func NewCallBudget(perMinute, reserve int) *CallBudget {
	return &CallBudget{perMinute: perMinute, reserve: max(reserve, 0)}
}

// ReserveFor is the reserve for a refresh every interval: two calls that
// cannot wait (list_runtimes and the selected runtime's sessions) per
// refresh in a minute.
func ReserveFor(interval time.Duration) int {
	if interval <= 0 {
		return 0
	}
	return 2 * int((time.Minute+interval-1)/interval)
}

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
	b.calls = slices.Delete(b.calls, 0, cut)
}

// Record counts n calls that could wait, made at now. With no limit
// nothing is kept.
func (b *CallBudget) Record(now time.Time, n int) {
	if b == nil || b.perMinute <= 0 {
		return
	}
	b.trim(now)
	for range n {
		b.calls = append(b.calls, now)
	}
}

// Room returns how many more calls that can wait fit in the minute ending
// at now (perMinute − reserve − those recorded): 0 when spent, a large
// number when there is no limit.
func (b *CallBudget) Room(now time.Time) int {
	if b == nil || b.perMinute <= 0 {
		return 1 << 30
	}
	b.trim(now)
	return max(b.perMinute-b.reserve-len(b.calls), 0)
}

// Used returns the calls recorded in the minute ending at now.
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
// last listing), as many as budget.Room allows; those are recorded in the
// budget, so the caller must make every call in Refresh.
//
// keep is how many calls of the budget's room to leave for token renewals
// due within the minute: a lapsing token matters more than an old count.
func (s *Snapshot) PlanSessions(now time.Time, selected string, withList bool, interval time.Duration, budget *CallBudget, keep int, inFlight func(name string) bool) SessionPlan {
	var plan SessionPlan
	var due []*Runtime
	if withList {
		interval = interval * 9 / 10
	}
	for name, r := range s.runtimes {
		if r.Gone() || (inFlight != nil && inFlight(name)) {
			continue
		}
		if withList && name == selected || !r.SessionsFresh.Loaded() && r.SessionsFresh.FailedAt.IsZero() {
			plan.Refresh = append(plan.Refresh, name)
		} else if sessionsDue(r, now, interval) {
			due = append(due, r)
		}
	}
	slices.Sort(plan.Refresh) // deterministic order
	room := max(budget.Room(now)-keep, 0)
	if len(due) == 0 {
		return plan
	}
	slices.SortFunc(due, func(a, b *Runtime) int {
		if c := a.SessionsFresh.FetchedAt.Compare(b.SessionsFresh.FetchedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	n := min(room, len(due))
	for _, r := range due[:n] {
		plan.Refresh = append(plan.Refresh, r.Name)
	}
	budget.Record(now, n)
	if rest := due[n:]; len(rest) > 0 {
		plan.Deferred = len(rest)
		if at := rest[0].SessionsFresh.FetchedAt; !at.IsZero() {
			plan.OldestDeferred = now.Sub(at)
		}
	}
	return plan
}

// PlanRenewals picks, among the runtimes whose token renewal is due at now
// (Renewals.Due), those to renew now: the selected runtime's whatever the
// budget (the token the user looks at never goes stale for it), then the
// others soonest expireTime first, as many as budget.Room allows less
// keep (the calls to leave for renewals that cannot wait, due within the
// minute: the selected runtime's when it is not due yet). Every renewal
// returned is recorded in the budget, the selected runtime's too, so a
// minute never holds more calls than the budget: the caller must make
// every renewal in renew. deferred counts the rest: their tokens wait for
// the budget (with the default budget and hour-long tokens, from about
// 1,080 runtimes on).
func PlanRenewals(now time.Time, due []*Runtime, selected string, budget *CallBudget, keep int) (renew []string, deferred int) {
	others := make([]*Runtime, 0, len(due))
	for _, r := range due {
		if r.Name == selected {
			renew = append(renew, r.Name)
		} else {
			others = append(others, r)
		}
	}
	budget.Record(now, len(renew))
	slices.SortFunc(others, func(a, b *Runtime) int {
		if c := a.ExpireTime().Compare(b.ExpireTime()); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	n := min(max(budget.Room(now)-keep, 0), len(others))
	for _, r := range others[:n] {
		renew = append(renew, r.Name)
	}
	budget.Record(now, n)
	return renew, len(others) - n
}
