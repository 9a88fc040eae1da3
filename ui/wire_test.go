package ui

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/state/config"
)

// Issue 11: the idle cost is flat in the number of runtimes, and a
// renewal that does not extend the token does not turn into a storm. All on
// the fake clock, through the real client and the emulator.

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
	// The budget, plus now and then the selected runtime's renewal,
	// which never waits.
	if most := callsPerMinute(s, 20*time.Minute); most > state.DefaultCallBudget+1 {
		t.Fatalf("%d calls in an idle minute with 200 runtimes, want at most %d", most, state.DefaultCallBudget+1)
	}
	sel := s.m.cx.Snap.Runtime(s.m.Selected())
	if age := s.clk.Now().Sub(sel.SessionsFresh.FetchedAt); age > config.DefaultRefreshInterval {
		t.Errorf("the selected runtime's count is %v old", age)
	}
	// A SESS cell with an age ("1 4m") before a token countdown.
	if v := s.view(); !regexp.MustCompile(`\d [1-9]\d?m +\d+:\d\d `).MatchString(v) {
		t.Fatalf("no aged count on screen:\n%s", v)
	}
	found := false
	for _, e := range s.m.Events() {
		if e.Tool == "list_sessions" && e.Outcome() == "stale" && strings.Contains(e.Note, "wait for the call budget (24 calls a minute)") {
			found = true
		}
	}
	if !found {
		t.Errorf("the event log does not say counts wait for the budget: %+v", s.m.Events()[:3])
	}
}

// A count older than one refresh shows its age in the SESS column.
func TestSessColumnShowsAge(t *testing.T) {
	_, clk, m := fixture(t)
	clk.add(5 * time.Minute) // no refresh ran: every count is 5 minutes old
	v := m.View()
	if !strings.Contains(v, " 2 5m ") {
		t.Fatalf("r-alpha's 2 sessions, 5 minutes old, not shown as \"2 5m\":\n%s", v)
	}
}

