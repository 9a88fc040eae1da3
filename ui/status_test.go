package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/common"
)

// esc clears the filter before collapsing details or clearing a message.
func TestEscClearsFilterFirst(t *testing.T) {
	_, _, m := fixture(t)
	m, _ = update(m, tea.WindowSizeMsg{Width: 80, Height: 15})         // details short of room: enter expands them
	for _, k := range []string{"/", "t", "4", "enter", "enter", "s"} { // filter, expand details, a status message
		m, _ = update(m, keyMsg(k))
	}
	if m.rt.Filter() != "t4" || !m.scr.showDetails || m.cx.Status.Text == "" {
		t.Fatalf("setup: filter %q details %v status %q", m.rt.Filter(), m.scr.showDetails, m.cx.Status.Text)
	}
	m, _ = update(m, keyMsg("esc"))
	if m.rt.Filter() != "" || len(m.rt.Rows()) != 5 {
		t.Fatalf("first esc left the filter %q", m.rt.Filter())
	}
	m, _ = update(m, keyMsg("esc"))
	m, _ = update(m, keyMsg("esc"))
	if m.scr.showDetails || m.cx.Status.Text != "" {
		t.Fatalf("details %v status %q", m.scr.showDetails, m.cx.Status.Text)
	}
}

// No cancel is silent. esc on each dialog, picker and the
// profile picker says what was cancelled; that message goes when the next
// dialog opens (it is not about that one). The dashboard cancels each in
// turn from nothing open.
func noCancelIsSilent(t *testing.T, e *emu, m Model) Model {
	putRemote(t, e, "rt-t4demo7k2p", "content/data.csv", "a,b\n")
	for _, tc := range []struct {
		keys []string
		want string
	}{
		{[]string{"n", "esc"}, "new runtime cancelled: nothing created"},
		{[]string{"d", "esc"}, "delete cancelled: rt-t4demo7k2p is kept"},
		{[]string{"o", "esc"}, "open session cancelled: no session opened on rt-t4demo7k2p"},
		{[]string{"d", "n"}, "delete cancelled: rt-t4demo7k2p is kept"},
		{[]string{"P", "esc"}, "profile switch cancelled: still on alpha"},
		{[]string{"f", "down", "D", "esc"}, "download of data.csv cancelled: nothing downloaded"},
		{[]string{"f", "u", "esc"}, "upload cancelled: nothing uploaded"},
		{[]string{"f", "down", "x", "esc"}, "delete of data.csv cancelled: nothing deleted"},
	} {
		t.Run(strings.Join(tc.keys, " "), func(t *testing.T) {
			m = e.closeAll(t, m, "rt-t4demo7k2p")
			if got := statusLine(m); strings.Contains(got, tc.want) {
				t.Fatalf("status %q before the cancel", got)
			}
			m = e.press(t, m, tc.keys...)
			if m.dlg() != nil {
				t.Fatalf("a dialog is still open:\n%s", m.View())
			}
			if got := statusLine(m); !strings.Contains(got, tc.want) {
				t.Fatalf("status %q, want %q", got, tc.want)
			}
		})
	}
	m = e.closeAll(t, m, "rt-t4demo7k2p")
	m = e.press(t, m, "d", "esc", "o")
	if m.dlg() == nil || strings.Contains(m.View(), "delete cancelled") {
		t.Fatalf("the cancel of the last dialog shows under the next:\n%s", m.View())
	}
	return e.closeAll(t, m, "rt-t4demo7k2p")
}

// TestStatusLine: what the status line says and when it goes. One demo
// dashboard (with profiles) meets each case in turn: the cancels, a
// status about a runtime going with the selection, each call's progress
// (deleting rt-cpudemo4qx last), and a status about a runtime going once
// the runtime is gone (which leaves rt-t4demo7k2p gone on the dashboard:
// last).
func TestStatusLine(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, withProfiles("alpha", "alpha", "beta"))
	t.Run("no cancel is silent", func(t *testing.T) { m = noCancelIsSilent(t, e, m) })
	t.Run("a status about a runtime goes with the selection", func(t *testing.T) { statusGoesWithTheSelection(t, e, m) })
	t.Run("progress status ends with its call", func(t *testing.T) { m = progressStatusEndsWithItsCall(t, e, m) })
	t.Run("deleting goes with the runtime", func(t *testing.T) { deletingGoesWithTheRuntime(t, e, e.closeAll(t, m, "rt-t4demo7k2p")) })
}

