package ui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/state/config"
)

// callsPerMinute idles the stack for d after its first load and returns
// the most tools/calls (all tools) in any whole minute.
func callsPerMinute(s *stack, d time.Duration) int {
	most := 0
	for m := time.Duration(0); m < d; m += time.Minute {
		before := s.srv.CallCount("")
		s.idle(time.Minute)
		most = max(most, s.srv.CallCount("")-before)
	}
	return most
}

// 200 runtimes idle for 20 minutes: at most the call budget each minute
// (it was 2·(1+N) = 402), the selected runtime's count stays fresh, older
// counts say how old they are, and the event log says why.
func TestIdleCostFlatInRuntimes(t *testing.T) {
	s := newStack(t, stackOpts{emu: colabfake.Options{Runtimes: 200, TokenTTL: 24 * time.Hour}})
	s.start()
	if got := s.srv.CallCount("list_sessions"); got != 200 {
		t.Fatalf("first load: %d list_sessions, want one per runtime (200)", got)
	}
	// The budget, every call counted (the selected runtime's renewal
	// too).
	if most := callsPerMinute(s, 20*time.Minute); most > state.DefaultCallBudget {
		t.Fatalf("%d calls in an idle minute with 200 runtimes, want at most %d", most, state.DefaultCallBudget)
	}
	sel := s.m.cx.Snap.Runtime(s.m.Selected())
	if age := s.clk.Now().Sub(sel.SessionsFresh.FetchedAt); age > config.DefaultRefreshInterval {
		t.Errorf("the selected runtime's count is %v old", age)
	}
	// A SESS cell with an age ("1 4m12s") before a token countdown.
	if v := s.view(); !regexp.MustCompile(`\d [1-9]\d?m(\d+s)? +(\d+[dhms])+ `).MatchString(v) {
		t.Fatalf("no aged count on screen:\n%s", v)
	}
	found := false
	for _, e := range s.m.Events() {
		if e.Tool == "list_sessions" && e.Outcome() == "stale" && strings.Contains(e.Note, fmt.Sprintf("wait for the call budget (%d calls a minute)", state.DefaultCallBudget)) {
			found = true
		}
	}
	if !found {
		t.Errorf("the event log does not say counts wait for the budget: %+v", s.m.Events()[:3])
	}
}

// The selected runtime's renewal, made whatever the budget, is
// counted in it, and a call is kept for it while it is due within the
// minute, so no 60 s ever holds more calls than the budget: with a budget
// of 8 (4 for the refreshes, 4 for the rest) and twelve runtimes whose
// counts and renewals all wait for it, the other tokens due at once and
// the selected one's 30 s later. Every token is renewed before it lapses.
func TestSelectedRenewalCountedInBudget(t *testing.T) {
	s := newStack(t, stackOpts{emu: colabfake.Options{TokenTTL: time.Hour}, ui: Options{CallBudget: 8}})
	for i := 0; i < 12; i++ {
		s.addRuntime(t, fmt.Sprintf("r-%02d", i), stackCPU)
	}
	s.start()
	sel := s.m.Selected()
	for r := range s.m.cx.Snap.All() {
		at := s.clk.Now().Add(6 * time.Minute) // due within the 5-minute lead in a minute
		if r.Name == sel {
			at = at.Add(30 * time.Second)
		}
		s.srv.ExpireToken(r.Name, at)
	}
	renewed := s.srv.CallCount("get_runtime")
	most, perMinute, expired := idleMinutes(t, s, 6*time.Minute)
	if most > 8 {
		t.Errorf("%d calls in 60 s with a budget of 8 (each minute: %v)", most, perMinute)
	}
	if n := s.srv.CallCount("get_runtime") - renewed; expired > 0 || n != 12 {
		t.Errorf("%d renewals of 12 tokens, %d tokens lapsed", n, expired)
	}
}

// On the fake clock at a quarter-second resolution, 100 runtimes whose
// 2-minute tokens ask for far more renewals than the budget allows: no
// 60 s, its ends included, holds more calls than the budget (a slot freed
// exactly 60 s after a burst let the next burst in at 60.0 s: a server
// counting its own minute saw both), and no second holds more than the
// pace lets out (PaceBurst) beside the refresh's own calls and the selected
// runtime's renewal (the whole minute's renewals once went out at once).
func TestIdleCallsSpreadInEverySlidingWindow(t *testing.T) {
	const step = 250 * time.Millisecond
	s := newStack(t, stackOpts{emu: colabfake.Options{Runtimes: 100, TokenTTL: 2 * time.Minute}})
	s.start()
	var at []time.Time // one entry per tools/call, at the tick that sent it
	last := s.srv.CallCount("")
	for i := 0; i < int(3*time.Minute/step); i++ {
		s.tick(step)
		n := s.srv.CallCount("")
		for range n - last {
			at = append(at, s.clk.Now())
		}
		last = n
	}
	most := func(w time.Duration) (int, time.Time) { return mostInWindow(at, w) }
	if m, when := most(time.Minute); m > state.DefaultCallBudget {
		t.Errorf("%d calls in the 60 s from %v (ends included), want at most %d", m, when.Sub(t0), state.DefaultCallBudget)
	}
	if m, when := most(time.Second - step); m > state.PaceBurst+3 {
		t.Errorf("%d calls in the second from %v, want at most %d (spread: the pace's burst, list_runtimes, the selected runtime's sessions and renewal)", m, when.Sub(t0), state.PaceBurst+3)
	}
	if n := s.srv.CallCount("get_runtime"); n < 2*(state.DefaultCallBudget-4) {
		t.Errorf("%d renewals in 3 minutes: the budget's room went unused", n)
	}
}
