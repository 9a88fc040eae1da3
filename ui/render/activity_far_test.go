package render

import (
	"testing"
	"time"

	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/state/monitor"
)

// A last_activity far in the past or the future (a placeholder, a clock
// gone wrong) is no activity time: the word has no duration (never the
// saturated "IDLE 292y171d"), no idle warning, nothing since; the
// dashboard and top both read it from here.
func TestActivityWordFarTimes(t *testing.T) {
	now := mt0
	for _, c := range []struct {
		last  time.Time
		state string
		word  string
	}{
		{time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC), "idle", "idle"},
		{now.Add(-400 * 24 * time.Hour), "idle", "idle"},
		{time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC), "idle", "idle"},
		{time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC), "busy", "busy"},
		{time.Time{}, "idle", "idle"},
		{now.Add(-300 * 24 * time.Hour), "idle", "IDLE 300d"},
	} {
		a := monitor.Judge([]apimon.Kernel{{ID: "k", ExecutionState: c.state, LastActivity: c.last, Connections: 1}}, now, nil)
		if got := ActivityWord(a); got != c.word {
			t.Errorf("%s since %v: %q, want %q", c.state, c.last, got, c.word)
		}
		if c.word == c.state && (a.For != 0 || !a.Since.IsZero() || a.IdleWarning()) {
			t.Errorf("%s since %v: for %v, since %v, warning %v", c.state, c.last, a.For, a.Since, a.IdleWarning())
		}
	}
	// A far one beside a real one: the real one counts.
	a := monitor.Judge([]apimon.Kernel{
		{ID: "a", ExecutionState: "idle", LastActivity: time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{ID: "b", ExecutionState: "idle", LastActivity: now.Add(-12 * time.Minute)},
	}, now, nil)
	if got := ActivityWord(a); got != "idle 12m" {
		t.Errorf("far and near: %q", got)
	}
}
