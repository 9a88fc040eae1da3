package ui

import (
	"path/filepath"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
	"github.com/colabdash/colabdash/ui/overlay/events"
	"github.com/colabdash/colabdash/ui/overlay/files"
	"github.com/colabdash/colabdash/ui/overlay/files/pane"
	"github.com/colabdash/colabdash/ui/overlay/filter"
	"github.com/colabdash/colabdash/ui/overlay/help"
	"github.com/colabdash/colabdash/ui/overlay/picker"
)

// apply carries out e: the one place where effects become state changes
// and commands.
func (m *app) apply(e common.Effect) tea.Cmd {
	now := m.cx.Now()
	switch a := e.(type) {
	case nil:
	case common.Quit:
		m.life.cancel()
		return tea.Quit
	case common.Close:
		if o, ok := m.scr.top().(*files.Overlay); ok {
			m.scr.filesClosed = m.scr.filesClosed.Note(o)
			if m.scr.statusPane { // "select a file to download…" means nothing on the dashboard
				m.scr.clearStatus()
				m.scr.statusPane = false
			}
		}
		m.scr.pop()
		if a.Text != "" {
			m.scr.say(now, common.Say{Text: a.Text, Err: a.Err})
		}
		return a.Cmd // the closing overlay's last call (the files filter's listing), if any
	case common.Open:
		m.scr.push(a.Overlay)
	case common.Say:
		m.scr.say(now, common.Say{Text: a.Text, Err: a.Err})
		m.scr.statusPane = a.Pane
	case common.Move:
		m.move(a.N)
	case common.MoveSession:
		m.moveSession(a.N)
	case common.Focus:
		m.cx.Focus = 1 - m.cx.Focus
	case common.Details:
		if w, h := m.scr.width, m.scr.height; !m.scr.showDetails && newLayout(w, h, true, m.mon != nil) == newLayout(w, h, false, m.mon != nil) {
			// A tall stacked screen shows every line already: say so
			// rather than answer enter with nothing.
			m.scr.say(now, common.Say{Text: "the details show every line at this size already"})
			break
		}
		m.scr.showDetails = !m.scr.showDetails
		m.relayout()
	case common.Sort:
		m.rt.NextSort(m.cx)
		m.scr.say(now, common.Say{Text: "sorted by " + m.rt.SortWord()})
	case common.SortBy:
		if m.rt.SortBy(a.Action) {
			m.scr.say(now, common.Say{Text: "sorted by " + m.rt.SortWord()})
		}
	case common.Mark:
		m.ops.mark(now)
	case common.ClearMarks:
		n := m.rt.ClearMarks()
		m.scr.say(now, common.Say{Text: "cleared " + countWord(n, "mark")})
	case common.Refresh:
		return tea.Batch(m.calls.refresh(now, true)...)
	case common.Back:
		m.back()
	case common.Filter:
		m.rt.SetFilter(a.Text)
	case common.ClearFilter:
		m.scr.pop()
		m.rt.SetFilter("")
	case common.Answer:
		m.scr.remove(a.Dialog)
		cmd := m.apply(a.Then)
		if d, ok := a.Dialog.(interface{ Cancelled() bool }); ok && d.Cancelled() && m.cx.Status.Text != "" {
			// "… cancelled" says what the last dialog did: the next
			// overlay opened is another question (push clears it).
			m.scr.statusCancel = true
		}
		return cmd
	case common.DeleteRuntime:
		return m.ops.startDelete(a.Name, now)
	case common.AskDelete:
		if r := m.cx.Snap.Runtime(a.Name); r != nil && !r.Gone() {
			m.rt.Select(r.Name)
			m.ops.askDelete(r, now)
		}
	case common.DeleteRuntimes:
		m.rt.Unmark(a.Names...)
		var cmds []tea.Cmd
		for _, n := range a.Names {
			cmds = append(cmds, m.ops.startDelete(n, now))
		}
		return tea.Batch(cmds...)
	case common.CloseSession:
		return m.ops.startCloseSession(a.Name, now)
	case common.CloseSessions:
		m.rt.Unmark(a.Runtimes...)
		var cmds []tea.Cmd
		for _, n := range a.Names {
			cmds = append(cmds, m.ops.startCloseSession(n, now))
		}
		return tea.Batch(cmds...)
	case common.OpenSession:
		return m.ops.startOpenSession(a.Runtime, a.ID, a.ForConsole, now)
	case common.StopRun:
		return m.ex.stopRun(a.Session, now)
	case common.CreateRuntime:
		return m.cr.submitCreate(a.Spec, a.Version, a.ID, now)
	case common.ResendCreate:
		return m.cr.resendCreate(a.Create.(*createOp), now)
	case common.SwitchProfile:
		m.scr.pop()
		if a.Name == m.cx.Profile && m.ops.prof.switching == "" {
			return nil
		}
		return m.ops.switchProfile(a.Name)
	case common.RunCode:
		return m.ex.runInConsole(a.Code, now)
	case common.StopCode:
		return m.ex.interruptOrStop(now)
	case common.Run:
		return a.Cmd
	case common.Help:
		m.scr.push(help.New(a.First))
	case common.Do:
		return m.applyCommand(a.Op, now)
	}
	return nil
}

