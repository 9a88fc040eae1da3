package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/state/monitor"
	"github.com/colabdash/colabdash/ui/poll"
)

// A proxy token that lives less than the renew lead and the 30 s retry
// (colabdash emulator --token-ttl 20s) is renewed before it lapses, every
// time, with one get_runtime at a time and no hammering.
func TestShortLivedTokenNeverLapses(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{TokenTTL: 20 * time.Second}, nil)
	e.srv.SetNow(e.clk.now)
	const name = "runtimes/rt-cpudemo4qx" // a few minutes left: renewed at once
	before := e.srv.CallCount("get_runtime")
	for i := 0; i < 180; i++ {
		e.clk.add(time.Second)
		m = e.tick(t, m)
		r := m.cx.Snap.Runtime(name)
		if m.calls.renew.Life(name) == 0 { // not renewed yet
			continue
		}
		if st, rem := r.Token(e.clk.now(), m.opts.ExpiringThreshold); st == state.TokenExpired {
			t.Fatalf("after %ds the 20 s token lapsed (%v):\n%s", i+1, rem, m.View())
		}
	}
	// The demo seed's three tokens all live 20 s: about one renewal per
	// runtime per 10 s (half the lifetime), not one per tick (540).
	if n := e.srv.CallCount("get_runtime") - before; n < 30 || n > 60 {
		t.Fatalf("%d get_runtime calls in 180 s", n)
	}
}

// The details say "renewing…" only while get_runtime is in flight;
// otherwise when the renewal is due.
func TestExpiredTokenSaysWhenItRenews(t *testing.T) {
	_, clk, m := fixture(t)
	m, _ = update(m, keyMsg("j"))
	m, _ = update(m, keyMsg("j")) // r-charlie: expired 30 s ago
	m.opts.NoAutoRenew = false
	// A renewal that failed just now: the next one in 30 s.
	m.calls.renew.Started("runtimes/r-charlie", clk.now())
	m.calls.renew.Done("runtimes/r-charlie", clk.now(), time.Time{}, time.Time{}, errors.New("backend unavailable"))
	v := m.View()
	if strings.Contains(v, "renewing") {
		t.Fatalf("renewing shown with no get_runtime in flight:\n%s", v)
	}
	mustContain(t, v, "EXPIRED, renews in 0:30")
	cmd := m.calls.issue(callKey{kind: callRenew, runtime: "runtimes/r-charlie"}, clk.now())
	if cmd == nil {
		t.Fatal("no renewal issued")
	}
	mustContain(t, m.View(), "EXPIRED, renewing…")
}

// A failed get_subscription says so in the header and is retried with the
// refresh until the tier is known.
func TestTierFailureShownAndRetried(t *testing.T) {
	f := newFake()
	f.panicOn = "get_subscription"
	clk := &clock{t: t0}
	m := testModel(f, clk)
	m, _ = update(m, tea.WindowSizeMsg{Width: 120, Height: 30})
	mustContain(t, m.View(), "tier …")
	m, _ = run(t, m, m.Init())
	v := m.View()
	mustContain(t, v, "tier unknown (retrying: internal error in get_subscription")
	f.mu.Lock()
	f.panicOn = ""
	f.mu.Unlock()
	clk.add(config.DefaultRefreshInterval)
	m, cmd := update(m, tickMsg{gen: m.life.tickGen})
	m, _ = run(t, m, cmd)
	if f.count("get_subscription") != 2 {
		t.Fatalf("get_subscription called %d times, want a retry with the refresh", f.count("get_subscription"))
	}
	mustContain(t, m.View(), "tier Pro")
}

// r then a failed list_runtimes: "refreshing…" gives way to the failure;
// R ends with what the renewal did.
func TestManualRefreshAndRenewReportOutcome(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: "list_runtimes", Times: 1,
		Text: colabfake.GoogleErrorText(api.Unavailable, "backend unavailable", "", 0)})
	m = e.press(t, m, "r")
	v := m.View()
	if strings.Contains(v, "refreshing…") {
		t.Fatalf("refreshing… shown after the refresh failed:\n%s", v)
	}
	mustContain(t, v, "refresh failed: ", "retry in 1:00")
	m = e.press(t, m, "r")
	mustContain(t, m.View(), "✓ refreshed")
	m = e.press(t, m, "R")
	mustContain(t, m.View(), "✓ renewed rt-t4demo7k2p (expires in ")
}

