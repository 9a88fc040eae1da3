package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
)

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
