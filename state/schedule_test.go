package state

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
)

// A counted call holds its slot from its plan until CallWindow +
// CallMargin after its reply; one never answered, until any call would
// have timed out and a window passed.
func TestCallBudgetSlotFreesAfterReplyAndMargin(t *testing.T) {
	b := NewCallBudget(8, 4) // room for 4, PaceBurst at once
	b.Record(t0, 4)
	if r := b.Room(t0.Add(30 * time.Second)); r != 0 {
		t.Fatalf("room %d with every slot held, want 0", r)
	}
	b.Answered(t0, t0.Add(5*time.Second)) // three still unanswered
	if r := b.Room(t0.Add(5*time.Second + CallWindow + CallMargin - 1)); r != 0 {
		t.Fatalf("room %d just before the answered slot frees, want 0", r)
	}
	if r := b.Room(t0.Add(5*time.Second + CallWindow + CallMargin)); r != 1 {
		t.Fatalf("room %d once the answered slot freed (60 s + margin after its reply), want 1", r)
	}
	if r := b.Room(t0.Add(callHoldUnanswered)); r != 4 {
		t.Fatalf("room %d once unanswered calls' slots lapsed, want 4", r)
	}
	b.Record(t0.Add(10*time.Minute), 10) // calls that could not wait overspend
	if r := b.Room(t0.Add(10*time.Minute + time.Second)); r != 0 {
		t.Fatalf("room %d when overspent, want 0", r)
	}
	if r := NewCallBudget(0, 0).Room(t0); r < 1<<20 {
		t.Fatalf("an unlimited budget has room %d", r)
	}
}

// A taker that plans every call the budget allows, every 100 ms, each
// answered 300 ms later: no 60 s (nor 60 s + the margin) ever holds more
// than the room, no second more than PaceBurst, and over ten minutes the
// rate is the room per 61 s (the old budget let the whole room out in one
// instant, and again exactly 60 s later).
func TestCallBudgetSpreadInEverySlidingWindow(t *testing.T) {
	b := NewCallBudget(DefaultCallBudget, 4)
	room := DefaultCallBudget - 4
	var sent []time.Time
	type inflight struct{ sent, reply time.Time }
	var pending []inflight
	for now := t0; now.Before(t0.Add(10 * time.Minute)); now = now.Add(100 * time.Millisecond) {
		for len(pending) > 0 && !pending[0].reply.After(now) {
			b.Answered(pending[0].sent, now)
			pending = pending[1:]
		}
		n := b.Room(now)
		b.Record(now, n)
		for range n {
			sent = append(sent, now)
			pending = append(pending, inflight{now, now.Add(300 * time.Millisecond)})
		}
	}
	most := func(w time.Duration) int {
		m, j := 0, 0
		for i := range sent {
			for sent[i].Sub(sent[j]) > w {
				j++
			}
			m = max(m, i-j+1) // calls within [sent[i]−w, sent[i]], closed
		}
		return m
	}
	if m := most(CallWindow + CallMargin - 300*time.Millisecond); m > room {
		t.Errorf("%d calls in a window of 60 s + margin, want at most %d", m, room)
	}
	if m := most(time.Second); m > PaceBurst {
		t.Errorf("%d calls within a second, want at most %d (spread, not bursts)", m, PaceBurst)
	}
	if want := room * 10 * 60 / 61; len(sent) < want-PaceBurst {
		t.Errorf("%d calls in ten minutes, want about %d (the room per 61 s)", len(sent), want)
	}
}