// The idle cost is flat in the number of runtimes, and a
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
	// The budget, every call counted (the selected runtime's renewal
	// too).
	if most := callsPerMinute(s, 20*time.Minute); most > state.DefaultCallBudget {
		t.Fatalf("%d calls in an idle minute with 200 runtimes, want at most %d", most, state.DefaultCallBudget)
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

// A renewal whose reply does not move expireTime later (once a storm of
// 257 get_runtime calls in 10 minutes for one runtime) backs off
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

// "429 with Retry-After: 100000" once showed "retry in 24:00:00"
// and stopped refreshing for a day. The wait is capped at five minutes and
// shown as such, `r` still refreshes at once, and automatic refreshes come
// back after the capped wait.
func TestHugeRetryAfterIsCappedAndRStillRefreshes(t *testing.T) {
	s := newStack(t, stackOpts{attempts: 1})
	s.addRuntime(t, "r-alpha", stackT4)
	s.srv.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: "list_runtimes", Status: 429, RetryAfter: "100000", Times: -1,
		Body: `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"slow down"}}`})
	s.start()
	v := s.view()
	if !strings.Contains(v, "retry in 5:00") || strings.Contains(v, "24:00:00") || strings.Contains(v, "27:46:40") {
		t.Fatalf("the header should show the capped wait (retry in 5:00):\n%s", v)
	}
	// The server recovers: r refreshes at once, without waiting 5 minutes.
	s.srv.ClearFaults()
	var cmd tea.Cmd
	s.m, cmd = update(s.m, keyMsg("r"))
	s.drive(cmd)
	if v := s.view(); !strings.Contains(v, "r-alpha") || !strings.Contains(v, "● connected") {
		t.Fatalf("r did not refresh during the wait:\n%s", v)
	}
	// Failing again: the automatic refresh comes back after the capped
	// wait, not after a day.
	s.srv.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: "list_runtimes", Status: 429, RetryAfter: "100000", Times: -1})
	s.tick(config.DefaultRefreshInterval + time.Second)
	if v := s.view(); !strings.Contains(v, "retry in 5:00") {
		t.Fatalf("want the capped wait shown again:\n%s", v)
	}
	s.srv.ClearFaults()
	s.tick(4 * time.Minute)
	if v := s.view(); strings.Contains(v, "● connected") {
		t.Fatalf("refreshed before the wait ended:\n%s", v)
	}
	s.tick(time.Minute + time.Second)
	if v := s.view(); !strings.Contains(v, "● connected") {
		t.Fatalf("no automatic refresh 5 minutes after a Retry-After of 100000 s:\n%s", v)
	}
}

// rowOf returns the table row of runtime id in view v.
func rowOf(t *testing.T, v, id string) string {
	t.Helper()
	for _, ln := range strings.Split(v, "\n") {
		if strings.Contains(ln, " "+id+" ") && !strings.Contains(ln, "SESSIONS") && !strings.Contains(ln, "DETAILS") {
			return ln
		}
	}
	t.Fatalf("no row %s in\n%s", id, v)
	return ""
}

