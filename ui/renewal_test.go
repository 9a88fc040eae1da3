package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/state"
)

// An expired proxy token on a listed runtime is renewed with
// get_runtime; the runtime is only gone when NOT_FOUND confirms it.
func TestTokenRenewal(t *testing.T) {
	f, clk, m := fixture(t)
	row := func(id string) string {
		for _, ln := range strings.Split(m.View(), "\n") {
			if strings.Contains(ln, id) && !strings.Contains(ln, "SESSIONS") && !strings.Contains(ln, "DETAILS") {
				return ln
			}
		}
		return ""
	}
	if r := row("r-charlie"); !strings.Contains(r, " 0s EXPIRED") {
		t.Fatalf("expired row: %q", r)
	}
	f.renew["runtimes/r-charlie"] = mkRuntime("r-charlie", specTPU, clk.now().Add(time.Hour), "")
	f.renewErr["runtimes/r-bravo"] = &api.Error{Code: api.Unavailable, Message: "connection refused"}
	m, cmd := update(m, tickMsg{gen: m.life.tickGen})
	m, _ = run(t, m, cmd)
	if got := f.count("get_runtime"); got != 2 { // r-bravo (expiring) and r-charlie (expired)
		t.Fatalf("get_runtime calls = %d, want 2", got)
	}
	if r := row("r-charlie"); !strings.Contains(r, "1h OK") {
		t.Fatalf("renewed row: %q", r)
	}
	if r := row("r-bravo"); !strings.Contains(r, "! r-bravo") || m.cx.Snap.Runtime("runtimes/r-bravo").Gone() {
		t.Fatalf("failed renewal row: %q", r)
	}
	// The event log keeps the failure, with its target and error.
	logged := false
	for _, ev := range m.Events() {
		logged = logged || ev.Tool == "get_runtime" && ev.Target == "runtimes/r-bravo" && ev.Err != nil && strings.Contains(ev.Err.Error(), "connection refused")
	}
	if !logged {
		t.Fatalf("the failed renewal is not in the event log: %+v", m.Events())
	}
	// No hammering: the next tick does not retry within RenewRetry.
	m, cmd = update(m, tickMsg{gen: m.life.tickGen})
	m, _ = run(t, m, cmd)
	if got := f.count("get_runtime"); got != 2 {
		t.Fatalf("renewal retried too soon: %d calls", got)
	}
	// NOT_FOUND: the runtime is gone.
	f.renewErr["runtimes/r-bravo"] = &api.Error{Code: api.NotFound, HTTPStatus: 404}
	clk.add(RenewRetry)
	m, cmd = update(m, tickMsg{gen: m.life.tickGen})
	m, _ = run(t, m, cmd)
	if !m.cx.Snap.Runtime("runtimes/r-bravo").Gone() || !strings.Contains(row("r-bravo"), "GONE") {
		t.Fatalf("NOT_FOUND did not mark gone: %q", row("r-bravo"))
	}
}

// The config's renewLead and autoRenew reach the renewal loop: with a
// one-minute lead only the expired token is renewed, not the one with
// 4:47 left; with autoRenew off nothing is.
func TestRenewLeadAndNoAutoRenew(t *testing.T) {
	f, _, m := fixture(t)
	m.opts.RenewLead = time.Minute
	m.calls.renew.Lead = time.Minute // what New makes of Options.RenewLead
	m, cmd := update(m, tickMsg{gen: m.life.tickGen})
	m, _ = run(t, m, cmd)
	if got := f.count("get_runtime"); got != 1 {
		t.Fatalf("renewLead 1m: %d get_runtime calls, want 1 (only the expired token)", got)
	}
	f2, _, m2 := fixture(t)
	m2.opts.NoAutoRenew = true
	m2, cmd = update(m2, tickMsg{gen: m2.life.tickGen})
	run(t, m2, cmd)
	if got := f2.count("get_runtime"); got != 0 {
		t.Fatalf("autoRenew off: %d get_runtime calls", got)
	}
	if o := (Options{Service: f, ExpiringThreshold: 7 * time.Minute}).withDefaults(); o.RenewLead != 7*time.Minute {
		t.Fatalf("RenewLead default %v, want the expiring threshold", o.RenewLead)
	}
}

func TestRenewalFailsThenSucceeds(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, func(o *Options) { o.RenewLead = 10 * time.Minute })
	name := "runtimes/rt-cpudemo4qx" // 3 min left: inside the lead
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: "get_runtime", Times: 3,
		Text: colabfake.GoogleErrorText(api.Unavailable, "backend unavailable", "", 0)})
	m = e.tick(t, m)
	r := m.cx.Snap.Runtime(name)
	if r.RenewErr == nil || r.Gone() {
		t.Fatalf("renew err %v gone %v", r.RenewErr, r.Gone())
	}
	mustContain(t, m.View(), "! rt-cpudemo4qx", "RENEW FAILED", "retry in 30s")
	before := e.srv.CallCount("get_runtime")
	e.clk.add(10 * time.Second)
	m = e.tick(t, m)
	if e.srv.CallCount("get_runtime") != before {
		t.Fatal("retried before 30 s")
	}
	e.srv.ClearFaults()
	e.clk.add(20 * time.Second)
	m = e.tick(t, m)
	r = m.cx.Snap.Runtime(name)
	if r.RenewErr != nil {
		t.Fatalf("renewal did not succeed: %v", r.RenewErr)
	}
	// The countdown reset to the new expireTime (TTL 1 h).
	if rem := r.ExpireTime().Sub(time.Now()); rem < 55*time.Minute {
		t.Fatalf("expireTime not renewed: %v left", rem)
	}
}

