package ui

import (
	"slices"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
)

func sessionNames(ss []api.Session) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return out
}

// e runs on the session just opened with o, not on a new one.
func TestRunCodeAfterOpenUsesThatSession(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	const rt = "runtimes/rt-cpudemo4qx"
	m = m.selectID(t, "rt-cpudemo4qx")
	m = e.press(t, m, "o")
	m = typeText(e, t, m, "mine")
	m = e.press(t, m, "enter", "e")
	mustContain(t, m.View(), "RUN CODE · rt-cpudemo4qx · session mine")
	m = typeText(e, t, m, "print(1)")
	m = e.press(t, m, "enter")
	if n := len(e.srv.Sessions(rt)); n != 2 {
		t.Fatalf("run code created another session: %v", sessionNames(e.srv.Sessions(rt)))
	}
	if got := m.ex.execState.runs[0].session; got != rt+"/sessions/mine" {
		t.Fatalf("ran on %q, want the session o opened", got)
	}
}

// e runs on the session under the cursor when the sessions panel has the
// focus, and never on a session the user closed.
func TestRunCodeTargetsSelectedSessionAndNeverAClosedOne(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	const rt = "runtimes/rt-t4demo7k2p"
	m = m.selectID(t, "rt-t4demo7k2p")
	before := sessionNames(e.srv.Sessions(rt))
	// Focus the sessions panel, move to the second session, run there.
	m = e.press(t, m, "tab", "j", "e")
	want := m.cx.Snap.Runtime(rt).Sessions[1].Name
	mustContain(t, m.View(), "· session "+api.LastSegment(want))
	m = typeText(e, t, m, "print(1)")
	m = e.press(t, m, "enter", "esc")
	if got := m.ex.execState.runs[0].session; got != want {
		t.Fatalf("ran on %q, want the selected %q", got, want)
	}
	// From the runtimes panel e goes back to the session used last.
	m = e.press(t, m, "tab", "e")
	mustContain(t, m.View(), "· session "+api.LastSegment(want))
	m = e.press(t, m, "esc")

	// Run once on a new colabdash session, then close it.
	m = e.press(t, m, "tab", "k", "tab") // first session selected, back on runtimes
	m.ex.lastSession = map[string]sessionPick{}
	m = e.press(t, m, "e")
	mustContain(t, m.View(), "Open a new session on rt-t4demo7k2p?")
	m = e.press(t, m, "y")
	m = typeText(e, t, m, "print(2)")
	m = e.press(t, m, "enter", "esc")
	own := m.ex.console().Session()
	if own == "" || slices.Contains(before, own) {
		t.Fatalf("run code did not open a new session: %q", own)
	}
	m = e.press(t, m, "tab")
	for i, s := range m.cx.Snap.Runtime(rt).Sessions {
		if s.Name == own {
			m.sess.SetCursor(i)
		}
	}
	m = e.press(t, m, "x", "y", "tab")
	if slices.Contains(sessionNames(e.srv.Sessions(rt)), own) {
		t.Fatal("close did not close the session")
	}
	// e must not reuse (and so resurrect) the closed session: it asks.
	m = e.press(t, m, "e")
	mustContain(t, m.View(), "Open a new session on rt-t4demo7k2p?")
	m = e.press(t, m, "y")
	m = typeText(e, t, m, "print(3)")
	m = e.press(t, m, "enter", "esc", "r")
	if slices.Contains(sessionNames(e.srv.Sessions(rt)), own) {
		t.Fatal("the closed session came back: run code used it again")
	}
	if last := m.ex.execState.runs[len(m.ex.execState.runs)-1]; last.session == own || last.err != nil {
		t.Fatalf("last run on %q err %v", last.session, last.err)
	}
}
