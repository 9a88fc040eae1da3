package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
)

// rowLine is the table line of runtime id in view v ("" when absent).
func rowLine(v, id string) string {
	for _, ln := range strings.Split(v, "\n") {
		if strings.Contains(ln, " "+id+" ") || strings.Contains(ln, "*"+id+" ") {
			return ln
		}
	}
	return ""
}

// Space marks a row (a "*" cell, so it reads without colour) and moves
// down; d then asks ONE y-only question listing every marked runtime,
// and y deletes exactly those.
func TestMarksThenOneQuestionDeletesEveryMarkedRow(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-cpudemo4qx")
	m = e.press(t, m, "space", "space")
	v := m.View()
	if m.Selected() != "runtimes/rt-v6edemo2mw" {
		t.Fatalf("space did not move the cursor down: selected %s", m.Selected())
	}
	for _, id := range []string{"rt-cpudemo4qx", "rt-t4demo7k2p"} {
		if ln := rowLine(v, id); !strings.HasPrefix(ln, "  *"+id) {
			t.Fatalf("%s is not shown marked: %q\n%s", id, ln, v)
		}
	}
	if ln := rowLine(v, "rt-v6edemo2mw"); !strings.HasPrefix(ln, "›  rt-v6edemo2mw") {
		t.Fatalf("the unmarked row reads %q", ln)
	}
	mustContain(t, v, "RUNTIMES 3 · 2 marked", "marked rt-t4demo7k2p · 2 runtimes marked: d deletes them")

	m = e.press(t, m, "d")
	v = m.View()
	mustContain(t, v, "Delete 2 marked runtimes?", "rt-cpudemo4qx (CPU, 1 session)",
		"rt-t4demo7k2p (GPU, accelerator T4, 2 sessions)", "y confirm")
	if strings.Contains(v, "rt-v6edemo2mw (") { // how the question lists a runtime
		t.Fatalf("the question lists the unmarked runtime:\n%s", v)
	}
	m = e.press(t, m, "y")
	if serverHas(e.srv, "runtimes/rt-cpudemo4qx") || serverHas(e.srv, "runtimes/rt-t4demo7k2p") ||
		!serverHas(e.srv, "runtimes/rt-v6edemo2mw") || e.srv.CallCount(api.ToolDeleteRuntime) != 2 {
		t.Fatalf("after y: %v (%d deletes)", e.srv.Runtimes(), e.srv.CallCount(api.ToolDeleteRuntime))
	}
	v = m.View()
	if strings.Contains(v, "marked") || m.dlg() != nil {
		t.Fatalf("marks or the question outlived the delete:\n%s", v)
	}
	// The status line names both, not only the last to answer.
	mustContain(t, v, "✓ deleted 2 runtimes: rt-")
}

// Any key but y cancels the bulk question and keeps the marks; the answer
// deletes the runtimes listed when it opened even if the marks change.
func TestBulkDeleteCancelsAndActsOnWhatItListed(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-cpudemo4qx")
	m = e.press(t, m, "space", "d", "enter")
	if m.dlg() != nil || e.srv.CallCount(api.ToolDeleteRuntime) != 0 || !m.rt.IsMarked("runtimes/rt-cpudemo4qx") {
		t.Fatal("enter did not cancel the bulk delete, or dropped the mark")
	}
	m = e.press(t, m, "d")
	m.rt.ClearMarks() // the marks change under the open question
	m = e.press(t, m, "y")
	if serverHas(e.srv, "runtimes/rt-cpudemo4qx") || len(e.srv.Runtimes()) != 2 {
		t.Fatalf("the listed runtime was not the one deleted: %v", e.srv.Runtimes())
	}
}

// Marks are by name: they follow a runtime through a re-sort, drop when
// it disappears, and a bulk key acts only on marked rows the table shows.
func TestMarksFollowTheRuntimeAndActOnlyOnWhatIsShown(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "space", "O") // marked, then the order reversed
	if ln := rowLine(m.View(), "rt-t4demo7k2p"); !strings.HasPrefix(ln, "  *rt-t4demo7k2p") {
		t.Fatalf("the mark did not follow the re-sort: %q", ln)
	}
	// Hidden by the filter: d acts on nothing and says why.
	m = e.press(t, m, "/", "c", "p", "u", "enter", "d")
	if m.dlg() != nil {
		t.Fatalf("d opened a question with every mark hidden:\n%s", m.View())
	}
	mustContain(t, m.View(), "1 marked runtime hidden by the filter, none shown: esc clears the filter")
	m = e.press(t, m, "esc", "d")
	mustContain(t, m.View(), "Delete 1 marked runtime?", "rt-t4demo7k2p (GPU")
	m = e.press(t, m, "esc")
	// The runtime disappears (reclaimed): its mark drops with it.
	e.srv.Reclaim("runtimes/rt-t4demo7k2p")
	m = drive(t, m, tea.Batch(m.calls.refresh(e.clk.now(), true)...))
	if m.rt.IsMarked("runtimes/rt-t4demo7k2p") || strings.Contains(m.View(), "marked") {
		t.Fatalf("a gone runtime kept its mark:\n%s", m.View())
	}
	// A gone row cannot be marked.
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "space")
	mustContain(t, m.View(), "rt-t4demo7k2p is gone: it cannot be marked")
	// ctrl+\ clears the marks.
	m = m.selectID(t, "rt-cpudemo4qx")
	m = e.press(t, m, "space", `ctrl+\`)
	if m.rt.IsMarked("runtimes/rt-cpudemo4qx") {
		t.Fatal(`ctrl+\ kept the mark`)
	}
	mustContain(t, m.View(), "cleared 1 mark")
}

// x with marked rows (the table focused) closes, after one question, the
// sessions colabdash opened on them; notebook sessions are left alone and
// the question says so.
func TestBulkCloseClosesOnlyOwnSessions(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-v6edemo2mw")
	m = e.press(t, m, "o", "enter") // a colabdash-… session on the v6e
	if len(e.srv.Sessions("runtimes/rt-v6edemo2mw")) != 1 {
		t.Fatal("no session opened")
	}
	own := e.srv.Sessions("runtimes/rt-v6edemo2mw")[0]
	m = m.selectID(t, "rt-cpudemo4qx")
	m = e.press(t, m, "space")
	m = m.selectID(t, "rt-v6edemo2mw")
	m = e.press(t, m, "space", "x")
	mustContain(t, m.View(), "Close 1 session on 2 marked runtimes?", "rt-v6edemo2mw · "+own.ID(),
		"1 notebook session (not opened by colabdash) left alone")
	m = e.press(t, m, "y")
	if len(e.srv.Sessions("runtimes/rt-v6edemo2mw")) != 0 || len(e.srv.Sessions("runtimes/rt-cpudemo4qx")) != 1 {
		t.Fatalf("after y: v6e %v, cpu %v", e.srv.Sessions("runtimes/rt-v6edemo2mw"), e.srv.Sessions("runtimes/rt-cpudemo4qx"))
	}
	if m.rt.IsMarked("runtimes/rt-v6edemo2mw") || m.rt.IsMarked("runtimes/rt-cpudemo4qx") {
		t.Fatal("marks outlived the close")
	}
}