// idleSessions simulates n runtimes idle for d with a refresh every 30 s
// (list_runtimes, then the plan with the list) and the plan asked every
// second, the calls answering at once; it returns the list_sessions calls
// made per minute at most, and each runtime's oldest count age seen.
func idleSessions(t *testing.T, n, budget int, d time.Duration) (maxPerMinute int, maxAge time.Duration, total int) {
	t.Helper()
	s := New(Config{})
	rts := make([]api.Runtime, n)
	for i := range rts {
		rts[i] = api.Runtime{Name: fmt.Sprintf("runtimes/r-%04d", i)}
	}
	b := NewCallBudget(budget, ReserveFor(30*time.Second))
	perMinute := map[int]int{}
	for sec := time.Duration(0); sec <= d; sec += time.Second {
		now := t0.Add(sec)
		withList := sec%(30*time.Second) == 0
		if withList {
			s.ApplyRuntimes(now, rts)
		}
		if !withList && b.Room(now) == 0 {
			continue // what the dashboard does: no plan while the budget is spent
		}
		plan := s.PlanSessions(now, "runtimes/r-0000", withList, 30*time.Second, b, 0, nil)
		for _, name := range plan.Refresh {
			s.ApplySessions(now, name, nil)
		}
		for range plan.Counted {
			b.Answered(now, now)
		}
		if sec >= 2*time.Minute { // after the first load
			perMinute[int(sec/time.Minute)] += len(plan.Refresh)
			total += len(plan.Refresh)
			if sec%(10*time.Second) == 0 {
				for r := range s.All() {
					maxAge = max(maxAge, now.Sub(r.SessionsFresh.FetchedAt))
				}
			}
		}
	}
	for m, c := range perMinute {
		if m < int(d/time.Minute) { // whole minutes only
			maxPerMinute = max(maxPerMinute, c+2) // + list_runtimes twice
		}
	}
	return maxPerMinute, maxAge, total
}

// Ten runtimes still refresh every 30 s within the default budget.
func TestPlanSessionsTenRuntimesEvery30s(t *testing.T) {
	perMin, maxAge, _ := idleSessions(t, 10, DefaultCallBudget, 20*time.Minute)
	if maxAge > 30*time.Second || perMin > DefaultCallBudget {
		t.Fatalf("10 runtimes: counts up to %v old, %d calls a minute", maxAge, perMin)
	}
}

// 1,000 runtimes do not make 1,000 calls: the calls a minute stay within
// the budget, the selected runtime stays fresh, and the others take turns
// oldest first, so no count gets older than one round of the budget.
func TestPlanSessionsFlatInN(t *testing.T) {
	for _, n := range []int{200, 1000} {
		perMin, maxAge, _ := idleSessions(t, n, DefaultCallBudget, 2*time.Hour)
		// 19 others every 61 s (a slot is held 60 s and the margin)
		// after list_runtimes and the selected runtime's sessions, twice
		// each.
		round := time.Duration(n/(DefaultCallBudget-4)+1) * (CallWindow + CallMargin)
		if perMin > DefaultCallBudget || maxAge > round {
			t.Errorf("%d runtimes: %d calls a minute, counts up to %v old (want ≤ %d, ≤ %v)", n, perMin, maxAge, DefaultCallBudget, round)
		}
	}
}

func TestPlanSessionsOrderAndDeferred(t *testing.T) {
	s := New(Config{})
	s.ApplyRuntimes(t0, []api.Runtime{{Name: "runtimes/a"}, {Name: "runtimes/b"}, {Name: "runtimes/c"}, {Name: "runtimes/new"}})
	s.ApplySessions(t0.Add(-3*time.Minute), "runtimes/a", nil)
	s.ApplySessions(t0.Add(-5*time.Minute), "runtimes/b", nil)
	s.ApplySessions(t0.Add(-4*time.Minute), "runtimes/c", nil)
	b := NewCallBudget(1, 0)
	// new (never loaded) and the selected a are made whatever the budget;
	// the one call of room goes to b, the oldest.
	plan := s.PlanSessions(t0, "runtimes/a", true, 30*time.Second, b, 0, nil)
	if fmt.Sprint(plan.Refresh) != "[runtimes/a runtimes/new runtimes/b]" || plan.Deferred != 1 || plan.OldestDeferred != 4*time.Minute {
		t.Fatalf("plan %+v", plan)
	}
	if b.Room(t0) != 0 {
		t.Fatalf("the plan did not record its budgeted call: room %d", b.Room(t0))
	}
	// In flight: skipped.
	plan = s.PlanSessions(t0, "", false, 30*time.Second, NewCallBudget(0, 0), 0, func(n string) bool { return n == "runtimes/c" })
	if fmt.Sprint(plan.Refresh) != "[runtimes/new runtimes/b runtimes/a]" {
		t.Fatalf("plan %+v", plan)
	}
}

