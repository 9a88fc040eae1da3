package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/tty"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/overlay/console"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
	"github.com/colabdash/colabdash/ui/overlay/events"
	"github.com/colabdash/colabdash/ui/overlay/filter"
	"github.com/colabdash/colabdash/ui/overlay/help"
	"github.com/colabdash/colabdash/ui/overlay/profile"
	"github.com/colabdash/colabdash/ui/shell"
)

// TestScreenStackAndKeys: which layer of the screen a key reaches, which
// keys the footer offers for it, and what a screen that cannot show a
// layer lets through. One dashboard (the demo seed, with profiles) meets
// each case in turn from nothing open, at 120×40, rt-t4demo7k2p selected;
// the console's case first (a console keeps its input when it closes);
// each case is checked to start with the runtimes the cases before it
// left (an answer's dialog deletes rt-v6edemo2mw, type-ahead
// rt-cpudemo4qx), and the one that quits comes last.
func TestScreenStackAndKeys(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, withProfiles("", "default", "work"))
	for _, c := range []struct {
		name     string
		run      func(*testing.T, *emu, Model) Model
		runtimes int // on the server before the case
	}{
		{"view draws the stack in key order", viewDrawsTheStackInKeyOrder, 3},
		{"destructive keys never pass an open overlay", destructiveKeysNeverPassAnOpenOverlay, 3},
		{"esc closes an overlay the screen cannot show", escClosesAnOverlayTheScreenCannotShow, 3},
		{"the footer shows the top layer's keys", footerShowsTheTopLayersKeys, 3},
		{"dialogs, create rows and the console fit the terminal", actionViewsFitTerminal, 3},
		{"the shell key suspends the dashboard", shellKeySuspendsTheDashboard, 3},
		{"an answer's dialog waits for the layer it was asked from", answerDialogWaitsForTheLayerItWasAskedFrom, 3},
		{"type-ahead in the dashboard", typeAheadInTheDashboard, 2},
		{"too-small screen answers nothing", tooSmallScreenAnswersNothing, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, _ = update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
			m = e.closeAll(t, m, "rt-t4demo7k2p")
			if n := len(e.srv.Runtimes()); n != c.runtimes {
				t.Fatalf("%d runtimes on the server before the case, want %d", n, c.runtimes)
			}
			m = c.run(t, e, m)
		})
	}
}

// serverCounts is what the server did that a key could have asked for.
type serverCounts struct{ creates, deletes, sessionsDeleted, sessionsCreated, runtimes int }

func countsOf(srv *colabfake.Server) serverCounts {
	return serverCounts{srv.CreateCalls(), srv.CallCount(api.ToolDeleteRuntime), srv.CallCount(api.ToolDeleteSession),
		srv.CallCount(api.ToolCreateSession), len(srv.Runtimes())}
}

