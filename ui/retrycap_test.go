package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/state/config"
)

// Field case S5: "429 with Retry-After: 100000" showed "retry in 24:00:00"
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