// renewSim plays a runtime whose token lives life for d, one second at a
// time, renewing when Renewals says; serve answers a renewal at now with
// the new expireTime (or an error). It returns the get_runtime calls and
// the gaps between them.
func renewSim(d, life time.Duration, serve func(now, expire time.Time) (time.Time, error)) (calls int, gaps []time.Duration, lapsed time.Duration) {
	rn := NewRenewals(5 * time.Minute)
	expire := t0.Add(life)
	var last time.Time
	for sec := time.Duration(0); sec < d; sec += time.Second {
		now := t0.Add(sec)
		if !now.Before(expire) {
			lapsed += time.Second
		}
		at, ok := rn.Due("r", expire, now)
		if !ok || now.Before(at) {
			continue
		}
		rn.Started("r", now)
		calls++
		if !last.IsZero() {
			gaps = append(gaps, now.Sub(last))
		}
		last = now
		after, err := serve(now, expire)
		rn.Done("r", now, expire, after, err)
		if err == nil && after.After(expire) {
			expire = after
		}
	}
	return calls, gaps, lapsed
}

// One renewal per token lifetime: a 2-minute token is renewed once in
// each of its lifetimes (in its last tenth), never lapses, and an hour of
// them costs 34 get_runtime calls, not 60.
func TestRenewalOncePerLifetime(t *testing.T) {
	for _, life := range []time.Duration{2 * time.Minute, 10 * time.Minute, time.Hour} {
		calls, gaps, lapsed := renewSim(6*time.Hour, life, func(now, _ time.Time) (time.Time, error) { return now.Add(life), nil })
		perLife := float64(calls) / float64(6*time.Hour/life)
		if perLife > 1.12 || lapsed > 0 {
			t.Errorf("%v tokens: %d renewals in 6 h (%.2f per lifetime), lapsed %v", life, calls, perLife, lapsed)
		}
		for _, g := range gaps[1:] {
			if g < life*9/10-time.Second || g > life {
				t.Errorf("%v tokens: renewals %v apart, want in the last tenth of the lifetime", life, g)
				break
			}
		}
	}
}

// A renewal that does not move expireTime later (once the
// cause of one get_runtime a second, forever) backs off from 30 s, doubling up to
// the regular cadence.
func TestRenewalNotExtendedBacksOff(t *testing.T) {
	calls, gaps, _ := renewSim(time.Hour, time.Hour, func(_, expire time.Time) (time.Time, error) { return expire, nil })
	// Due 5 min before the expiry (55 min in): 30 s, 1 m, 2 m … after.
	if calls > 4 {
		t.Errorf("%d get_runtime calls in an hour for a token that never extends, gaps %v", calls, gaps)
	}
	want := []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute}
	for i, g := range gaps {
		if i < len(want) && g != want[i] {
			t.Errorf("gap %d = %v, want %v (all %v)", i, g, want[i], gaps)
		}
	}
	// Over a day the pauses reach the cadence (55 min) and stay there.
	calls, gaps, _ = renewSim(24*time.Hour, time.Hour, func(_, expire time.Time) (time.Time, error) { return expire, nil })
	if last := gaps[len(gaps)-1]; last != 55*time.Minute || calls > 34 {
		t.Errorf("a day of unextended renewals: %d calls, last gap %v", calls, last)
	}
}

