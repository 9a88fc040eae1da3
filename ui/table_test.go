package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
)

// Issue 23: the runtimes table's marks, sort keys and layout, driven
// through the whole app.

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
	mustContain(t, v, "Delete 2 marked runtimes?", "rt-cpudemo4qx (CPU, accelerator NONE, 1 session(s))",
		"rt-t4demo7k2p (GPU, accelerator T4, 2 session(s))", "y confirm")
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

// A key per column sorts by it, the same key again (or O) reverses; the
// header's arrow says which column and which way; gone rows stay last.
func TestSortKeysAndTheHeaderArrow(t *testing.T) {
	for _, tc := range []struct {
		keys          []string
		header, order string
	}{
		{nil, "NAME↑", "r-alpha r-bravo r-charlie r-delta r-echo"},
		{[]string{"A"}, "NAME↓", "r-delta r-charlie r-bravo r-alpha r-echo"},
		{[]string{"T"}, "TOKEN↑", "r-charlie r-bravo r-alpha r-delta r-echo"},
		{[]string{"T", "T"}, "TOKEN↓", "r-delta r-alpha r-bravo r-charlie r-echo"},
		{[]string{"T", "O"}, "TOKEN↓", "r-delta r-alpha r-bravo r-charlie r-echo"},
		{[]string{"E"}, "SESS↑", "r-bravo r-charlie r-delta r-alpha r-echo"},
		{[]string{"E", "O"}, "SESS↓", "r-alpha r-bravo r-charlie r-delta r-echo"},
		{[]string{"C"}, "SPEC↑", "r-bravo r-delta r-alpha r-charlie r-echo"},
		{[]string{"V"}, "VERSION↑", "r-delta r-alpha r-bravo r-charlie r-echo"},
		{[]string{"V", "V"}, "VERSION↓", "r-bravo r-charlie r-alpha r-delta r-echo"}, // ties keep their name order
	} {
		_, _, m := fixture(t)
		for _, k := range tc.keys {
			m, _ = update(m, keyMsg(k))
		}
		v := m.View()
		if got := rowIDs(m); got != tc.order {
			t.Errorf("%v: rows %s, want %s", tc.keys, got, tc.order)
		}
		header := strings.Split(v, "\n")[3]
		if !strings.Contains(header, tc.header) || strings.Count(header, "↑")+strings.Count(header, "↓") != 1 {
			t.Errorf("%v: header %q, want one arrow on %s", tc.keys, header, tc.header)
		}
	}
}

// At 200 columns NAME takes the width: the selected row (reverse video)
// spans the screen and the other columns sit at its right edge.
func TestWideScreenNameTakesTheWidth(t *testing.T) {
	for _, w := range []int{160, 200} {
		_, _, m := fixture(t)
		m, _ = update(m, tea.WindowSizeMsg{Width: w, Height: 40})
		lines := strings.Split(m.View(), "\n")
		sel := lines[4]
		if !strings.HasPrefix(sel, "›  r-alpha") || ansi.StringWidth(sel) != w {
			t.Fatalf("%d columns: the selected row is %d cells: %q", w, ansi.StringWidth(sel), sel)
		}
		// TOKEN (24 cells) ends the header at the right edge.
		if at := ansi.StringWidth(lines[3][:strings.Index(lines[3], "TOKEN")]); at != w-24+3 {
			t.Fatalf("%d columns: TOKEN at %d, want %d: %q", w, at, w-24+3, lines[3])
		}
	}
}

// enter answers visibly in every layout: split layouts of 100–125
// columns widen the details too (the default 100×30 frame is unchanged
// until enter), and a tall stacked screen that already shows every
// detail says so.
func TestEnterIsVisibleInEveryLayout(t *testing.T) {
	_, _, m := fixture(t)
	// Each layout's edges: stacked below 100, split 100–125 (sessions no
	// wider than a session id), split beyond.
	for _, w := range []int{MinWidth, 79, 80, 99, 100, 112, 125, 126, 160, 200} {
		for _, h := range []int{MinHeight, 24, 30, 45} {
			m.scr.showDetails, m.cx.Status.Text = false, ""
			m, _ = update(m, tea.WindowSizeMsg{Width: w, Height: h})
			before := m.View()
			m, _ = update(m, keyMsg("enter"))
			after := m.View()
			if before == after {
				t.Fatalf("%dx%d: enter changed nothing on screen:\n%s", w, h, after)
			}
			if !m.scr.showDetails && !strings.Contains(after, "the details show every line at this size already") {
				t.Fatalf("%dx%d: details not expanded and nothing said", w, h)
			}
		}
	}
	// 110×30, split: the sessions panel gives width to the details.
	m.scr.showDetails = false
	m, _ = update(m, tea.WindowSizeMsg{Width: 110, Height: 30})
	sep := func(v string) int { return strings.Index(strings.Split(v, "\n")[18], "│") }
	before := sep(m.View())
	m, _ = update(m, keyMsg("enter"))
	if after := sep(m.View()); after >= before || !m.scr.showDetails {
		t.Fatalf("110×30: the details did not widen (separator %d → %d)", before, after)
	}
}

// Every size the dashboard lays out: expanding the details changes the
// layout, except on a stacked screen whose details already have every
// line (where enter says so instead).
func TestExpandedLayoutDiffersWhereThereIsMoreToShow(t *testing.T) {
	for w := MinWidth; w <= 260; w++ {
		for h := MinHeight; h <= 80; h++ {
			l, x := newLayout(w, h, false), newLayout(w, h, true)
			if l != x {
				continue
			}
			if l.Split || l.BottomRows+1-l.SessLines < detailsFull {
				t.Fatalf("%dx%d: expanding changes nothing though the details lack room: %+v", w, h, l)
			}
		}
	}
}
