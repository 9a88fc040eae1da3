package ui

import (
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
	"github.com/colabdash/colabdash/ui/overlay/events"
	"github.com/colabdash/colabdash/ui/overlay/filter"
	"github.com/colabdash/colabdash/ui/overlay/help"
)

// apply carries out e: the one place where effects become state changes
// and commands. Each effect has one handler, in one of three groups: the
// screen's (overlays, the status line, quitting, the commands of keys),
// the table's (cursor, sort, marks, filter) and the operations' (what
// acts on Colab).
func (m *app) apply(e common.Effect) tea.Cmd {
	if e == nil {
		return nil
	}
	now := m.cx.Now()
	if cmd, ok := m.applyScreen(e, now); ok {
		return cmd
	}
	if m.applyTable(e, now) {
		return nil
	}
	return m.applyOp(e, now)
}

// applyScreen carries out the effects on what is shown; ok is false for
// the others.
func (m *app) applyScreen(e common.Effect, now time.Time) (_ tea.Cmd, ok bool) {
	switch a := e.(type) {
	case common.Quit:
		if !a.Anyway && m.askQuit(now) {
			return nil, true
		}
		m.life.cancel()
		return tea.Quit, true
	case common.Close:
		return m.scr.closeTop(a, now), true
	case common.Open:
		m.scr.push(a.Overlay)
	case common.Say:
		m.scr.say(now, a)
	case common.Help:
		m.scr.push(help.New(a.First))
	case common.Answer:
		return m.answer(a), true
	case common.Run:
		return a.Cmd, true
	case common.Details:
		m.toggleDetails(now)
	case common.Back:
		m.back()
	case common.Do:
		return m.applyCommand(a.Op, now), true
	case common.RunPlugin:
		return m.apply(m.pluginFromPane(a, now)), true
	default:
		return nil, false
	}
	return nil, true
}

// applyTable carries out the effects on the runtimes table and the
// sessions cursor; it reports whether e was one.
func (m *app) applyTable(e common.Effect, now time.Time) bool {
	switch a := e.(type) {
	case common.Move:
		m.move(a.N)
	case common.MoveSession:
		m.moveSession(a.N)
	case common.Focus:
		m.cx.Focus = 1 - m.cx.Focus
	case common.Sort:
		m.rt.NextSort(m.cx)
		m.scr.say(now, common.Say{Text: "sorted by " + m.rt.SortWord()})
	case common.SortBy:
		if m.rt.SortBy(a.Action) {
			m.scr.say(now, common.Say{Text: "sorted by " + m.rt.SortWord()})
		}
	case common.Mark:
		m.ops.mark(now, m.runtimeRows())
	case common.ClearMarks:
		n := m.rt.ClearMarks()
		m.scr.say(now, common.Say{Text: "cleared " + countWord(n, "mark")})
	case common.Filter:
		m.rt.SetFilter(a.Text)
	case common.ClearFilter:
		m.scr.pop()
		m.rt.SetFilter("")
	default:
		return false
	}
	return true
}

// applyOp carries out the effects that act on Colab, each handed to the
// domain type that owns it.
func (m *app) applyOp(e common.Effect, now time.Time) tea.Cmd {
	switch a := e.(type) {
	case common.Refresh:
		return tea.Batch(m.calls.refresh(now, true)...)
	case common.DeleteRuntime:
		return m.ops.startDelete(a.Name, now)
	case common.AskDelete:
		m.ops.askDeleteNamed(a.Name, now)
	case common.DeleteRuntimes:
		return m.ops.startDeletes(a.Names, now)
	case common.CloseSession:
		return m.ops.startCloseSession(a.Name, now)
	case common.CloseSessions:
		return m.ops.startCloseSessions(a, now)
	case common.OpenSession:
		return m.ops.startOpenSession(a.Runtime, a.ID, a.ForConsole, now)
	case common.StopRun:
		return m.apply(m.ex.stopRun(a.Session))
	case common.CreateRuntime:
		return m.cr.submitCreate(a.Spec, a.Version, a.ID, now)
	case common.ResendCreate:
		return m.cr.resendCreate(a.Create.(*createOp), now)
	case common.SwitchProfile:
		return m.prof.chosen(a.Name)
	case common.RunCode:
		return m.ex.runInConsole(a.Code, now)
	case common.StopCode:
		return m.ex.interruptOrStop(now)
	}
	return nil
}