// Errors back off the same way; a short-lived token is retried sooner but
// never more often than every MinRenewRetry.
func TestRenewalErrorsBackOffNeverBelowFloor(t *testing.T) {
	down := errors.New("UNAVAILABLE")
	calls, gaps, _ := renewSim(time.Hour, time.Hour, func(time.Time, time.Time) (time.Time, error) { return time.Time{}, down })
	// Renewed 5 minutes ahead, then retried 30 s, 1 min and 2 min later
	// until the token lapses at the hour.
	if want := []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute}; calls != 4 || !slices.Equal(gaps, want) {
		t.Errorf("errors: %d calls in an hour, gaps %v; want 4 calls, gaps %v", calls, gaps, want)
	}
	// A 20 s token that stops being extended: retries no closer than 5 s,
	// and no more often than its regular cadence (every 15 s).
	n := 0
	calls, gaps, _ = renewSim(time.Hour, 20*time.Second, func(now, expire time.Time) (time.Time, error) {
		n++
		if n <= 3 {
			return now.Add(20 * time.Second), nil
		}
		return expire, nil
	})
	// Three good renewals (the first ones 10 s and 15 s apart), then the
	// failures: 5 s, doubling to 10 s, then the 15 s cadence for good.
	want := []time.Duration{10 * time.Second, 15 * time.Second, 15 * time.Second, 5 * time.Second, 10 * time.Second}
	if len(gaps) < len(want)+1 || !slices.Equal(gaps[:len(want)], want) {
		t.Fatalf("a 20 s token not extended: gaps start %v, want %v", gaps[:min(len(gaps), len(want)+3)], want)
	}
	for i, g := range gaps[len(want):] {
		if g != 15*time.Second {
			t.Fatalf("gap %d after the failures began is %v, not the 15 s cadence (all %v)", i, g, gaps)
		}
	}
}

func TestNotExtendedError(t *testing.T) {
	rn := NewRenewals(0)
	_, failed, err := rn.Done("r", t0, t0.Add(time.Minute), t0.Add(time.Minute), nil)
	if !failed || !errors.Is(err, ErrNotExtended) || err.Error() != "renewal did not extend the token (next try in 30s)" {
		t.Fatalf("failed %v, err %v", failed, err)
	}
	if rn.RetryIn("r", t0.Add(10*time.Second)) != 20*time.Second {
		t.Fatalf("retry in %v", rn.RetryIn("r", t0.Add(10*time.Second)))
	}
	if _, failed, _ := rn.Done("r", t0, t0.Add(time.Minute), t0.Add(time.Hour), nil); failed || rn.Failures("r") != 0 {
		t.Fatal("an extending renewal is not a success")
	}
}

// Renewals that can wait go soonest expiry first within the budget; the
// selected runtime's is made whatever the budget.
func TestPlanRenewals(t *testing.T) {
	s := New(Config{})
	var rts []api.Runtime
	for i, left := range []time.Duration{3 * time.Minute, time.Minute, 2 * time.Minute, 4 * time.Minute} {
		rts = append(rts, api.Runtime{Name: fmt.Sprintf("runtimes/r%d", i), ConnectionInfo: &api.ConnectionInfo{ExpireTime: t0.Add(left)}})
	}
	s.ApplyRuntimes(t0, rts)
	var due []*Runtime
	for r := range s.All() {
		due = append(due, r)
	}
	b := NewCallBudget(4, 2) // room for 2
	// The selected runtime's renewal is counted: one call of room is
	// left for the others (it was once made on top of the budget).
	renew, deferred := PlanRenewals(t0, due, "runtimes/r3", b, 0)
	if fmt.Sprint(renew) != "[runtimes/r3 runtimes/r1]" || deferred != 2 || b.Used(t0) != 2 {
		t.Fatalf("renew %v, deferred %d, %d calls recorded", renew, deferred, b.Used(t0))
	}
	if renew, deferred = PlanRenewals(t0, due, "", b, 0); len(renew) != 0 || deferred != 4 {
		t.Fatalf("a spent budget renewed %v (deferred %d)", renew, deferred)
	}
	// The selected runtime's renewal even on a spent budget, counted.
	if renew, _ = PlanRenewals(t0, due, "runtimes/r0", b, 0); fmt.Sprint(renew) != "[runtimes/r0]" || b.Used(t0) != 3 {
		t.Fatalf("the selected runtime's renewal on a spent budget: %v, %d recorded", renew, b.Used(t0))
	}
	// keep leaves room for a renewal that cannot wait, due within the
	// minute.
	if renew, deferred = PlanRenewals(t0, due, "", NewCallBudget(4, 2), 1); fmt.Sprint(renew) != "[runtimes/r1]" || deferred != 3 {
		t.Fatalf("keep 1 of a room of 2: renew %v, deferred %d", renew, deferred)
	}
}

