package ui

import (
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/ops"
)

// sessionLine is the sessions panel's line of session id in v.
func sessionLine(v, id string) string {
	for _, l := range strings.Split(v, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), id+" ") {
			return l
		}
	}
	return ""
}

// A session opened with o under an id the user typed stays colabdash's
// after a restart (a new dashboard on the same state directory), and x
// asks y, not the notebook's typed word; closing it forgets the record.
// Typing the id of a notebook's open session does not make it
// colabdash's.
func TestSessionOpenedUnderATypedIdStaysColabdashs(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	const rt = "runtimes/rt-cpudemo4qx"
	m = m.selectID(t, "rt-cpudemo4qx")
	m = e.press(t, m, "o")
	m = typeText(e, t, m, "mysess")
	m = e.press(t, m, "enter")
	if l := sessionLine(m.View(), "mysess"); !strings.Contains(l, "colabdash") {
		t.Fatalf("just opened, mysess is not colabdash's: %q\n%s", l, m.View())
	}
	if !ops.OpenedByColabdash(e.dir, rt+"/sessions/mysess") {
		t.Fatal("the state directory does not record mysess")
	}

	// A restart: a new dashboard on the same emulator and state directory.
	e2, m2 := emuModel(t, colabfake.Options{}, func(o *Options) { o.Service, o.StateDir = e.svc, e.dir })
	m2 = m2.selectID(t, "rt-cpudemo4qx")
	m2 = e2.press(t, m2, "tab")
	if l := sessionLine(m2.View(), "mysess"); !strings.Contains(l, "colabdash") || strings.Contains(l, "notebook") {
		t.Fatalf("after a restart, mysess is not colabdash's: %q\n%s", l, m2.View())
	}
	for i, s := range m2.cx.Snap.Runtime(rt).Sessions {
		if s.ID() == "mysess" {
			m2.sess.SetCursor(i)
		}
	}
	m2 = e2.press(t, m2, "x")
	if d := m2.dlg(); d == nil || d.Want != "" || !strings.Contains(d.Title, "Close session mysess?") {
		t.Fatalf("x asks as for a notebook's session:\n%s", m2.View())
	}
	m2 = e2.press(t, m2, "y")
	if ops.OpenedByColabdash(e.dir, rt+"/sessions/mysess") {
		t.Error("closing mysess left its record")
	}

	// The notebook's session, its id typed: used as it is, not recorded.
	m2 = m2.selectID(t, "rt-cpudemo4qx")
	m2 = e2.press(t, m2, "o")
	m2 = typeText(e2, t, m2, "notebook-5e6f7a8b")
	m2 = e2.press(t, m2, "enter")
	if v := m2.View(); !strings.Contains(v, "was already open") || strings.Contains(sessionLine(v, "notebook-5e6f7a8b"), "colabdash") {
		t.Errorf("a notebook's session opened by its id became colabdash's:\n%s", v)
	}
	if ops.OpenedByColabdash(e.dir, rt+"/sessions/notebook-5e6f7a8b") {
		t.Error("a notebook's session is recorded as colabdash's")
	}
}