// A failed renewal never hides expiry. An expired token
// reads EXPIRED with the failure as the row's "!" marker; the details say
// the renewal failed; a successful refresh clears the mark at once.
func TestExpiredWinsOverRenewFailure(t *testing.T) {
	f, clk, m := fixture(t)
	m, _ = update(m, tea.WindowSizeMsg{Width: 100, Height: 30})
	m.cx.Snap.ApplyRenewError(clk.now(), "runtimes/r-charlie", errors.New("backend unavailable"))
	m.cx.Snap.ApplyRenewError(clk.now(), "runtimes/r-bravo", errors.New("backend unavailable"))
	m.calls.renew.Started("runtimes/r-charlie", clk.now())
	m.calls.renew.Done("runtimes/r-charlie", clk.now(), time.Time{}, time.Time{}, errors.New("backend unavailable"))
	m.rt.Invalidate()
	m, _ = update(m, tickMsg{gen: m.life.tickGen + 1}) // a stale tick: only re-syncs
	v := m.View()
	if r := rowOf(t, v, "r-charlie"); !strings.Contains(r, "! r-charlie") || !strings.Contains(r, "0:00 EXPIRED") || strings.Contains(r, "RENEW FAILED") {
		t.Fatalf("expired row with a failed renewal: %q", r)
	}
	// A token that has time left says the renewal failed (the countdown
	// stays beside it).
	if r := rowOf(t, v, "r-bravo"); !strings.Contains(r, "! r-bravo") || !strings.Contains(r, "4:47 RENEW FAILED") {
		t.Fatalf("expiring row with a failed renewal: %q", r)
	}
	m = m.selectID(t, "r-charlie")
	mustContain(t, m.View(), "EXPIRED, renew failed, retry in")
	// The next list shows both runtimes: the marks go at once.
	f.runtimes[2] = mkRuntime("r-charlie", specTPU, clk.now().Add(time.Hour), "")
	m, _ = run(t, m, tea.Batch(m.calls.refresh(clk.now(), true)...))
	v = m.View()
	for _, id := range []string{"r-charlie", "r-bravo"} {
		if r := rowOf(t, v, id); strings.Contains(r, "! "+id) || strings.Contains(r, "RENEW FAILED") {
			t.Fatalf("a successful refresh left the failure mark: %q", r)
		}
	}
	if r := rowOf(t, v, "r-charlie"); !strings.Contains(r, "1:00:00 OK") {
		t.Fatalf("refreshed row: %q", r)
	}
}

// The EXPIRING threshold scales with short token
// lifetimes. Once a renewal showed that tokens live two minutes, a fresh
// one reads OK, not EXPIRING from its first second; it reads EXPIRING in
// its last quarter.
func TestExpiringThresholdScalesWithTokenLifetime(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{TokenTTL: 2 * time.Minute}, nil)
	e.srv.SetNow(e.clk.now)
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "R") // renew now: the new token shows its lifetime
	if got := m.calls.renew.Life("runtimes/rt-t4demo7k2p"); got < 110*time.Second || got > 2*time.Minute {
		t.Fatalf("learnt a token lifetime of %v, want about 2m", got)
	}
	if r := rowOf(t, m.View(), "rt-t4demo7k2p"); !strings.Contains(r, " OK") || strings.Contains(r, "EXPIRING") {
		t.Fatalf("a fresh two-minute token: %q", r)
	}
	e.clk.add(91 * time.Second)
	if r := rowOf(t, m.View(), "rt-t4demo7k2p"); !strings.Contains(r, "EXPIRING") {
		t.Fatalf("a two-minute token with under 30 s left: %q", r)
	}
	// An hour-long token keeps the configured threshold (5 min).
	if got := m.cx.Activity.Renewals.Threshold("runtimes/rt-v6edemo2mw"); got != m.opts.ExpiringThreshold {
		t.Fatalf("threshold of a runtime whose lifetime is unknown: %v", got)
	}
	m.calls.renew.Learn("runtimes/x", time.Hour)
	if got := m.cx.Activity.Renewals.Threshold("runtimes/x"); got != 5*time.Minute {
		t.Fatalf("threshold of an hour-long token: %v", got)
	}
}

// A runtime the user deleted leaves the list at once, even when a list
// that raced the delete still has it; the header count follows.
func TestDeletedRuntimeLeavesTheList(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	mustContain(t, m.View(), "RUNTIMES 3 ")
	// A refresh sent before the delete answers after it.
	m, late := update(m, keyMsg("r"))
	m = e.press(t, m, "d", "y")
	m = drive(t, m, late)
	v := m.View()
	mustContain(t, v, "✓ deleted rt-t4demo7k2p", "RUNTIMES 2 ")
	for _, r := range m.rt.Rows() {
		if r.ID() == "rt-t4demo7k2p" {
			t.Fatal("deleted runtime still listed")
		}
	}
	if strings.Contains(v, "rt-t4demo7k2p  ") || strings.Contains(v, "gone") || m.Selected() == "runtimes/rt-t4demo7k2p" {
		t.Fatalf("deleted runtime still shown or selected:\n%s", v)
	}
}