// For every overlay, the dashboard's destructive keys pressed while it is
// open do nothing: no delete, create or session change reaches the
// server, and no dialog about something else opens, on top or behind it
// (? then d once opened "Delete runtime?" over the help; L then n the
// picker behind the event log). Keys are pressed only while the overlay
// is still open (a key may close it, e.g.
// any key but y cancels a confirmation). One dashboard opens each overlay
// in turn from nothing open.
func destructiveKeysNeverPassAnOpenOverlay(t *testing.T, e *emu, m Model) Model {
	destructive := []string{"d", "y", "x", "y", "n", "N", "y", "o", "e", "R", "c", "y"}
	for _, tc := range []struct {
		name string
		open func(e *emu, m Model) Model
		is   func(o overlay) bool
	}{
		{"help", func(e *emu, m Model) Model { return e.press(t, m, "?") }, isType[*help.Overlay]},
		{"event log", func(e *emu, m Model) Model { return e.press(t, m, "L") }, isType[*events.Overlay]},
		{"profile picker", func(e *emu, m Model) Model { return e.press(t, m, "P") }, isType[*profile.Overlay]},
		{"filter line", func(e *emu, m Model) Model { return e.press(t, m, "/") }, isType[*filter.Overlay]},
		{"create picker", func(e *emu, m Model) Model { return e.press(t, m, "n") }, isDialog("New runtime: variant")},
		{"open-session input", func(e *emu, m Model) Model { return e.press(t, m, "o") }, isDialog("Open a session on ")},
		{"quick-create confirmation", func(e *emu, m Model) Model {
			m.cr.lastSpec = &ops.LastSpec{Spec: specCPU}
			return e.press(t, m, "N")
		}, isDialog("Create a runtime like the last one?")},
		{"typed close confirmation", func(e *emu, m Model) Model { return e.press(t, m, "tab", "x") }, isDialog("Close NOTEBOOK session ")},
		{"run-code console", func(e *emu, m Model) Model { return e.press(t, m, "tab", "e") }, isType[*console.Overlay]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m = e.closeAll(t, m, "rt-t4demo7k2p")
			m = tc.open(e, m)
			o := m.scr.top()
			if o == nil || !tc.is(o) {
				t.Fatalf("%s did not open:\n%s", tc.name, m.View())
			}
			before := countsOf(e.srv)
			for _, k := range destructive {
				if m.scr.top() != o {
					break // the key closed it: the rest would reach the dashboard
				}
				m = e.press(t, m, k)
				for _, x := range m.scr.stack { // over it or behind it
					if d, ok := x.(*dialog.Dialog); ok && x != o {
						t.Fatalf("%q opened %q with the %s open", k, d.Title, tc.name)
					}
				}
			}
			if after := countsOf(e.srv); after != before {
				t.Fatalf("keys reached the dashboard under the %s: %+v → %+v", tc.name, before, after)
			}
		})
	}
	return m
}

func isType[T overlay](o overlay) bool { _, ok := o.(T); return ok }

// isDialog is a dialog whose title starts with title.
func isDialog(title string) func(overlay) bool {
	return func(o overlay) bool { d, ok := o.(*dialog.Dialog); return ok && strings.HasPrefix(d.Title, title) }
}

