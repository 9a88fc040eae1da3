package ui

import (
	"context"
	"errors"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
)

// Issue 23: no cancel is silent. esc on each dialog, picker and the
// profile picker says what was cancelled; that message goes when the next
// dialog opens (it is not about that one).
func TestNoCancelIsSilent(t *testing.T) {
	for _, tc := range []struct {
		keys []string
		want string
	}{
		{[]string{"n", "esc"}, "new runtime cancelled: nothing created"},
		{[]string{"d", "esc"}, "delete cancelled: rt-t4demo7k2p is kept"},
		{[]string{"d", "n"}, "delete cancelled: rt-t4demo7k2p is kept"},
		{[]string{"o", "esc"}, "open session cancelled: no session opened on rt-t4demo7k2p"},
		{[]string{"P", "esc"}, "profile switch cancelled: still on alpha"},
		{[]string{"f", "down", "D", "esc"}, "download of data.csv cancelled: nothing downloaded"},
		{[]string{"f", "u", "esc"}, "upload cancelled: nothing uploaded"},
		{[]string{"f", "down", "x", "esc"}, "delete of data.csv cancelled: nothing deleted"},
	} {
		t.Run(strings.Join(tc.keys, " "), func(t *testing.T) {
			e, m := emuModel(t, colabfake.Options{}, func(o *Options) {
				o.Profile, o.Profiles = "alpha", []string{"alpha", "beta"}
				o.Connect = func(context.Context, string) (api.Service, ConnInfo, error) {
					return nil, ConnInfo{}, errors.New("not used")
				}
			})
			putRemote(t, e, "rt-t4demo7k2p", "content/data.csv", "a,b\n")
			m = m.selectID(t, "rt-t4demo7k2p")
			m = e.press(t, m, tc.keys...)
			if m.dlg() != nil {
				t.Fatalf("a dialog is still open:\n%s", m.View())
			}
			if got := statusLine(m); !strings.Contains(got, tc.want) {
				t.Fatalf("status %q, want %q", got, tc.want)
			}
		})
	}
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "d", "esc", "o")
	if m.dlg() == nil || strings.Contains(m.View(), "delete cancelled") {
		t.Fatalf("the cancel of the last dialog shows under the next:\n%s", m.View())
	}
}

// Issue 23: a status about the selected runtime (its token revealed) goes
// when the selection moves to another row; one about a finished call
// (copied) is no such status and stays.
func TestStatusAboutARuntimeGoesWithTheSelection(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
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

// Issue 23: "deleting X…" goes once X is gone from the list, though
// delete_runtime has not answered yet.
func TestDeletingGoesWithTheRuntime(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	now := e.clk.now()
	m.scr.setProgress(now, api.ToolDeleteRuntime, "runtimes/rt-t4demo7k2p", "deleting rt-t4demo7k2p…")
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

// Issue 23: a long refusal in the files pane is cut in the status line
// with "(L: in full)", and it is true there: L opens the event log over
// the pane, which has the message whole; esc comes back to the pane.
func TestFilesPaneLongRefusalIsReadableInFull(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
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
}