// A runtime Colab reclaimed stays listed as gone but is not counted as a
// runtime, and actions on it say it is gone, not "no runtime selected".
func TestGoneRowCountedApartAndActionsSayGone(t *testing.T) {
	_, clk, m := fixture(t)
	m, _ = update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	mustContain(t, m.View(), "RUNTIMES 4 · 1 gone")
	m, _ = update(m, keyMsg("G"))
	if m.Selected() != "runtimes/r-echo" {
		t.Fatalf("selected %q", m.Selected())
	}
	for _, k := range []string{"d", "o", "e", "y", "R"} {
		clk.add(time.Second)
		m, _ = update(m, keyMsg(k))
		m.scr.stack = nil
		v := m.View()
		mustContain(t, v, "r-echo is gone (reclaimed")
		if strings.Contains(v, "no runtime") {
			t.Fatalf("%s: %s", k, v)
		}
	}
}

// At 100 columns every row kind keeps the name in the same column and its
// status word whole: a failed renewal, a gone runtime, a create in
// progress (which shows the requested id, or what it creates).
func TestRowColumnsAlignedAt100(t *testing.T) {
	_, clk, m := fixture(t)
	m, _ = update(m, tea.WindowSizeMsg{Width: 100, Height: 30})
	m.cx.Snap.ApplyRenewError(clk.now(), "runtimes/r-bravo", errors.New("backend unavailable"))
	m.calls.renew.Started("runtimes/r-bravo", clk.now())
	m.calls.renew.Done("runtimes/r-bravo", clk.now(), time.Time{}, time.Time{}, errors.New("backend unavailable"))
	m.cr.creates = []*createOp{
		{id: 1, spec: specA100, runtimeID: "my-a100", started: clk.now().Add(-time.Second)},
		{id: 2, spec: specA100, started: clk.now().Add(-time.Second)},
	}
	m.rt.Invalidate()
	m, _ = update(m, tickMsg{gen: m.life.tickGen + 1}) // a stale tick: only re-syncs
	v := ansi.Strip(m.View())
	col := func(name string) int {
		for _, ln := range strings.Split(v, "\n") {
			if i := strings.Index(ln, name); i >= 0 {
				return ansi.StringWidth(ln[:i])
			}
		}
		t.Fatalf("no %q in\n%s", name, v)
		return -1
	}
	want := col("r-alpha")
	for _, n := range []string{"r-bravo", "r-echo", "my-a100", "creating GPU/A100/HIGHMEM", "NAME"} {
		if got := col(n); got != want {
			t.Errorf("%s starts at column %d, want %d:\n%s", n, got, want, v)
		}
	}
	mustContain(t, v, "! r-bravo", "RENEW FAILED\n", "GONE seen 2m ago\n", "creating… 0:01")
	if strings.Contains(v, "…\n") {
		t.Fatalf("a row is cut:\n%s", v)
	}
}

// The selected runtime stays on screen when creates in progress take rows
// above it: the table scrolls, it does not push the selection out.
func TestSelectionVisibleUnderCreateRows(t *testing.T) {
	f := newFake()
	for i := range 30 {
		f.runtimes = append(f.runtimes, mkRuntime(fmt.Sprintf("r-%02d", i), specT4, t0.Add(time.Hour), ""))
	}
	clk := &clock{t: t0}
	m := testModel(f, clk)
	m, _ = update(m, tea.WindowSizeMsg{Width: 100, Height: 30})
	m, _ = run(t, m, m.Init())
	row := func(id string) bool { // the runtime's table row is on screen
		return regexp.MustCompile(`(?m)^.{0,6}` + id + ` +GPU/T4`).MatchString(ansi.Strip(m.View()))
	}
	for range 29 {
		m, _ = update(m, keyMsg("j"))
	}
	if !row("r-29") {
		t.Fatalf("the last runtime is not on screen after moving to it:\n%s", m.View())
	}
	type nothing struct{}
	for i := range 3 {
		m.cr.creates = append(m.cr.creates, &createOp{id: i + 1, spec: specA100, started: clk.now()})
		m, _ = update(m, nothing{})
		first := 30 - (m.cx.Layout.TableRows - (i + 1)) + 1 // the runtime rows left end at the 30th
		if v := ansi.Strip(m.View()); !row("r-29") || strings.Count(v, "creating GPU/A100/HIGHMEM") != i+1 || !strings.Contains(v, fmt.Sprintf("· %d–30\n", first)) {
			t.Fatalf("with %d creates in progress the selected r-29, a create row or the range in the title is wrong:\n%s", i+1, v)
		}
	}
	// Moving up from the bottom moves the cursor, not the window.
	m, _ = update(m, keyMsg("k"))
	if !row("r-28") || !row("r-29") {
		t.Fatalf("after k the rows around the selection are off screen:\n%s", m.View())
	}
}