// mark is space on the table: the selected runtime marked or unmarked,
// the cursor a row down, and the status line says how many are marked and
// what acts on them.
func (m *runtimeOps) mark(now time.Time) {
	before := m.rt.Selected()
	id, marked, ok := m.rt.ToggleMark(m.runtimeRows())
	if m.rt.Selected() != before {
		m.sess.Reset()
	}
	switch {
	case !ok && id == "":
		m.scr.say(now, common.Say{Text: "no runtime selected", Err: true})
	case !ok:
		m.scr.say(now, common.Say{Text: id + " is gone: it cannot be marked", Err: true})
	default:
		word := "unmarked "
		if marked {
			word = "marked "
		}
		k := m.cx.Keys
		m.scr.say(now, common.Say{Text: word + id + " · " + countWord(len(m.rt.Marked()), "runtime") + " marked: " +
			k.Word(keymap.ActionDeleteRuntime) + " deletes them, " + k.Word(keymap.ActionCloseSession) + " closes their sessions, " +
			k.Word(keymap.ActionClearMarks) + " clears"})
	}
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
		{keys.Shell, common.Do{Op: common.OpShell}},
	} {
		if key.Matches(k, g.b) {
			return g.e
		}
	}
	if b, ok := keys.DisabledMatch(k); ok {
		return common.Say{Text: "read-only mode: " + b.Help().Key + " (" + b.Help().Desc + ") is disabled", Err: true}
	}
	return nil
}

// applyCommand carries out the dashboard's commands (the keys that act on
// the selected runtime or session).
func (m *app) applyCommand(op common.Op, now time.Time) tea.Cmd {
	sel := m.cx.Snap.Runtime(m.rt.Selected())
	live := sel != nil && !sel.Gone()
	noRuntime := "no runtime selected"
	if sel != nil && sel.Gone() {
		noRuntime = m.ops.goneText(sel, now)
	}
	needLive := func() bool {
		if !live {
			m.scr.say(now, common.Say{Text: noRuntime, Err: true})
		}
		return live
	}
	switch op {
	case common.OpEvents:
		m.scr.push(events.New(m.scr.events))
	case common.OpProfiles:
		m.ops.openProfilePicker()
	case common.OpOpenFilter:
		m.scr.push(filter.New(m.rt.Filter()))
	case common.OpFiles:
		return m.ops.openFiles(now)
	case common.OpShell:
		return m.ops.openShell(now)
	case common.OpNewRuntime:
		return m.cr.openPicker(now)
	case common.OpQuickCreate:
		ls := m.cr.lastSpec
		if ls == nil {
			m.scr.say(now, common.Say{Text: "no last spec yet: create one with " + m.cx.Keys.Dashboard.NewRuntime.Help().Key, Err: true})
			break
		}
		if len(m.cx.Snap.Specs) > 0 {
			if err := state.CheckSpec(m.cx.Snap.Specs, ls.Spec, m.cx.Snap.Subscription.Tier); err != nil {
				m.scr.say(now, common.Say{Text: "cannot create like the last one: " + err.Error(), Err: true})
				break
			}
		}
		d := dialog.New(dialog.Confirm, now, "Create a runtime like the last one?",
			"spec "+ls.Spec.String()+" · version "+orLatest(ls.Version))
		spec, version := ls.Spec, ls.Version
		d.OnAnswer = func(_ *common.Context, r dialog.Reply) common.Effect {
			if !r.OK {
				return common.Say{Text: "create cancelled: nothing created"}
			}
			return common.CreateRuntime{Spec: spec, Version: version}
		}
		m.scr.push(d)
	case common.OpDelete:
		if m.ops.marksHidden(now) {
			break
		}
		if marked := m.rt.Marked(); len(marked) > 0 {
			m.ops.askDeleteMarked(marked, now)
		} else if needLive() {
			m.ops.askDelete(sel, now)
		}
	case common.OpOpenSession:
		if needLive() {
			d := dialog.New(dialog.Input, now, "Open a session on "+sel.ID(),
				"Session id (optional, RFC 1034: "+rfc1034Rules+").")
			d.Validate, d.Hint = api.ValidateID, "empty: a colabdash-… id is chosen"
			runtime := sel.Name
			d.OnAnswer = func(_ *common.Context, r dialog.Reply) common.Effect {
				if !r.OK {
					return common.Say{Text: "open session cancelled: no session opened on " + api.LastSegment(runtime)}
				}
				return common.OpenSession{Runtime: runtime, ID: r.Input}
			}
			m.scr.push(d)
		}
	case common.OpCloseSession:
		if m.cx.Focus == common.PanelRuntimes && m.ops.marksHidden(now) {
			break
		}
		if marked := m.rt.Marked(); len(marked) > 0 && m.cx.Focus == common.PanelRuntimes {
			m.ops.askCloseMarked(marked, now)
			break
		}
		m.ops.askCloseSession(now)
	case common.OpRenew:
		if !needLive() {
			break
		}
		if c := m.calls.issue(callKey{kind: callRenew, runtime: sel.Name}, now); c != nil {
			m.calls.renew.Started(sel.Name, now)
			m.calls.manualRenew[sel.Name] = true
			m.scr.say(now, common.Say{Text: "renewing the proxy token of " + sel.ID() + "…", For: api.ToolGetRuntime + " " + sel.Name})
			return c
		}
		m.scr.say(now, common.Say{Text: "a renewal of " + sel.ID() + " is already in flight", About: sel.Name})
	case common.OpCancelCreate:
		for _, op := range m.cr.creates {
			if op.state == createWaiting {
				m.cr.dropCreate(op.id)
				m.scr.say(now, common.Say{Text: "create of " + op.spec.String() + " cancelled"})
				return nil
			}
		}
		m.scr.say(now, common.Say{Text: "no create is waiting to retry"})
	case common.OpRunCode:
		m.ex.openConsole(now)
	case common.OpCopyURL, common.OpCopyToken, common.OpReveal:
		return m.ops.clipboardCommand(op, now)
	}
	return nil
}