// runtimeJSON is r as get_runtime would return it, with expireTime at.
func runtimeJSON(t *testing.T, name string, at time.Time) json.RawMessage {
	b, err := json.Marshal(map[string]any{"name": name, "runtimeSpec": map[string]string{"variant": "VARIANT_CPU", "accelerator": "NONE", "shape": "SHAPE_STANDARD"},
		"connectionInfo": map[string]string{"url": "https://x.prod.colab.dev", "token": "t", "expireTime": at.UTC().Format(time.RFC3339)}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A renewal whose reply does not move expireTime later (the storm of
// issue 11: 257 get_runtime calls in 10 minutes for one runtime) backs off
// from 30 s: a handful of calls an hour, and the row, the details and the
// event log say "renewal did not extend the token".
func TestRenewalThatDoesNotExtendBacksOff(t *testing.T) {
	s := newStack(t, stackOpts{emu: colabfake.Options{TokenTTL: time.Hour}})
	rt := s.addRuntime(t, "r-stuck", stackCPU)
	s.srv.ExpireToken(rt.Name, t0.Add(2*time.Minute)) // due for renewal at once
	s.srv.Inject(colabfake.Fault{Kind: colabfake.FaultOutput, Tool: "get_runtime", Times: -1,
		Output: runtimeJSON(t, rt.Name, t0.Add(2*time.Minute))})
	s.start()
	s.idle(10 * time.Minute)
	if n := s.srv.CallCount("get_runtime"); n > 6 || n < 3 {
		t.Fatalf("%d get_runtime calls in 10 minutes for a token that is never extended, want a backed-off few (30 s, 1 m, 2 m, 4 m)", n)
	}
	// The token has expired meanwhile: the row reads EXPIRED with the
	// failure mark, the details say why (while it has time left the row
	// itself says NOT EXTENDED: TestNotExtendedWordOnTheRow).
	v := s.view()
	if !strings.Contains(v, "! r-stuck") || !strings.Contains(v, "renew    renewal did not extend the token, retry in") {
		t.Fatalf("the row and details do not say the renewal did not extend the token:\n%s", v)
	}
	notes := 0
	for _, e := range s.m.Events() {
		if e.Tool == "get_runtime" && strings.HasPrefix(e.Note, "renewal did not extend the token (next try in ") {
			notes++
		}
	}
	if notes < 3 {
		t.Errorf("%d event log entries say the renewal did not extend the token", notes)
	}
	// An hour of it: within one per token lifetime plus the backed-off
	// retries (30 s, 1, 2, 4, 8, 16, 32 min).
	s.idle(50 * time.Minute)
	if n := s.srv.CallCount("get_runtime"); n > 1+7 {
		t.Fatalf("%d get_runtime calls in an hour, want at most 8", n)
	}
}

// With 2-minute tokens (emulator --token-ttl 2m) a runtime's token is
// renewed once per token lifetime, not twice: 30 lifetimes in an hour,
// at most 34 renewals (the renewal comes in the last tenth of each), and
// the token never lapses.
func TestOneRenewalPerTokenLifetime(t *testing.T) {
	s := newStack(t, stackOpts{emu: colabfake.Options{TokenTTL: 2 * time.Minute}})
	for i := 0; i < 3; i++ {
		s.addRuntime(t, fmt.Sprintf("r-%d", i), stackCPU)
	}
	s.start()
	for i := 0; i < 3600; i++ {
		s.tick(time.Second)
		for r := range s.m.cx.Snap.All() {
			if st, _ := r.Token(s.clk.Now(), s.m.opts.ExpiringThreshold); st == state.TokenExpired {
				t.Fatalf("after %ds %s's token lapsed", i+1, r.Name)
			}
		}
	}
	if n := s.srv.CallCount("get_runtime"); n > 3*34 || n < 3*30 {
		t.Fatalf("%d get_runtime calls for 3 runtimes in an hour of 2-minute tokens, want about one per lifetime (90–102)", n)
	}
}

// A list_runtimes answered while a renewal was in flight may already hold
// the renewed token; the renewal's own answer then carries the same
// expireTime. That is a renewal that extended the token (measured against
// the token it was sent to replace), not one that did not: the soak test
// saw it backed off and the token lapse.
func TestRenewalRacingAListIsNotNotExtended(t *testing.T) {
	_, clk, m := fixture(t)
	const name = "runtimes/r-bravo" // 4:47 left: due
	r := m.cx.Snap.Runtime(name)
	if m.calls.issue(callKey{kind: callRenew, runtime: name}, clk.now()) == nil {
		t.Fatal("no renewal issued")
	}
	m.calls.renew.Started(name, clk.now())
	renewed := r.Runtime
	ci := *renewed.ConnectionInfo
	ci.ExpireTime = clk.now().Add(time.Hour)
	renewed.ConnectionInfo = &ci
	m.cx.Snap.ApplyRuntimes(clk.now(), []api.Runtime{renewed}) // the list, first
	m, _ = update(m, resultMsg{key: callKey{kind: callRenew, runtime: name}, gen: m.calls.seq, runtime: renewed})
	if r := m.cx.Snap.Runtime(name); r.RenewErr != nil || m.calls.renew.Failures(name) != 0 {
		t.Fatalf("renewal counted as failed: %v, %d failures", r.RenewErr, m.calls.renew.Failures(name))
	}
}

// A token with time left whose renewal did not extend it says so on its
// row; a list showing the same token does not clear it, one showing a
// later token does.
func TestNotExtendedWordOnTheRow(t *testing.T) {
	_, clk, m := fixture(t)
	m, _ = update(m, tea.WindowSizeMsg{Width: 120, Height: 30})
	const name = "runtimes/r-bravo" // 4:47 left
	r := m.cx.Snap.Runtime(name)
	exp := r.ExpireTime()
	_, _, err := m.calls.renew.Done(name, clk.now(), exp, exp, nil)
	m.cx.Snap.ApplyRenewError(clk.now(), name, err)
	m.rt.Invalidate()
	m, _ = update(m, tickMsg{gen: m.life.tickGen + 1}) // re-sync only
	if row := rowOf(t, m.View(), "r-bravo"); !strings.Contains(row, "! r-bravo") || !strings.Contains(row, "4:47 NOT EXTENDED") {
		t.Fatalf("row %q", row)
	}
	m.cx.Snap.ApplyRuntimes(clk.now(), []api.Runtime{r.Runtime}) // the same token listed
	if m.cx.Snap.Runtime(name).RenewErr == nil {
		t.Fatal("a list with the same stale token cleared the failure")
	}
	later := r.Runtime
	ci := *later.ConnectionInfo
	ci.ExpireTime = exp.Add(time.Hour)
	later.ConnectionInfo = &ci
	m.cx.Snap.ApplyRuntimes(clk.now(), []api.Runtime{later})
	if m.cx.Snap.Runtime(name).RenewErr != nil {
		t.Fatal("a later token did not clear the failure")
	}
}