// statusLine is the first of the footer's two lines: the status line.
func statusLine(m Model) string {
	lines := strings.Split(m.View(), "\n")
	return lines[len(lines)-2]
}

// A status that says something is under way ("opening session …",
// "deleting …") is gone once the call it waits for has answered, whatever
// shows next (the dashboard, the console) and whether it worked or not.
func TestProgressStatusEndsWithItsCall(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault string // a tool that fails once, or none
		keys  []string
		under string // the under-way text that must be gone
		start int    // the index of the key that starts the call (0: the last one)
	}{
		{name: "open session for the console", keys: []string{"e", "y"}, under: "opening session"},
		{name: "open session for the console, then code", keys: []string{"e", "y", "1", "enter"}, under: "opening session", start: 1},
		{name: "open session", keys: []string{"o", "enter"}, under: "opening session"},
		{name: "open session fails", fault: "create_session", keys: []string{"o", "enter"}, under: "opening session"},
		{name: "close session", keys: []string{"tab", "x", "c", "l", "o", "s", "e", "enter"}, under: "closing session"},
		{name: "delete", keys: []string{"d", "y"}, under: "deleting"},
		{name: "delete fails", fault: "delete_runtime", keys: []string{"d", "y"}, under: "deleting"},
		{name: "renew", keys: []string{"R"}, under: "renewing"},
		{name: "renew fails", fault: "get_runtime", keys: []string{"R"}, under: "renewing"},
		{name: "refresh", keys: []string{"r"}, under: "refreshing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, m := emuModel(t, colabfake.Options{}, nil)
			m = m.selectID(t, "rt-cpudemo4qx")
			if tc.fault != "" {
				e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Status: 500, Tool: tc.fault, Times: 1})
			}
			if tc.start == 0 {
				tc.start = len(tc.keys) - 1
			}
			m = e.press(t, m, tc.keys[:tc.start]...)
			// The key that starts the call: the status says so while it is
			// under way, and no longer once it has answered.
			e.clk.add(DialogGrace + time.Millisecond)
			m, cmd := update(m, keyMsg(tc.keys[tc.start]))
			if s := statusLine(m); !strings.Contains(s, tc.under) {
				t.Fatalf("while the call is under way the status line says %q, not %q:\n%s", s, tc.under, m.View())
			}
			m = drive(t, m, cmd)
			m = e.press(t, m, tc.keys[tc.start+1:]...)
			if s := statusLine(m); strings.Contains(s, tc.under) {
				t.Fatalf("after the call answered the status line still says %q:\n%s", s, m.View())
			}
		})
	}
}

// monitorStack is the dashboard with the monitor on against the demo
// emulator (its clock the test's), counting the proxy requests by path.
type monitorStack struct {
	*stack
	mu   sync.Mutex
	reqs map[string]int
	auth int         // requests that carried an Authorization header
	at   []time.Time // when each monitor request came, by the stack's clock
}

func newMonitorStack(t testing.TB, width int, emu colabfake.Options) *monitorStack {
	ms := &monitorStack{reqs: map[string]int{}}
	if emu.Seed == "" {
		emu.Seed = colabfake.SeedDemo
	}
	emu.OnProxyRequest = func(r *http.Request) {
		ms.mu.Lock()
		defer ms.mu.Unlock()
		ms.reqs[r.URL.Path]++
		if strings.HasSuffix(r.URL.Path, "/api/colab/resources") || strings.HasSuffix(r.URL.Path, "/api/kernels") {
			ms.at = append(ms.at, ms.clk.Now())
		}
		if r.Header.Get("Authorization") != "" {
			ms.auth++
		}
	}
	ms.stack = newStack(t, stackOpts{emu: emu, width: width, ui: Options{Monitor: apimon.New(apimon.Options{})}})
	return ms
}

