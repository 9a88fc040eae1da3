package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
)

// typeAhead sends keys at one instant, as keys typed ahead of the screen
// arrive, driving every command to its end.
func (e *emu) typeAhead(t testing.TB, m Model, keys ...string) Model {
	t.Helper()
	for _, k := range keys {
		var cmd tea.Cmd
		m, cmd = update(m, keyMsg(k))
		m = drive(t, m, cmd)
	}
	return m
}

// topTitle is the title of the dialog on top ("" for none).
func (m Model) topTitle() string {
	if d, ok := m.scr.top().(*dialog.Dialog); ok {
		return d.Title
	}
	return ""
}

// Issue 23: keys typed ahead reach the picker's steps (n j enter j enter
// enter names a step, esc esc backs out two), while the y of a delete
// typed before its question could be read is ignored, and the status line
// says so.
func TestTypeAheadInTheDashboard(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = e.typeAhead(t, m, "n", "j", "enter", "j", "enter", "enter")
	if got := m.topTitle(); got != "New runtime GPU/L4/STANDARD: runtime version" {
		t.Fatalf("after n j enter j enter enter typed ahead: %q\n%s", got, m.View())
	}
	m = e.typeAhead(t, m, "esc", "esc")
	if got := m.topTitle(); got != "New runtime: accelerator (GPU)" {
		t.Fatalf("after esc esc: %q\n%s", got, m.View())
	}
	m = e.typeAhead(t, m, "esc", "esc")
	if got := m.topTitle(); got != "" || strings.Contains(m.View(), "ignored") {
		t.Fatalf("esc esc did not back out of the picker: %q\n%s", got, m.View())
	}

	m = m.selectID(t, "rt-cpudemo4qx")
	m = e.typeAhead(t, m, "d", "y")
	if len(e.srv.Runtimes()) != 3 || !strings.HasPrefix(m.topTitle(), "Delete runtime") {
		t.Fatalf("a y typed ahead answered the delete: %d runtimes, top %q", len(e.srv.Runtimes()), m.topTitle())
	}
	if v := m.View(); !strings.Contains(v, "key y ignored: the question had only just appeared") {
		t.Fatalf("the ignored y is not reported:\n%s", v)
	}
	e.clk.add(DialogGrace + time.Millisecond)
	m = e.typeAhead(t, m, "y")
	if len(e.srv.Runtimes()) != 2 {
		t.Fatalf("y after the grace period did not delete:\n%s", m.View())
	}
}

// Issue 23: esc closes the overlay on top even when the screen cannot
// show it (a dialog taller than the screen, or a screen too small for
// the dashboard), where every other key but quit is dropped.
func TestEscClosesAnOverlayTheScreenCannotShow(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	var items []dialog.Item
	for i := 0; i < 20; i++ {
		items = append(items, dialog.Item{Label: "item " + itoa(i)})
	}
	d := dialog.NewChoice(e.clk.now(), "A long list", items, 0)
	var replies []dialog.Reply
	d.OnAnswer = func(_ *common.Context, r dialog.Reply) common.Effect { replies = append(replies, r); return nil }
	m.scr.push(d)
	m, _ = update(m, tea.WindowSizeMsg{Width: 60, Height: 15})
	mustContain(t, m.View(), "Terminal too small to show the dialog")
	m = e.typeAhead(t, m, "j", "enter")
	if m.dlg() != d || len(replies) != 0 {
		t.Fatalf("a key other than esc reached a dialog not on screen: replies %+v", replies)
	}
	m = e.typeAhead(t, m, "esc")
	if m.dlg() != nil || len(replies) != 1 || replies[0].OK {
		t.Fatalf("esc did not cancel the dialog too tall for the screen: top %v, replies %+v", m.topTitle(), replies)
	}
	mustContain(t, m.View(), "RUNTIMES")

	// Too small for the dashboard itself: esc still backs out of the
	// delete question (cancelled, nothing deleted).
	m, _ = update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	m = e.press(t, m, "d")
	m, _ = update(m, tea.WindowSizeMsg{Width: 40, Height: 10})
	m = e.typeAhead(t, m, "y", "esc")
	if m.dlg() != nil || len(e.srv.Runtimes()) != 3 {
		t.Fatalf("esc at 40×10: top %q, %d runtimes", m.topTitle(), len(e.srv.Runtimes()))
	}
}