// d, shrink the terminal to 40×10 (only "terminal too small" shows, its
// message wrapped whole at any too-small size), y:
// nothing is deleted; no key but quit (and esc) acts; the dialog waits and shows
// again, with its grace period started anew, when the window grows.
func tooSmallScreenAnswersNothing(t *testing.T, e *emu, m Model) Model {
	m = e.press(t, m, "d")
	d := m.dlg()
	if d == nil || !strings.HasPrefix(d.Title, "Delete runtime ") {
		t.Fatal("no delete dialog")
	}
	// The too-small screen is read whole, not cut: each sentence wraps
	// instead of ending in "…".
	for _, sz := range [][2]int{{50, 10}, {30, 8}, {40, 10}} {
		m, _ = update(m, tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		v := m.View()
		if strings.Contains(v, "…") {
			t.Fatalf("%dx%d: the message is cut:\n%s", sz[0], sz[1], v)
		}
		mustContain(t, strings.Join(strings.Fields(v), " "), "need 60×15", "Enlarge the window, or q to quit.",
			"The dialog waits: esc closes it; no other key but q acts until it shows.")
	}
	v := m.View()
	mustContain(t, v, "Terminal too small", "dialog waits")
	if strings.Contains(v, "Delete") {
		t.Fatalf("the dialog shows at 40×10:\n%s", v)
	}
	for _, k := range []string{"y", "enter", "n", "d", "y"} { // esc would cancel it (escClosesAnOverlayTheScreenCannotShow)
		m = e.press(t, m, k)
	}
	if !serverHas(e.srv, "runtimes/rt-t4demo7k2p") || m.dlg() != d {
		t.Fatalf("a key answered the hidden dialog (dialog %v)", m.dlg())
	}
	// Back to a size that shows it: keys typed right then are ignored too.
	m, _ = update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	mustContain(t, m.View(), "Delete runtime rt-t4demo7k2p?")
	// The returned command is run (drive): were the y to answer the
	// dialog, the delete would reach the server and the check could fail.
	m, cmd := update(m, keyMsg("y"))
	m = drive(t, m, cmd)
	if !serverHas(e.srv, "runtimes/rt-t4demo7k2p") {
		t.Fatal("a y typed as the dialog reappeared deleted the runtime")
	}
	// q still quits at the small size.
	m, _ = update(m, tea.WindowSizeMsg{Width: 40, Height: 10})
	_, cmd = update(m, keyMsg("q"))
	if cmd == nil {
		t.Fatal("q did not quit at 40×10")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("q did not quit at 40×10")
	}
	return m
}

// View draws the stack in the order keys reach it: a dialog over the
// run-code console shows over it and gets the keys.
func viewDrawsTheStackInKeyOrder(t *testing.T, e *emu, m Model) Model {
	m = e.press(t, m, "tab", "e")
	if in := m.ex.console().Input(); in != "" {
		t.Fatalf("the console opened with input %q", in)
	}
	m.scr.push(dialog.New(dialog.Confirm, e.clk.now().Add(-time.Second), "On top"))
	v := m.View()
	mustContain(t, v, "RUN CODE", "On top")
	m = e.press(t, m, "x") // any key but y cancels the dialog; x is not text for the console
	if m.dlg() != nil || !topIs[*console.Overlay](m.scr) || m.ex.console().Input() != "" {
		t.Fatalf("x did not go to the dialog on top (console input %q)", m.ex.console().Input())
	}
	return m
}

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

// Keys typed ahead reach the picker's steps (n j enter j enter
// enter names a step, esc esc backs out two), while the y of a delete
// typed before its question could be read is ignored, and the status line
// says so.
func typeAheadInTheDashboard(t *testing.T, e *emu, m Model) Model {
	m = e.typeAhead(t, m, "n", "j", "enter", "j", "enter", "enter")
	if got := m.topTitle(); got != "New runtime GPU/L4/STANDARD: runtime version" {
		t.Fatalf("after n j enter j enter enter typed ahead: %q\n%s", got, m.View())
	}
	m = e.typeAhead(t, m, "esc", "esc")
	if got := m.topTitle(); got != "New runtime: accelerator (GPU)" {
		t.Fatalf("after esc esc: %q\n%s", got, m.View())
	}
	// Two escapes in one read arrive as alt+esc: still two escapes.
	m, cmd := update(m, tea.KeyMsg{Type: tea.KeyEsc, Alt: true})
	m = drive(t, m, cmd)
	if got := m.topTitle(); got != "" || strings.Contains(m.View(), "ignored") {
		t.Fatalf("esc esc in one read did not back out of the picker: %q\n%s", got, m.View())
	}

	m = m.selectID(t, "rt-cpudemo4qx")
	before := len(e.srv.Runtimes())
	m = e.typeAhead(t, m, "d", "y")
	if len(e.srv.Runtimes()) != before || !strings.HasPrefix(m.topTitle(), "Delete runtime") {
		t.Fatalf("a y typed ahead answered the delete: %d runtimes, top %q", len(e.srv.Runtimes()), m.topTitle())
	}
	if v := m.View(); !strings.Contains(v, "key y ignored: the question had only just appeared") {
		t.Fatalf("the ignored y is not reported:\n%s", v)
	}
	e.clk.add(dialogGrace + time.Millisecond)
	m = e.typeAhead(t, m, "y")
	if len(e.srv.Runtimes()) != before-1 {
		t.Fatalf("y after the grace period did not delete:\n%s", m.View())
	}
	return m
}

// Esc closes the overlay on top even when the screen cannot
// show it (a dialog taller than the screen, or a screen too small for
// the dashboard), where every other key but quit is dropped.
func escClosesAnOverlayTheScreenCannotShow(t *testing.T, e *emu, m Model) Model {
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
	m = e.press(t, m, "enter")
	if m.dlg() != d || len(replies) != 0 {
		t.Fatalf("a key other than esc reached a dialog not on screen: replies %+v", replies)
	}
	// It waits, whole, for a screen that shows it.
	m, _ = update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	mustContain(t, m.View(), "A long list", "item 19")
	m, _ = update(m, tea.WindowSizeMsg{Width: 60, Height: 15})
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
	return m
}

// While a layer is on top (help, event log, filter, profile picker, every
// kind of dialog, the console's stop dialog), the footer's key help is that
// layer's own: never the dashboard's letters, which do nothing there. The
// dashboard opens each layer in turn from nothing open; the console's
// made-up run ends after the last, for the cases that follow.
func footerShowsTheTopLayersKeys(t *testing.T, e *emu, m Model) Model {
	const rt = "runtimes/rt-t4demo7k2p"
	for _, tc := range []struct {
		name string
		open func(e *emu, m Model) Model
		want []string // what the key line must say
	}{
		{"help", func(e *emu, m Model) Model { return e.press(t, m, "?") }, []string{"esc", "close"}},
		{"event log", func(e *emu, m Model) Model { return e.press(t, m, "L") }, []string{"esc", "close"}},
		{"filter", func(e *emu, m Model) Model { return e.press(t, m, "/") }, []string{"enter", "esc"}},
		{"profile picker", func(e *emu, m Model) Model { return e.press(t, m, "P") }, []string{"enter", "esc"}},
		{"confirm dialog", func(e *emu, m Model) Model { return e.press(t, m, "d") }, []string{"y", "cancel"}},
		{"typed dialog", func(e *emu, m Model) Model { return e.press(t, m, "tab", "x") }, []string{"enter", "esc"}},
		{"input dialog", func(e *emu, m Model) Model { return e.press(t, m, "o") }, []string{"enter", "esc"}},
		{"choice dialog", func(e *emu, m Model) Model { return e.press(t, m, "n") }, []string{"enter", "esc"}},
		{"open-a-session dialog", func(e *emu, m Model) Model {
			// rt-t4demo7k2p has its console from an earlier case: e would go back to it.
			return e.press(t, m.selectID(t, "rt-v6edemo2mw"), "e")
		}, []string{"y", "cancel"}},
		{"files pane's delete dialog", func(e *emu, m Model) Model {
			putRemote(t, e, "rt-t4demo7k2p", "content/data.csv", "a,b\n")
			return e.press(t, m, "f", "down", "x")
		}, []string{"y", "cancels"}},
		{"files pane's upload dialog", func(e *emu, m Model) Model { return e.press(t, m, "f", "u") }, []string{"enter", "esc"}},
		{"run-code console", func(e *emu, m Model) Model { return e.press(t, m, "tab", "e") }, []string{"esc back", "ctrl+c clear", "enter run"}},
		{"console stop dialog", func(e *emu, m Model) Model {
			m = withConsole(m, rt, rt+"/sessions/colabdash-1", []*execRun{{code: "time.sleep(60)", started: e.clk.now()}}, "")
			return e.press(t, m, "ctrl+c")
		}, []string{"y", "cancel"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m = e.closeAll(t, m, "rt-t4demo7k2p")
			m = tc.open(e, m)
			if m.scr.top() == nil {
				t.Fatalf("nothing opened:\n%s", m.View())
			}
			keys := keyLine(m)
			for _, dash := range []string{"new runtime", "delete", "run code", "refresh", "download", "upload"} {
				if strings.Contains(keys, dash) {
					t.Fatalf("the %s's footer shows keys from under it (%q): %q", m.scr.top().Name(), dash, keys)
				}
			}
			mustContain(t, keys, tc.want...)
		})
	}
	m = e.closeAll(t, m, "rt-t4demo7k2p")
	for _, r := range m.ex.execState.runs {
		r.done = true
	}
	return m
}

// A question an answer brings never lands on the dialog the user is
// answering: a create that fails while "Delete runtime …?" is open leaves
// the y typed for that dialog to it, and its own choices open once the
// user is back on the dashboard.
func answerDialogWaitsForTheLayerItWasAskedFrom(t *testing.T, e *emu, m Model) Model {
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: "create_runtime", Times: 1,
		Text: colabfake.GoogleErrorText(api.PermissionDenied, "The caller does not have permission.", "", 0)})
	m, create := startCreate(t, m, e, specT4)
	m = m.selectID(t, "rt-v6edemo2mw")
	m = e.press(t, m, "d")
	mustContain(t, m.View(), "Delete runtime rt-v6edemo2mw?")
	m = drive(t, m, create) // the create fails while the user reads the question
	if d := m.dlg(); d == nil || !strings.HasPrefix(d.Title, "Delete runtime ") {
		t.Fatalf("the failed create's choices opened over the delete question:\n%s", m.View())
	}
	mustContain(t, strings.Join(strings.Fields(m.View()), " "), "failed", "opens when you are back on the dashboard")
	m = e.press(t, m, "y")
	if serverHas(e.srv, "runtimes/rt-v6edemo2mw") {
		t.Fatalf("the y typed for the delete question did not answer it:\n%s", m.View())
	}
	if d := m.dlg(); d == nil || d.Kind() != dialog.Choice {
		t.Fatalf("the failed create's choices did not open once the dashboard was back:\n%s", m.View())
	}
	return m
}