func (ms *monitorStack) count(runtime, route string) int {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	return ms.reqs["/proxy/"+runtime+"/"+route]
}

// The dashboard polls the emulator's runtimes through their proxies with
// the proxy token alone and shows their figures: the table's RAM, GPU and
// ACTIVITY columns, the details' sparklines, the kernels, a GPU never
// used; an hour of idleness reads IDLE; nothing is deleted or kept alive.
func TestMonitorAgainstTheEmulator(t *testing.T) {
	ms := newMonitorStack(t, 100, colabfake.Options{})
	ms.start()
	ms.tick(time.Second)
	ms.m = ms.m.selectID(t, "rt-t4demo7k2p")
	// The two runtimes whose tokens are renewed on the first tick are
	// polled once the renewal answered, with the new tokens.
	ms.tick(5 * time.Second)
	ms.tick(25 * time.Second)
	v := ms.view()
	for _, want := range []string{"RAM   GPU   ACTIVITY   SPEC", "rt-t4demo7k2p ▂ 13% ▁  0% idle 0:00", "rt-cpudemo4qx ▂ 10%     – idle 0:00",
		"kernels  0 busy 2 idle · idle 0:00", "gpu      Tesla T4 · never used", "ram      1.6/12.7 GiB 13%"} {
		if !strings.Contains(v, want) {
			t.Errorf("screen lacks %q:\n%s", want, v)
		}
	}
	if ms.count("rt-t4demo7k2p", "api/colab/resources") < 2 || ms.count("rt-v6edemo2mw", "api/kernels") != 1 {
		t.Errorf("requests: %v", ms.reqs)
	}
	if ms.auth != 0 {
		t.Errorf("%d proxy requests carried an Authorization header", ms.auth)
	}
	// 72 minutes on (the tokens renew meanwhile), the last 16 a tick every
	// 2 minutes: every kernel idle an hour reads IDLE in capitals, in the
	// table and the details, over a sparkline of the last 15 minutes.
	ms.tick(28 * time.Minute)
	ms.tick(28 * time.Minute)
	for range 8 {
		ms.tick(2 * time.Minute)
	}
	v = ms.view()
	for _, want := range []string{"IDLE 1:12", "(last activity 17:00)"} {
		if !strings.Contains(v, want) {
			t.Errorf("after 72 idle minutes the screen lacks %q:\n%s", want, v)
		}
	}
	if strings.Count(v, "IDLE 1:12") < 3 {
		t.Errorf("the two runtimes with kernels are not both IDLE:\n%s", v)
	}
	ram := ""
	for _, l := range strings.Split(v, "\n") {
		if strings.Contains(l, " ram ") {
			ram = l
		}
	}
	if !strings.ContainsAny(ram, "▁▂▃▄▅▆▇█") || strings.Count(ram, "▂") < 6 {
		t.Errorf("no 15-minute sparkline: %q", ram)
	}
	if len(ms.srv.Runtimes()) != 3 {
		t.Errorf("a runtime went: %d left", len(ms.srv.Runtimes()))
	}
}

