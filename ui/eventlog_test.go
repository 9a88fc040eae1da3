package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/ops"
)

// TestEventLog: what the event log keeps, on one demo dashboard, each case
// from nothing open at 120×40 with rt-t4demo7k2p selected; the case that
// reads each tool's first event comes first.
func TestEventLog(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	for _, c := range []struct {
		name string
		run  func(*testing.T, *emu, Model) Model
	}{
		{"records every call", eventLogRecordsEveryCall},
		{"a dialog's error stays, wrapped at words", dialogErrorStaysInEventLogWrappedAtWords},
		{"the files pane's long refusal is readable in full", filesPaneLongRefusalIsReadableInFull},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, _ = update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
			m = c.run(t, e, e.closeAll(t, m, "rt-t4demo7k2p"))
		})
	}
}

// The event log records every call, the actions too
// (create_runtime, delete_runtime, create_session, delete_session,
// execute_code), with its target and outcome.
func eventLogRecordsEveryCall(t *testing.T, e *emu, m Model) Model {
	m.cr.lastSpec = &ops.LastSpec{Spec: specCPU}
	m = e.press(t, m, "N", "y") // create_runtime
	created := m.Selected()
	m = e.press(t, m, "o", "enter") // create_session
	m = e.press(t, m, "tab", "e")   // the session just opened
	m = typeText(e, t, m, "print(1)")
	m = e.press(t, m, "enter", "esc")  // execute_code
	m = e.press(t, m, "x", "y", "tab") // delete_session
	m = e.press(t, m, "d", "y")        // delete_runtime
	got := map[string]Event{}
	for _, ev := range m.Events() {
		if _, seen := got[ev.Tool]; !seen {
			got[ev.Tool] = ev
		}
	}
	for _, tool := range []string{api.ToolCreateRuntime, api.ToolCreateSession, api.ToolExecuteCode, api.ToolDeleteSession, api.ToolDeleteRuntime} {
		ev, ok := got[tool]
		if !ok {
			t.Fatalf("no %s event in %+v", tool, m.Events())
		}
		if ev.Err != nil || ev.Outcome() != "ok" || ev.Target == "" {
			t.Fatalf("%s event: %+v", tool, ev)
		}
	}
	if got[api.ToolCreateRuntime].Target != created || got[api.ToolDeleteRuntime].Target != created ||
		!strings.HasPrefix(got[api.ToolExecuteCode].Target, created+"/sessions/") {
		t.Fatalf("targets: %+v", got)
	}
	m = e.press(t, m, "L")
	mustContain(t, m.View(), "create_runtime", "delete_runtime", "create_session", "delete_session", "execute_code")
	return m
}

// An error shown in a dialog stays in the event log, whole, after the
// dialog closed; its text wraps at word boundaries, so a URL stays on one
// line.
func dialogErrorStaysInEventLogWrappedAtWords(t *testing.T, e *emu, m Model) Model {
	const url = "https://console.cloud.google.com/apis/api/colab.googleapis.com/quotas?project=my-project"
	msg := "Quota exceeded for quota metric 'Create requests' and limit 'Create requests per minute per user' of service colab.googleapis.com; see " + url + " for the limits in force."
	m = createFaulted(t, e, m, colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: api.ToolCreateRuntime, Times: 1,
		Code: api.ResourceExhausted, Reason: api.ReasonQuotaExceededUsageTime, Message: msg}, specT4)
	mustContain(t, strings.Join(strings.Fields(m.View()), " "), "Usage limit reached", "(L keeps the │ │ full error)")
	m = e.press(t, m, "esc")
	if m.dlg() != nil {
		t.Fatal("dialog still open")
	}
	for _, w := range []int{120, 100} {
		m, _ = update(m, tea.WindowSizeMsg{Width: w, Height: 40})
		v := e.press(t, m, "L").View()
		m = e.press(t, m, "esc")
		flat := strings.Join(strings.Fields(v), " ")
		if !strings.Contains(flat, "limits in force") || !strings.Contains(flat, "RESOURCE_EXHAUSTED") {
			t.Fatalf("%d: the full error is not in the event log:\n%s", w, v)
		}
		if !strings.Contains(v, url) {
			t.Fatalf("%d: the URL is split across lines:\n%s", w, v)
		}
		for _, ln := range strings.Split(v, "\n") {
			if ansi.StringWidth(ln) > w {
				t.Fatalf("%d: line too wide: %q", w, ln)
			}
			// Word boundaries: no line of the error ends inside a word
			// that the next line continues.
			if strings.HasSuffix(ln, "Cre") || strings.HasSuffix(ln, "minu") {
				t.Fatalf("%d: a word is broken: %q", w, ln)
			}
		}
	}
	return m
}

// A long refusal in the files pane is cut in the status line
// with "(L: in full)", and it is true there: L opens the event log over
// the pane, which has the message whole; esc comes back to the pane.
func filesPaneLongRefusalIsReadableInFull(t *testing.T, e *emu, m Model) Model {
	m, _ = update(m, tea.WindowSizeMsg{Width: 60, Height: 15})
	m = e.press(t, m, "f", "backspace", "x") // x on /content itself
	const whole = "not deleting /content: colabdash never removes /content itself or a top-level directory"
	if got := statusLine(m); !strings.Contains(got, "not deleting /content") || !strings.HasSuffix(strings.TrimSpace(got), "(L: in full)") {
		t.Fatalf("status %q", got)
	}
	m = e.press(t, m, "L")
	if v := flat(m.View()); !strings.Contains(v, "EVENTS") || !strings.Contains(v, "refused") ||
		!strings.Contains(v, whole) {
		t.Fatalf("the event log lacks the whole message:\n%s", m.View())
	}
	m = e.press(t, m, "esc")
	mustContain(t, m.View(), "FILES · rt-t4demo7k2p:/")
	return m
}
