package state

import (
	"cmp"
	"slices"
	"time"
)

// DefaultCallBudget is how many calls the dashboard makes in the background
// in any 60 s by default (config callBudget), every call counted: the
// refresh's own four (list_runtimes and the selected runtime's sessions,
// every 30 s) and 19 for the rest, enough for the session counts of ten
// runtimes every 30 s once each slot is held CallWindow+CallMargin (61 s),
// or for every renewal of 1,100 runtimes with hour-long proxy tokens; flat
// from there whatever the number of runtimes. It stays under the goal of at
// most 25 calls in any minute (docs/performance.md).
const DefaultCallBudget = 23

// CallWindow is the window a budget counts calls in: Colab's quotas are
// per minute, and any 60 s counts, not only whole minutes.
const CallWindow = time.Minute

// CallMargin is how much longer than CallWindow a counted call holds its
// slot after its reply: a server that counts its own minute from its own
// clock never sees two calls of the same slot less than 60 s apart, even
// with send jitter (two bursts 59.85 s apart were seen when a slot freed
// at exactly 60 s after it was planned).
const CallMargin = time.Second

// callHoldUnanswered is how long a counted call whose answer is never
// reported (dropped as superseded) holds its slot: past any call's
// timeout, then a window and the margin.
const callHoldUnanswered = 2*time.Minute + CallWindow + CallMargin

// CallBudget limits the dashboard's background calls to perMinute in any
// 60 s as the server counts them, by arrival. A counted call takes a slot
// when it is planned (Record, before it is sent) and frees it CallWindow +
// CallMargin after its reply (Answered): the server saw it between the two,
// so every call arriving in any 60 s window holds its slot at the last such
// arrival, and at no instant are more slots held than the budget. Calls
// are also spread: at most one every (CallWindow+CallMargin)/(perMinute −
// reserve) on average, a few at once at most (PaceBurst), so renewals due
// together go out over their window, not in one burst.
//
// Calls that cannot wait (list_runtimes, the selected runtime's sessions
// and renewal, a runtime's first sessions) are made whatever the budget
// says: a reserve is kept for list_runtimes and the selected runtime's
// sessions (they come at most twice in 60 s each, every refresh interval
// after the previous answer), and the selected runtime's renewal is
// recorded (PlanRenewals), its callers keeping a call of room for it while
// it is due within the minute. The others (the other runtimes' session
// counts and token renewals) share the rest: PlanSessions and
// PlanRenewals record them, and stop when Room says there is none.
// The zero value has no limit; NewCallBudget sets one. It reads no clock:
// every method takes now. Not safe for concurrent use.
type CallBudget struct {
	perMinute int
	reserve   int
	slots     []callSlot  // held slots, in the order recorded
	next      time.Time   // pacing: when the next call is due (GCRA's theoretical arrival time)
	lists     []time.Time // the last reserve/2 refreshes' list_runtimes, when sent
}

// callSlot is one counted call: planned at sent, held until free once
// answered.
type callSlot struct {
	sent, free time.Time
	answered   bool
}

// PaceBurst is the most counted calls a budget lets out at once after a
// quiet spell (a fifth of the default budget's room); after that one every
// (CallWindow+CallMargin)/(perMinute − reserve).
const PaceBurst = 4

// NewCallBudget returns a budget of perMinute calls in any 60 s (≤ 0: no
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

// pace is the average gap between counted calls: the slots' hold over the
// room.
func (b *CallBudget) pace() time.Duration {
	return (CallWindow + CallMargin) / time.Duration(max(b.perMinute-b.reserve, 1))
}

// held reports whether slot c is still held at now.
func (c callSlot) held(now time.Time) bool {
	if c.answered {
		return now.Before(c.free)
	}
	return now.Sub(c.sent) < callHoldUnanswered
}

func (b *CallBudget) trim(now time.Time) {
	b.slots = slices.DeleteFunc(b.slots, func(c callSlot) bool { return !c.held(now) })
}

// Record counts n calls that could wait, planned at now (they are sent at
// now or later); each holds its slot until Answered reports its reply, and
// moves the pace on. With no limit nothing is kept.
func (b *CallBudget) Record(now time.Time, n int) {
	if b == nil || b.perMinute <= 0 {
		return
	}
	b.trim(now)
	for range n {
		b.slots = append(b.slots, callSlot{sent: now})
		b.next = later(b.next, now).Add(b.pace())
	}
}

// Answered reports the reply, at now, to a call recorded at sent: its slot
// is freed CallWindow + CallMargin from now. A call whose reply is never
// reported frees its slot after the longest call and a window.
func (b *CallBudget) Answered(sent, now time.Time) {
	if b == nil {
		return
	}
	for i := range b.slots {
		if c := &b.slots[i]; !c.answered && c.sent.Equal(sent) {
			c.answered, c.free = true, now.Add(CallWindow+CallMargin)
			return
		}
	}
}

// Room returns how many more calls that can wait may be planned at now:
// the slots free (perMinute − reserve − those held), and no more than the
// pace allows (PaceBurst at once after a quiet spell); 0 when spent, a
// large number when there is no limit.
func (b *CallBudget) Room(now time.Time) int { return b.roomKeeping(now, 0) }

// roomKeeping is Room with keep of the free slots left for calls that
// cannot wait, due within the minute: they take slots, not the pace.
func (b *CallBudget) roomKeeping(now time.Time, keep int) int {
	if b == nil || b.perMinute <= 0 {
		return 1 << 30
	}
	b.trim(now)
	free := max(b.perMinute-b.reserve-len(b.slots)-keep, 0)
	// GCRA: a call conforms while next − now ≤ (PaceBurst−1)·pace.
	p := b.pace()
	ahead := b.next.Sub(now)
	paced := PaceBurst
	if ahead > 0 {
		paced = max(PaceBurst-int((ahead+p-1)/p), 0)
	}
	return min(free, paced)
}

// Used returns the slots held at now: the counted calls planned or
// answered within the last CallWindow + CallMargin.
func (b *CallBudget) Used(now time.Time) int {
	if b == nil {
		return 0
	}
	b.trim(now)
	return len(b.slots)
}

// Refreshed records a refresh whose list_runtimes was sent at sent, and
// returns the earliest time the next refresh may send its own: the
// reserve counts reserve/2 refreshes (list_runtimes and the selected
// runtime's sessions) in a window, so the next one waits until the
// oldest of the last reserve/2 is CallWindow + CallMargin old. With a
// refresh every 30 s: at most two lists in any 61 s, where three exactly
// 30 s apart would put three in a 60 s window counted ends included.
// The zero time when there is no limit.
func (b *CallBudget) Refreshed(sent time.Time) time.Time {
	if b == nil || b.perMinute <= 0 || b.reserve < 2 {
		return time.Time{}
	}
	k := b.reserve / 2
	b.lists = append(b.lists, sent)
	if len(b.lists) > k {
		b.lists = slices.Delete(b.lists, 0, len(b.lists)-k)
	}
	if len(b.lists) < k {
		return time.Time{}
	}
	return b.lists[0].Add(CallWindow + CallMargin)
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
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
	// Counted is how many of Refresh, the last ones, were recorded in the
	// budget: their replies go to CallBudget.Answered.
	Counted int
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
	room := budget.roomKeeping(now, keep)
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
	plan.Counted = n
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
	n := min(budget.roomKeeping(now, keep), len(others))
	for _, r := range others[:n] {
		renew = append(renew, r.Name)
	}
	budget.Record(now, n)
	return renew, len(others) - n
}