// marksHidden reports, saying so, that runtimes are marked but the filter
// hides every one: a bulk key acts only on what the table shows, and then
// on nothing (not on the selection, which the marks were meant to replace).
func (m *runtimeOps) marksHidden(now time.Time) bool {
	if len(m.rt.Marked()) > 0 || m.rt.HiddenMarks() == 0 {
		return false
	}
	k := m.cx.Keys
	m.scr.say(now, common.Say{Text: countWord(m.rt.HiddenMarks(), "marked runtime") + " hidden by the filter, none shown: " +
		k.Word(keymap.ActionBack) + " clears the filter, " + k.Word(keymap.ActionClearMarks) + " the marks", Err: true})
	return true
}

// onActionMsg handles the messages of actions; ok is false for others.
func (m *app) onActionMsg(msg tea.Msg) (tea.Cmd, bool) {
	now := m.cx.Now()
	switch msg := msg.(type) {
	case createDoneMsg:
		return m.cr.onCreateDone(msg, now), true
	case deleteDoneMsg:
		return m.ops.onDeleteDone(msg, now), true
	case sessionOpenedMsg:
		return m.ops.onSessionOpened(msg, now), true
	case sessionClosedMsg:
		return m.ops.onSessionClosed(msg, now), true
	case execDoneMsg:
		return m.ex.onExecDone(msg, now), true
	case lastSpecSaveFailedMsg:
		m.scr.say(now, common.Say{Text: "could not remember the spec: " + common.ErrLine(msg.err), Err: true})
		m.scr.recordEvent(now, "state file", filepath.Join(m.opts.StateDir, LastSpecFile), 0, msg.err)
		return nil, true
	case pane.ListedMsg, pane.ProgressMsg, pane.DoneMsg, pane.PlanMsg:
		return m.ops.onFilesMsg(msg, now), true
	case dialog.CheckMsg:
		return m.onDialogCheck(msg), true
	case shellDoneMsg:
		return m.ops.onShellDone(msg, now), true
	case interruptDoneMsg:
		return m.ex.onInterruptDone(msg, now), true
	case clipboardMsg:
		if msg.err != nil {
			m.scr.say(now, common.Say{Text: "copy failed: " + common.ErrLine(msg.err), Err: true})
		} else {
			m.scr.say(now, common.Say{Text: copiedText(msg)})
		}
		return nil, true
	}
	return nil, false
}

// The root's side of dialogs (package ui/overlay/dialog): each dialog
// carries its own answer, built where it is opened (askDelete,
// askCloseSession, the console's and the files pane's questions, the
// choices after a failed create, the create picker in ui/overlay/picker);
// apply carries out the effect that answer returns. Here: the grace period
// the tests wait out, the picker's start, and the checks' answers.

// DialogGrace is how long a dialog ignores keys after it opened
// (dialog.Grace, 350 ms).
const DialogGrace = dialog.Grace

// openPicker opens the create picker (ui/overlay/picker) over the runtime
// specs listed, starting on the configured default spec; without specs the
// status line says why.
func (m *createOps) openPicker(now time.Time) tea.Cmd {
	if len(m.cx.Snap.Specs) == 0 {
		msg := "no runtime specs yet (list_runtime_specs has not answered)"
		if err := m.cx.Snap.SpecsFresh.Err; err != nil {
			msg = "cannot list runtime specs: " + common.ErrLine(err)
		}
		m.scr.say(now, common.Say{Text: msg, Err: true})
		return nil
	}
	return m.apply(picker.Open(m.cx, m.opts.DefaultSpec))
}

// onDialogCheck hands a dialog's check answer to its dialog, which keeps
// it when it is for its input now and submits when enter was waiting for
// it (only while it is on top).
func (m *app) onDialogCheck(msg dialog.CheckMsg) tea.Cmd {
	d := msg.Owner()
	return m.apply(d.Checked(msg, m.scr.top() == d, m.cx))
}