// Faults: a 500 reads "resources unavailable: HTTP 500", and after three
// failed polls the figures are marked stale (backed off in between); a
// stock server's HTML 404 is "not offered by this runtime" and asked
// again only after 10 minutes, never with a renewal; a refused proxy
// token is renewed through get_runtime once and the poll retried.
func TestMonitorFaults(t *testing.T) {
	ms := newMonitorStack(t, 100, colabfake.Options{})
	ms.start()
	ms.tick(time.Second)
	sel := "rt-cpudemo4qx"
	if ms.m.Selected() != "runtimes/"+sel {
		t.Fatalf("selected %s", ms.m.Selected())
	}
	ms.tick(5 * time.Second) // its token was being renewed on the first tick: polled now
	ms.srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Status: 500, Body: "boom", PathPrefix: "api/colab/resources", Times: -1})
	ms.tick(5 * time.Second)
	if v := ms.view(); !strings.Contains(v, "resources unavailable: HTTP 500 (figures of") || !strings.Contains(v, "ram      1.3/12.7 GiB 10%") {
		t.Errorf("one failure:\n%s", v)
	}
	before := ms.count(sel, "api/colab/resources")
	ms.tick(5 * time.Second)
	if ms.count(sel, "api/colab/resources") != before {
		t.Errorf("polled again within the 30 s backoff")
	}
	for _, d := range []time.Duration{25 * time.Second, time.Minute} {
		ms.tick(d)
	}
	if v := ms.view(); !strings.Contains(v, "(figures stale)") || !strings.Contains(v, "rt-cpudemo4qx stale") {
		t.Errorf("after %d failures:\n%s", monitor.StaleAfter, v)
	}
	ms.srv.ClearProxyFaults()

	// A stock server: HTML 404 from Jupyter itself.
	renewals := ms.srv.CallCount("get_runtime")
	ms.srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStockNotFound, PathPrefix: "api/colab/resources", Times: -1})
	ms.tick(5 * time.Minute)
	if v := ms.view(); !strings.Contains(v, "not offered by this runtime") || !strings.Contains(v, "rt-cpudemo4qx   n/a") {
		t.Errorf("a stock server:\n%s", v)
	}
	asked := ms.count(sel, "api/colab/resources")
	for range 9 {
		ms.tick(time.Minute)
	}
	if ms.count(sel, "api/colab/resources") != asked {
		t.Errorf("resources asked again within 10 minutes of not offered")
	}
	if got := ms.srv.CallCount("get_runtime") - renewals; got > 0 {
		t.Errorf("%d get_runtime for a missing route", got)
	}
	ms.srv.ClearProxyFaults()

	// The proxy refuses the token once (a bare 404): one renewal, one
	// retry, figures again.
	ms.tick(2 * time.Minute)
	renewals = ms.srv.CallCount("get_runtime")
	ms.srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Status: 404, PathPrefix: "api/colab/resources"})
	ms.tick(5 * time.Second)
	if got := ms.srv.CallCount("get_runtime") - renewals; got != 1 {
		t.Errorf("%d get_runtime after a refused token, want 1", got)
	}
	m := ms.m.mon.poll.Runtime("runtimes/" + sel)
	if m == nil || m.ResourcesErr != nil || m.NotOffered {
		t.Errorf("after the renewal: %+v", m)
	}
}

// fakeProxy is a loopback runtime proxy for many runtimes that answers
// every resources and kernels request with fixed figures, counting them.
type fakeProxy struct {
	srv  *httptest.Server
	mu   sync.Mutex
	n    int
	byRT map[string]int
}

func newFakeProxy(tb testing.TB) *fakeProxy {
	p := &fakeProxy{byRT: map[string]int{}}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, route, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/proxy/"), "/")
		p.mu.Lock()
		p.n++
		p.byRT[id]++
		p.mu.Unlock()
		if route == "api/kernels" {
			fmt.Fprint(w, `[{"id":"k","name":"python3","execution_state":"idle","last_activity":"2026-11-29T16:00:00Z","connections":1}]`)
			return
		}
		fmt.Fprint(w, `{"memory":{"totalBytes":13636500000,"freeBytes":12000000000},"disks":[{"filesystem":{"label":"kernel","totalBytes":100,"usedBytes":20}}]}`)
	}))
	tb.Cleanup(p.srv.Close)
	return p
}

func (p *fakeProxy) counts() (total, runtimes int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n, len(p.byRT)
}