func TestRenewKeyAndReclaimed(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	name := "runtimes/rt-t4demo7k2p"
	m = m.selectID(t, "rt-t4demo7k2p")
	old := m.cx.Snap.Runtime(name).ExpireTime()
	m = e.press(t, m, "R")
	if !m.cx.Snap.Runtime(name).ExpireTime().After(old) {
		t.Fatal("R did not renew")
	}
	// Reclaimed by the server: R gets NOT_FOUND and the row is gone.
	e.srv.Reclaim(name)
	m = e.press(t, m, "R")
	r := m.cx.Snap.Runtime(name)
	if r == nil || !r.Gone() {
		t.Fatal("reclaimed runtime not marked gone")
	}
	mustContain(t, m.View(), "GONE")
}

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

// TestRenewalInFlight: what a renewal in flight shows and what its
// answer counts as, on one fixture dashboard: r-charlie's details first,
// then r-bravo's renewal racing a list (which lists r-bravo alone: last).
func TestRenewalInFlight(t *testing.T) {
	_, clk, m := fixture(t)
	t.Run("the details say when an expired token renews", func(t *testing.T) { expiredTokenSaysWhenItRenews(t, clk, m) })
	t.Run("a renewal racing a list is not not-extended", func(t *testing.T) { renewalRacingAListIsNotNotExtended(t, clk, m) })
}

// The details say "renewing…" only while get_runtime is in flight;
// otherwise when the renewal is due.
func expiredTokenSaysWhenItRenews(t *testing.T, clk *clock, m Model) {
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
	mustContain(t, v, "EXPIRED, renews in 30s")
	cmd := m.calls.issue(callKey{kind: callRenew, runtime: "runtimes/r-charlie"}, clk.now())
	if cmd == nil {
		t.Fatal("no renewal issued")
	}
	mustContain(t, m.View(), "EXPIRED, renewing…")
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
	// itself says NOT EXTENDED: TestRenewFailureWordOnTheRow).
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
func renewalRacingAListIsNotNotExtended(t *testing.T, clk *clock, m Model) {
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

// A failed renewal's word on the row, on one fixture dashboard: the
// expired row first, then the token whose renewal did not extend it (whose
// last list drops the other runtimes).
func TestRenewFailureWordOnTheRow(t *testing.T) {
	f, clk, m := fixture(t)
	t.Run("expired wins over the failure", func(t *testing.T) { expiredWinsOverRenewFailure(t, f, clk, m) })
	t.Run("not extended", func(t *testing.T) { notExtendedWordOnTheRow(t, clk, m) })
}

// A token with time left whose renewal did not extend it says so on its
// row; a list showing the same token does not clear it, one showing a
// later token does.
func notExtendedWordOnTheRow(t *testing.T, clk *clock, m Model) {
	m, _ = update(m, tea.WindowSizeMsg{Width: 120, Height: 30})
	const name = "runtimes/r-bravo" // 4:47 left
	r := m.cx.Snap.Runtime(name)
	exp := r.ExpireTime()
	_, _, err := m.calls.renew.Done(name, clk.now(), exp, exp, nil)
	m.cx.Snap.ApplyRenewError(clk.now(), name, err)
	m.rt.Invalidate()
	m, _ = update(m, tickMsg{gen: m.life.tickGen + 1}) // re-sync only
	if row := rowOf(t, m.View(), "r-bravo"); !strings.Contains(row, "! r-bravo") || !strings.Contains(row, "4m47s NOT EXTENDED") {
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
func expiredWinsOverRenewFailure(t *testing.T, f *fakeService, clk *clock, m Model) {
	m, _ = update(m, tea.WindowSizeMsg{Width: 100, Height: 30})
	m.cx.Snap.ApplyRenewError(clk.now(), "runtimes/r-charlie", errors.New("backend unavailable"))
	m.cx.Snap.ApplyRenewError(clk.now(), "runtimes/r-bravo", errors.New("backend unavailable"))
	m.calls.renew.Started("runtimes/r-charlie", clk.now())
	m.calls.renew.Done("runtimes/r-charlie", clk.now(), time.Time{}, time.Time{}, errors.New("backend unavailable"))
	m.rt.Invalidate()
	m, _ = update(m, tickMsg{gen: m.life.tickGen + 1}) // a stale tick: only re-syncs
	v := m.View()
	if r := rowOf(t, v, "r-charlie"); !strings.Contains(r, "! r-charlie") || !strings.Contains(r, " 0s EXPIRED") || strings.Contains(r, "RENEW FAILED") {
		t.Fatalf("expired row with a failed renewal: %q", r)
	}
	// A token that has time left says the renewal failed (the countdown
	// stays beside it).
	if r := rowOf(t, v, "r-bravo"); !strings.Contains(r, "! r-bravo") || !strings.Contains(r, "4m47s RENEW FAILED") {
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
	if r := rowOf(t, v, "r-charlie"); !strings.Contains(r, "1h OK") {
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