// The reserve is two calls per refresh in a minute, a partial refresh
// counting whole; no refresh (interval 0) reserves nothing.
func TestReserveFor(t *testing.T) {
	for iv, want := range map[time.Duration]int{
		0: 0, -time.Second: 0, 30 * time.Second: 4, 45 * time.Second: 4, time.Minute: 2, 2 * time.Minute: 2, 10 * time.Second: 12,
	} {
		if got := ReserveFor(iv); got != want {
			t.Errorf("ReserveFor(%v) = %d, want %d", iv, got, want)
		}
	}
}

// What the event log quotes: the budget a minute and the calls used; a
// budget of 0 (no limit) keeps no calls, and a missing one reads as none.
func TestCallBudgetPerMinuteAndUsed(t *testing.T) {
	var none *CallBudget
	if none.PerMinute() != 0 || none.Used(t0) != 0 {
		t.Fatalf("a nil budget: %d a minute, %d used", none.PerMinute(), none.Used(t0))
	}
	b := NewCallBudget(24, 4)
	b.Record(t0, 3)
	b.Record(t0.Add(30*time.Second), 2)
	for range 3 {
		b.Answered(t0, t0)
	}
	b.Answered(t0.Add(30*time.Second), t0.Add(30*time.Second))
	if b.PerMinute() != 24 || b.Used(t0.Add(60*time.Second)) != 5 || b.Used(t0.Add(61*time.Second)) != 2 {
		t.Fatalf("24 a minute: PerMinute %d, used %d within 61 s, %d once the first 3 left them",
			b.PerMinute(), b.Used(t0.Add(60*time.Second)), b.Used(t0.Add(61*time.Second)))
	}
	unlimited := NewCallBudget(0, 0)
	unlimited.Record(t0, 5)
	if n := unlimited.Used(t0); n != 0 {
		t.Fatalf("an unlimited budget kept %d calls", n)
	}
}

// A count is due exactly one refresh interval after it was listed; right
// after list_runtimes, from 9/10 of it (one listed 27 s before a 30 s
// refresh rides along, one listed 26 s before waits).
func TestPlanSessionsDueAtTheInterval(t *testing.T) {
	s := New(Config{})
	s.ApplyRuntimes(t0, []api.Runtime{{Name: "runtimes/a"}, {Name: "runtimes/b"}, {Name: "runtimes/c"}})
	s.ApplySessions(t0, "runtimes/a", nil)
	s.ApplySessions(t0.Add(1), "runtimes/b", nil)
	s.ApplySessions(t0.Add(time.Second), "runtimes/c", nil)
	plan := s.PlanSessions(t0.Add(30*time.Second), "", false, 30*time.Second, NewCallBudget(0, 0), 0, nil)
	if fmt.Sprint(plan.Refresh) != "[runtimes/a]" {
		t.Fatalf("30 s after a was listed: refreshed %v, want a alone", plan.Refresh)
	}
	plan = s.PlanSessions(t0.Add(27*time.Second+1), "", true, 30*time.Second, NewCallBudget(0, 0), 0, nil)
	if fmt.Sprint(plan.Refresh) != "[runtimes/a runtimes/b]" {
		t.Fatalf("with the list, 27 s after b was listed and 26 s after c: refreshed %v, want a and b", plan.Refresh)
	}
}