// BenchmarkMonitorPolls is the monitor's request bound: the
// dashboard with the monitor on over 1,000 runtimes, every one on screen
// (a 1,700-line terminal), whose proxies answer at once, one tick a
// simulated second for 10 minutes. It reports the most proxy requests in
// any minute ("max-req/min", at most 120), the longest gap between two
// polls of the selected runtime ("selected-gap-s", 5 s) and how many
// runtimes were polled at all ("runtimes-polled").
func BenchmarkMonitorPolls(b *testing.B) {
	var most, polled int
	var gap time.Duration
	for range b.N {
		px := newFakeProxy(b)
		f := newFake()
		for i := range 1000 {
			id := fmt.Sprintf("r-%05d", i)
			rt := mkRuntime(id, specCPU, t0.Add(10*time.Hour), "")
			rt.ConnectionInfo.URL = px.srv.URL + "/proxy/" + id + "/"
			f.runtimes = append(f.runtimes, rt)
		}
		clk := &clock{t: t0}
		m := New(Options{Service: f, Now: clk.now, Location: time.UTC, NoColor: true, Monitor: apimon.New(apimon.Options{})})
		m.life.every = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
		m, _ = update(m, tea.WindowSizeMsg{Width: 160, Height: 1700})
		m = drive(b, m, m.Init())
		sel := m.Selected()
		perSecond := make([]int, 0, 600)
		var last time.Time
		gap = 0
		for range 600 {
			before, _ := px.counts()
			clk.t = clk.t.Add(time.Second)
			var cmd tea.Cmd
			m, cmd = update(m, tickMsg{gen: m.life.tickGen})
			m = drive(b, m, cmd)
			after, _ := px.counts()
			perSecond = append(perSecond, after-before)
			if r := m.mon.poll.Runtime(sel); r != nil && r.KernelsAt.Equal(clk.t) {
				if !last.IsZero() {
					gap = max(gap, clk.t.Sub(last))
				}
				last = clk.t
			}
		}
		most = 0
		for i := range perSecond {
			n := 0
			for _, c := range perSecond[i:min(i+60, len(perSecond))] {
				n += c
			}
			most = max(most, n)
		}
		_, polled = px.counts()
		if m.Selected() != sel || last.IsZero() {
			b.Fatalf("the selected runtime %s was never polled", sel)
		}
	}
	b.ReportMetric(float64(most), "max-req/min")
	b.ReportMetric(gap.Seconds(), "selected-gap-s")
	b.ReportMetric(float64(polled), "runtimes-polled")
}

// withMonitor turns m's monitor on with figures for its first 100
// runtimes (r-00000, the selected one, with 15 minutes of polls every
// 5 s and its kernels idle 72 minutes), as BenchmarkView draws them.
func withMonitor(m Model) Model {
	m.mon = &monitorOps{cx: m.cx, opts: &m.opts, link: m.link, rt: m.rt, poll: poll.New(apimon.New(apimon.Options{}))}
	m.cx.Monitor = m.mon.poll
	m.relayout()
	st := m.mon.poll.Store()
	now := m.cx.Now()
	res := apimon.Resources{Memory: &apimon.Memory{TotalBytes: 13636500000, FreeBytes: 12000000000},
		Disks: []apimon.Disk{{Label: "kernel", TotalBytes: 100, UsedBytes: 20}},
		GPUs:  []apimon.GPU{{Name: "Tesla T4", MemoryTotalBytes: 100, MemoryUsedBytes: 10, GPUUtilization: 0.3, EverUsed: true}}}
	ks := []apimon.Kernel{{ID: "k", ExecutionState: "idle", LastActivity: now.Add(-72 * time.Minute), Connections: 1}}
	for i, r := range m.rt.Rows() {
		if i == 100 {
			break
		}
		st.RecordResources(r.Name, now, res, nil)
		st.RecordKernels(r.Name, now, ks, nil)
	}
	sel := m.rt.Selected()
	for i := range monitor.HistoryLen {
		st.RecordResources(sel, now.Add(-time.Duration(i)*monitor.HistoryStep), res, nil)
	}
	return m
}

// A kernel "starting" for over a minute with no connection (the
// emulator's stuck kernel) reads "stuck" in the table and
// "never connected" in the details, not idle.
func TestMonitorStuckKernel(t *testing.T) {
	ms := newMonitorStack(t, 100, colabfake.Options{StuckKernel: true})
	ms.start()
	ms.m = ms.m.selectID(t, colabfake.StuckKernelRuntime)
	ms.tick(time.Second)
	ms.tick(2 * time.Minute)
	v := ms.view()
	row := ""
	for _, l := range strings.Split(v, "\n") {
		if strings.Contains(l, colabfake.StuckKernelRuntime+" ") && row == "" {
			row = l // the table's row, above the panes' titles
		}
	}
	if !strings.Contains(row, " stuck ") || !strings.Contains(v, "kernels  never connected (starting, no conn") ||
		!strings.Contains(v, "starting  last 17:00 · 0 connections") {
		t.Errorf("a kernel stuck starting:\n%s", v)
	}
}