// answer closes a's dialog, wherever it is on the stack, and carries out
// what its answer asked.
func (m *app) answer(a common.Answer) tea.Cmd {
	m.scr.remove(a.Dialog)
	cmd := m.apply(a.Then)
	if d, ok := a.Dialog.(interface{ Cancelled() bool }); ok && d.Cancelled() && m.cx.Status.Text != "" {
		// "… cancelled" says what the last dialog did: the next
		// overlay opened is another question (push clears it).
		m.scr.statusCancel = true
	}
	return cmd
}

// toggleDetails is enter: the details expanded or collapsed.
func (m *app) toggleDetails(now time.Time) {
	if w, h := m.scr.width, m.scr.height; !m.scr.showDetails && newLayout(w, h, m.tableRows(), true, m.mon != nil) == newLayout(w, h, m.tableRows(), false, m.mon != nil) {
		// A tall stacked screen shows every line already: say so
		// rather than answer enter with nothing.
		m.scr.say(now, common.Say{Text: "the details show every line at this size already"})
		return
	}
	m.scr.showDetails = !m.scr.showDetails
	m.relayout()
}

// back is esc on the dashboard: one thing per press, the most specific
// first: the filter, the expanded details, then the status message.
func (m *app) back() {
	switch {
	case m.rt.Filter() != "":
		m.rt.SetFilter("")
	case m.scr.showDetails:
		m.scr.showDetails = false
		m.relayout()
	default:
		m.scr.clearStatus()
	}
}

// globalKey maps a key no overlay or pane took to its effect.
func (m *app) globalKey(k tea.KeyMsg) common.Effect {
	keys := &m.cx.Keys.Dashboard
	for _, g := range []struct {
		b key.Binding
		e common.Effect
	}{
		{keys.Profile, common.Do{Op: common.OpProfiles}}, {keys.Events, common.Do{Op: common.OpEvents}},
		{keys.Quit, common.Quit{}}, {keys.Help, common.Help{}},
		{keys.Back, common.Back{}}, {keys.NextPanel, common.Focus{}}, {keys.PrevPanel, common.Focus{}},
		{keys.Details, common.Details{}}, {keys.Filter, common.Do{Op: common.OpOpenFilter}},
		{keys.Sort, common.Sort{}}, {keys.Refresh, common.Refresh{}},
		{keys.NewRuntime, common.Do{Op: common.OpNewRuntime}}, {keys.QuickCreate, common.Do{Op: common.OpQuickCreate}},
		{keys.DeleteRuntime, common.Do{Op: common.OpDelete}}, {keys.OpenSession, common.Do{Op: common.OpOpenSession}},
		{keys.CloseSession, common.Do{Op: common.OpCloseSession}}, {keys.RenewToken, common.Do{Op: common.OpRenew}},
		{keys.Cancel, common.Do{Op: common.OpCancelCreate}}, {keys.RunCode, common.Do{Op: common.OpRunCode}},
		{keys.CopyURL, common.Do{Op: common.OpCopyURL}}, {keys.CopyToken, common.Do{Op: common.OpCopyToken}},
		{keys.RevealToken, common.Do{Op: common.OpReveal}}, {keys.Files, common.Do{Op: common.OpFiles}},
		{keys.Shell, common.Do{Op: common.OpShell}}, {keys.Logs, common.Do{Op: common.OpLogs}},
		{keys.GuardCancel, common.Do{Op: common.OpGuardCancel}},
	} {
		if key.Matches(k, g.b) {
			return g.e
		}
	}
	if b, ok := keys.DisabledMatch(k); ok {
		return common.Say{Text: "read-only mode: " + b.Help().Key + " (" + b.Help().Desc + ") is disabled", Err: true}
	}
	if e, ok := m.pluginKey(k, m.cx.Now()); ok {
		return e
	}
	return nil
}

