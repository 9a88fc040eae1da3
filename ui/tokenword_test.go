package ui

import (
	"errors"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api/colabfake"
)

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

// Issue 10 defect 3: a failed renewal never hides expiry. An expired token
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

// Issue 10 defect 6: the EXPIRING threshold scales with short token
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