// A status about the selected runtime (its token revealed) goes
// when the selection moves to another row; one about a finished call
// (copied) is no such status and stays.
func statusGoesWithTheSelection(t *testing.T, e *emu, m Model) {
	m = m.selectID(t, "rt-cpudemo4qx")
	m = e.press(t, m, "v")
	mustContain(t, statusLine(m), "proxy token of rt-cpudemo4qx revealed")
	m = e.press(t, m, "down")
	if got := statusLine(m); strings.Contains(got, "revealed") || m.cx.Selected == "runtimes/rt-cpudemo4qx" {
		t.Fatalf("after moving to %s the status still says %q", m.cx.Selected, got)
	}
	m = e.press(t, m, "y", "up")
	mustContain(t, statusLine(m), "copied the URL of rt-t4demo7k2p")
}

// The status "deleting X…" goes once X is gone from the list, though
// delete_runtime has not answered yet.
func deletingGoesWithTheRuntime(t *testing.T, e *emu, m Model) {
	now := e.clk.now()
	m.scr.say(now, common.Say{Text: "deleting rt-t4demo7k2p…", For: api.ToolDeleteRuntime + " " + "runtimes/rt-t4demo7k2p"})
	m, _ = update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	mustContain(t, statusLine(m), "deleting rt-t4demo7k2p…")
	var rest []api.Runtime
	for _, r := range e.srv.Runtimes() {
		if r.Name != "runtimes/rt-t4demo7k2p" {
			rest = append(rest, r)
		}
	}
	m.cx.Snap.ApplyRuntimes(now, rest) // listed without it: gone
	m, _ = update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	if got := statusLine(m); strings.Contains(got, "deleting") {
		t.Fatalf("status %q after the runtime is gone", got)
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
// The dashboard makes each call in turn from nothing open (the delete
// that works last); the second console case is on another runtime, since
// e goes back to the console the first one left.
func progressStatusEndsWithItsCall(t *testing.T, e *emu, m Model) Model {
	for _, tc := range []struct {
		on    string // the runtime selected ("": rt-cpudemo4qx)
		name  string
		fault string // a tool that fails once, or none
		keys  []string
		under string // the under-way text that must be gone
		start int    // the index of the key that starts the call (0: the last one)
	}{
		{name: "open session for the console", keys: []string{"e", "y"}, under: "opening session"},
		{on: "rt-v6edemo2mw", name: "open session for the console, then code", keys: []string{"e", "y", "1", "enter"}, under: "opening session", start: 1},
		{name: "open session", keys: []string{"o", "enter"}, under: "opening session"},
		{name: "open session fails", fault: "create_session", keys: []string{"o", "enter"}, under: "opening session"},
		{name: "close session", keys: []string{"tab", "x", "c", "l", "o", "s", "e", "enter"}, under: "closing session"},
		{name: "renew", keys: []string{"R"}, under: "renewing"},
		{name: "renew fails", fault: "get_runtime", keys: []string{"R"}, under: "renewing"},
		{name: "refresh", keys: []string{"r"}, under: "refreshing"},
		{name: "delete fails", fault: "delete_runtime", keys: []string{"d", "y"}, under: "deleting"},
		{name: "delete", keys: []string{"d", "y"}, under: "deleting"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.on == "" {
				tc.on = "rt-cpudemo4qx"
			}
			m = e.closeAll(t, m, tc.on)
			if tc.fault != "" {
				e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Status: 500, Tool: tc.fault, Times: 1})
			}
			if tc.start == 0 {
				tc.start = len(tc.keys) - 1
			}
			m = e.press(t, m, tc.keys[:tc.start]...)
			// The key that starts the call: the status says so while it is
			// under way, and no longer once it has answered.
			e.clk.add(dialogGrace + time.Millisecond)
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
	return m
}
