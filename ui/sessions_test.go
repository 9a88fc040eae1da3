package ui

import (
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
)

func TestSessionsOpenAndClose(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-cpudemo4qx")
	m = e.press(t, m, "o")
	m = typeText(e, t, m, "Bad")
	mustContain(t, m.View(), "must start with a lower-case letter")
	m = e.press(t, m, "backspace", "backspace", "backspace")
	m = typeText(e, t, m, "mine")
	m = e.press(t, m, "enter")
	ss := e.srv.Sessions("runtimes/rt-cpudemo4qx")
	if len(ss) != 2 {
		t.Fatalf("sessions %v", ss)
	}
	mustContain(t, m.View(), "opened session mine")
	// The new session is marked as the dashboard's; the notebook is not.
	m = e.press(t, m, "tab")
	v := m.View()
	mustContain(t, v, "notebook-5e6f7a8b", "notebook ", "mine")
	var mineIdx = -1
	for i, s := range m.cx.Snap.Runtime("runtimes/rt-cpudemo4qx").Sessions {
		if s.ID() == "mine" {
			mineIdx = i
		}
	}
	if mineIdx < 0 || !m.cx.Snap.Owned("runtimes/rt-cpudemo4qx/sessions/mine") {
		t.Fatal("own session not marked")
	}
	// Closing the notebook needs the stronger confirmation.
	nb := 1 - mineIdx
	m.sess.SetCursor(nb)
	m = e.press(t, m, "x")
	mustContain(t, m.View(), "Close NOTEBOOK session notebook-5e6f7a8b?", "kernel state", "will be lost", "type close")
	m = e.press(t, m, "y", "enter")
	if len(e.srv.Sessions("runtimes/rt-cpudemo4qx")) != 2 || m.dlg() == nil {
		t.Fatal("y closed a notebook session, or closed the dialog")
	}
	m = e.press(t, m, "backspace")
	m = typeText(e, t, m, "close")
	m = e.press(t, m, "enter")
	if len(e.srv.Sessions("runtimes/rt-cpudemo4qx")) != 1 {
		t.Fatal("typed confirmation did not close the notebook session")
	}
	// Our own session: a plain y.
	m.sess.Reset()
	m = e.press(t, m, "x")
	mustContain(t, m.View(), "Close session mine?")
	m = e.press(t, m, "y")
	if len(e.srv.Sessions("runtimes/rt-cpudemo4qx")) != 0 {
		t.Fatal("own session not closed")
	}
	mustContain(t, m.View(), "closed session mine")
}
