package ui

import (
	"errors"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/state/config"
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