// applyCommand carries out the dashboard's commands (the keys that act on
// the selected runtime or session), each handed to the domain type that
// owns it.
func (m *app) applyCommand(op common.Op, now time.Time) tea.Cmd {
	switch op {
	case common.OpEvents:
		m.scr.push(events.New(m.scr.events))
	case common.OpProfiles:
		m.prof.openPicker(len(m.cr.creates) > 0 || m.ops.busy())
	case common.OpOpenFilter:
		m.scr.push(filter.New(m.rt.Filter()))
	case common.OpFiles:
		return m.ops.openFiles(now)
	case common.OpShell:
		return m.ops.openShell(now)
	case common.OpLogs:
		return m.openLog(now)
	case common.OpGuardCancel:
		return m.cancelGuard(now)
	case common.OpNewRuntime:
		return m.apply(m.cr.openPicker())
	case common.OpQuickCreate:
		return m.apply(m.cr.quickCreate(now))
	case common.OpDelete:
		m.ops.deleteKey(now, m.liveSelected)
	case common.OpOpenSession:
		if sel := m.liveSelected(now); sel != nil {
			m.scr.push(openSessionDialog(sel, now))
		}
	case common.OpCloseSession:
		m.ops.closeSessionKey(now)
	case common.OpRenew:
		if sel := m.liveSelected(now); sel != nil {
			return m.calls.renewNow(sel, now)
		}
	case common.OpCancelCreate:
		return m.apply(m.cr.cancelWaiting())
	case common.OpRunCode:
		m.ex.openConsole(now)
	case common.OpCopyURL, common.OpCopyToken, common.OpReveal:
		return m.ops.clipboardCommand(op, now)
	}
	return nil
}

// liveSelected is the selected runtime when it is listed and not gone;
// otherwise the status line says why a key cannot act on it, and it is
// nil.
func (m *app) liveSelected(now time.Time) *state.Runtime {
	sel := m.cx.Snap.Runtime(m.rt.Selected())
	switch {
	case sel == nil:
		m.scr.say(now, common.Say{Text: "no runtime selected", Err: true})
	case sel.Gone():
		m.scr.say(now, common.Say{Text: goneText(sel, now), Err: true})
	default:
		return sel
	}
	return nil
}

// openSessionDialog asks for the id of a session to open on sel (o).
func openSessionDialog(sel *state.Runtime, now time.Time) *dialog.Dialog {
	d := dialog.New(dialog.Input, now, "Open a session on "+sel.ID(),
		"Session id (optional, RFC 1034: "+rfc1034Rules+").",
		"An id you type is recorded on this machine as a session colabdash opened; the id of a session already open reuses it as it is.")
	d.Validate, d.Hint = api.ValidateID, "empty: a colabdash-… id is chosen"
	runtime := sel.Name
	d.OnAnswer = func(_ *common.Context, r dialog.Reply) common.Effect {
		if !r.OK {
			return common.Say{Text: "open session cancelled: no session opened on " + api.LastSegment(runtime)}
		}
		return common.OpenSession{Runtime: runtime, ID: r.Input}
	}
	return d
}

// The root's side of dialogs (package ui/overlay/dialog): each dialog
// carries its own answer, built where it is opened (askDelete,
// askCloseSession, the console's and the files pane's questions, the
// choices after a failed create, the create picker in ui/overlay/picker);
// apply carries out the effect that answer returns (and onDialogCheck,
// answers.go, a check's answer). Here: the grace period the tests wait
// out.

// dialogGrace is how long a dialog ignores keys after it opened
// (dialog.Grace, 350 ms).
const dialogGrace = dialog.Grace