// Dialogs, create rows and the run-code panel keep every line inside the
// terminal at every size.
// They are drawn on rt-v6edemo2mw, whose e asks before opening a session;
// the made-up create goes after.
func actionViewsFitTerminal(t *testing.T, e *emu, m Model) Model {
	m = m.selectID(t, "rt-v6edemo2mw")
	m.cr.creates = append(m.cr.creates, &createOp{id: 99, spec: specT4, started: e.clk.now(), state: createWaiting, retryAt: e.clk.now().Add(time.Minute)})
	for _, setup := range []func(Model) Model{
		func(m Model) Model { return e.press(t, m, "d") },
		func(m Model) Model { return e.press(t, m, "n") },
		func(m Model) Model {
			m = e.press(t, m, "e", "y")
			return typeText(e, t, m, strings.Repeat("x", 150))
		},
	} {
		m.scr.stack, m.ex.execState.console = nil, nil // the action state is shared by copies
		m, _ = update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
		m2 := setup(m)
		if len(m2.scr.stack) == 0 {
			t.Fatal("nothing opened")
		}
		for _, sz := range sizes {
			m2, _ = update(m2, tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			lines := strings.Split(m2.View(), "\n")
			if len(lines) > sz[1] {
				t.Fatalf("%v: %d lines", sz, len(lines))
			}
			commontest.MustFit(t, fmt.Sprint(sz), lines, sz[0])
		}
	}
	m.scr.stack, m.ex.execState.console, m.cr.creates = nil, nil, nil
	return m
}

// S on a runtime suspends the dashboard for its shell (a tea.Exec
// command; under --readonly it is refused: TestReadOnly); the shell's end
// is said in the status line, the dashboard otherwise as it was (the same
// selection).
func shellKeySuspendsTheDashboard(t *testing.T, e *emu, m Model) Model {
	m, cmd := update(m, keyMsg("S"))
	if cmd == nil {
		t.Fatal("S started nothing")
	}
	m, _ = update(m, shellDoneMsg{runtime: "runtimes/rt-t4demo7k2p", id: "rt-t4demo7k2p", outcome: shell.Exited})
	mustContain(t, m.View(), "shell on rt-t4demo7k2p: exited")
	if m.Selected() != "runtimes/rt-t4demo7k2p" {
		t.Errorf("selection moved to %q", m.Selected())
	}
	m, _ = update(m, shellDoneMsg{runtime: "runtimes/rt-t4demo7k2p", id: "rt-t4demo7k2p", outcome: shell.Lost,
		err: &tty.CloseError{Code: 1008, Reason: "proxy token expired"}})
	mustContain(t, m.View(), "connection lost", "1008")

	return m
}

// The status line and the event log (status.go), the screen's own record
// of what happened, follow.

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
		commontest.MustFit(t, fmt.Sprintf("event log at %d", w), strings.Split(v, "\n"), w)
		for _, ln := range strings.Split(v, "\n") {
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