// keep leaves room in the budget for token renewals due within the minute:
// the session counts take only what is left, and wait for the rest.
func TestPlanSessionsKeepsRoomForRenewals(t *testing.T) {
	s := New(Config{})
	var rts []api.Runtime
	for i := range 4 {
		rts = append(rts, api.Runtime{Name: fmt.Sprintf("runtimes/r%d", i)})
	}
	s.ApplyRuntimes(t0, rts)
	for i := range 4 {
		s.ApplySessions(t0.Add(-time.Duration(i+1)*time.Minute), fmt.Sprintf("runtimes/r%d", i), nil)
	}
	b := NewCallBudget(5, 0)
	plan := s.PlanSessions(t0, "", false, 30*time.Second, b, 3, nil)
	// Room left: 3 slots, of which the pace lets out PaceBurst − 2 now.
	if fmt.Sprint(plan.Refresh) != "[runtimes/r3 runtimes/r2]" || plan.Deferred != 2 || plan.Counted != 2 || b.Room(t0) != 2 {
		t.Fatalf("room 5, keep 3: refreshed %v (%d counted), deferred %d, room left %d; want the 2 oldest, counted, 2 deferred, 2 left",
			plan.Refresh, plan.Counted, plan.Deferred, b.Room(t0))
	}
	if plan = s.PlanSessions(t0, "", false, 30*time.Second, b, 3, nil); len(plan.Refresh) != 0 || plan.Deferred != 4 {
		t.Fatalf("keep beyond the room: refreshed %v, deferred %d", plan.Refresh, plan.Deferred)
	}
}

// Equal ages and equal expireTimes go in name order, so which runtime
// waits for the budget does not change from one plan to the next.
func TestPlansBreakTiesByName(t *testing.T) {
	s := New(Config{})
	exp := &api.ConnectionInfo{ExpireTime: t0.Add(time.Minute)}
	s.ApplyRuntimes(t0, []api.Runtime{{Name: "runtimes/b", ConnectionInfo: exp}, {Name: "runtimes/a", ConnectionInfo: exp}, {Name: "runtimes/c", ConnectionInfo: exp}})
	for _, n := range []string{"runtimes/c", "runtimes/a", "runtimes/b"} {
		s.ApplySessions(t0, n, nil)
	}
	plan := s.PlanSessions(t0.Add(time.Minute), "", false, 30*time.Second, NewCallBudget(2, 0), 0, nil)
	if fmt.Sprint(plan.Refresh) != "[runtimes/a runtimes/b]" {
		t.Fatalf("sessions listed at the same time: refreshed %v, want a and b", plan.Refresh)
	}
	var due []*Runtime
	for r := range s.All() {
		due = append(due, r)
	}
	slices.Reverse(due)
	if renew, _ := PlanRenewals(t0, due, "", NewCallBudget(2, 0), 0); fmt.Sprint(renew) != "[runtimes/a runtimes/b]" {
		t.Fatalf("tokens expiring together: renewed %v, want a and b", renew)
	}
}

// With a refresh every 30 s (a reserve of 4: two refreshes a window), no
// three list_runtimes fall within 61 s: the next may go 61 s after the
// one before the last.
func TestRefreshedTwoInAnyWindow(t *testing.T) {
	b := NewCallBudget(DefaultCallBudget, ReserveFor(30*time.Second))
	if at := b.Refreshed(t0); !at.IsZero() {
		t.Fatalf("after the first refresh the next waits for %v", at)
	}
	if at := b.Refreshed(t0.Add(30 * time.Second)); !at.Equal(t0.Add(CallWindow + CallMargin)) {
		t.Fatalf("after refreshes at 0 and 30 s the next may go at %v, want 61 s", at.Sub(t0))
	}
	if at := b.Refreshed(t0.Add(61 * time.Second)); !at.Equal(t0.Add(30*time.Second + CallWindow + CallMargin)) {
		t.Fatalf("after refreshes at 30 and 61 s the next may go at %v, want 91 s", at.Sub(t0))
	}
	var none *CallBudget
	if at := none.Refreshed(t0); !at.IsZero() || !NewCallBudget(0, 4).Refreshed(t0).IsZero() {
		t.Fatal("a budget without a limit delays refreshes")
	}
}
