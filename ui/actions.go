package ui

import (
	"context"
	"path/filepath"
	"strconv"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
	"github.com/colabdash/colabdash/ui/overlay/events"
	"github.com/colabdash/colabdash/ui/overlay/files/pane"
	"github.com/colabdash/colabdash/ui/overlay/filter"
	"github.com/colabdash/colabdash/ui/overlay/picker"
)

// sessionPick is a session chosen for run code and when it was chosen.
type sessionPick struct {
	name string
	at   time.Time
}

// Messages of actions. Each names its target so a late answer lands on the
// right row.
type (
	deleteDoneMsg struct {
		name string
		err  error
	}
	sessionOpenedMsg struct {
		runtime    string
		session    api.Session
		forConsole bool // opened for the run-code console: open it there
		err        error
	}
	sessionClosedMsg struct {
		name string
		err  error
	}
)

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
			m.scr.setStatus(now, noRuntime, true)
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
			m.scr.setStatus(now, "no last spec yet: create one with "+m.cx.Keys.NewRuntime.Help().Key, true)
			break
		}
		if len(m.cx.Snap.Specs) > 0 {
			if err := state.CheckSpec(m.cx.Snap.Specs, ls.Spec, m.cx.Snap.Subscription.Tier); err != nil {
				m.scr.setStatus(now, "cannot create like the last one: "+err.Error(), true)
				break
			}
		}
		d := dialog.New(dialog.Confirm, now, "Create a runtime like the last one?",
			"spec "+ls.Spec.String()+" · version "+orLatest(ls.Version))
		spec, version := ls.Spec, ls.Version
		d.OnAnswer = func(_ *common.Context, r dialog.Reply) common.Effect {
			if !r.OK {
				return nil
			}
			return common.CreateRuntime{Spec: spec, Version: version}
		}
		m.scr.push(d)
	case common.OpDelete:
		if needLive() {
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
					return nil
				}
				return common.OpenSession{Runtime: runtime, ID: r.Input}
			}
			m.scr.push(d)
		}
	case common.OpCloseSession:
		m.ops.askCloseSession(now)
	case common.OpRenew:
		if !needLive() {
			break
		}
		if c := m.calls.issue(callKey{kind: callRenew, runtime: sel.Name}, now); c != nil {
			m.calls.renew.Started(sel.Name, now)
			m.calls.manualRenew[sel.Name] = true
			m.scr.setProgress(now, api.ToolGetRuntime, sel.Name, "renewing the proxy token of "+sel.ID()+"…")
			return c
		}
		m.scr.setStatus(now, "a renewal of "+sel.ID()+" is already in flight", false)
	case common.OpCancelCreate:
		for _, op := range m.cr.creates {
			if op.state == createWaiting {
				m.cr.dropCreate(op.id)
				m.scr.setStatus(now, "create of "+op.spec.String()+" cancelled", false)
				return nil
			}
		}
		m.scr.setStatus(now, "no create is waiting to retry", false)
	case common.OpRunCode:
		m.ex.openConsole(now)
	case common.OpCopyURL, common.OpCopyToken, common.OpReveal:
		return m.ops.clipboardCommand(op, now)
	}
	return nil
}

func (m *runtimeOps) askDelete(sel *state.Runtime, now time.Time) {
	acc := sel.RuntimeSpec.Accelerator
	if acc == "" {
		acc = api.AcceleratorNone
	}
	d := dialog.New(dialog.Confirm, now, "Delete runtime "+sel.ID()+"?",
		"Runtime "+sel.Name+" ("+sel.RuntimeSpec.Variant.Short()+", accelerator "+acc+").",
		"This cannot be undone: it removes the runtime's files and its "+strconv.Itoa(len(sel.Sessions))+" session(s).")
	name := sel.Name
	d.OnAnswer = func(_ *common.Context, r dialog.Reply) common.Effect {
		if !r.OK {
			return common.Say{Text: "delete cancelled"}
		}
		return common.DeleteRuntime{Name: name}
	}
	m.scr.push(d)
}

func (m *runtimeOps) askCloseSession(now time.Time) {
	s := m.selectedSession()
	if s == "" {
		m.scr.setStatus(now, "no session selected (tab to the sessions panel)", true)
		return
	}
	id := api.LastSegment(s)
	var d *dialog.Dialog
	if m.cx.Snap.Owned(s) {
		d = dialog.New(dialog.Confirm, now, "Close session "+id+"?", "Session "+s+" (opened by colabdash).")
	} else {
		d = dialog.New(dialog.Typed, now, "Close NOTEBOOK session "+id+"?",
			"colabdash did not open this session: it is probably one of your notebooks.",
			"Closing it shuts its kernel down: the notebook's kernel state (variables, imports, running code) will be lost.")
		d.Want = "close"
	}
	d.OnAnswer = func(_ *common.Context, r dialog.Reply) common.Effect {
		if !r.OK {
			return nil
		}
		return common.CloseSession{Name: s}
	}
	m.scr.push(d)
}

func orLatest(v string) string {
	if v == "" {
		return "latest"
	}
	return v
}

// --- delete ---

func (m *runtimeOps) startDelete(name string, now time.Time) tea.Cmd {
	if _, busy := m.ops.deleting[name]; busy {
		return nil
	}
	m.ops.deleting[name] = now
	m.scr.setProgress(now, api.ToolDeleteRuntime, name, "deleting "+api.LastSegment(name)+"…")
	return guard(m.apiCall(api.ToolDeleteRuntime), func(ctx context.Context, svc api.Service) tea.Msg {
		return deleteDoneMsg{name: name, err: svc.DeleteRuntime(ctx, name)}
	}, func(err error) tea.Msg { return deleteDoneMsg{name: name, err: err} })
}

func (m *runtimeOps) onDeleteDone(msg deleteDoneMsg, now time.Time) tea.Cmd {
	id := api.LastSegment(msg.name)
	if !m.ops.finishAction(now, api.ToolDeleteRuntime, msg.name, m.ops.deleting, msg.name, msg.err, "delete "+id) {
		return nil
	}
	m.cx.Snap.MarkRuntimeGone(now, msg.name, state.ReasonDeleted)
	delete(m.calls.pending, callKey{kind: callRenew, runtime: msg.name})
	delete(m.calls.pending, callKey{kind: callSessions, runtime: msg.name})
	if m.cx.Activity.Revealed == msg.name {
		m.cx.Activity.Revealed = ""
	}
	m.scr.setStatus(now, "✓ deleted "+id, false)
	return tea.Batch(m.calls.refresh(now, false)...)
}

// finishAction records the answer of an action call (tool on target,
// sent when inflight[key] says) in the event log, forgets it from
// inflight, and says in the status line that what failed; ok is false on
// failure.
func (m *runtimeOps) finishAction(now time.Time, tool, target string, inflight map[string]time.Time, key string, err error, what string) (ok bool) {
	m.scr.recordEvent(now, tool, target, now.Sub(inflight[key]), err)
	delete(inflight, key)
	m.scr.endProgress(tool, target)
	if err != nil {
		m.scr.setStatus(now, what+" failed: "+common.ErrLine(err), true)
		return false
	}
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
		m.scr.setStatus(now, "could not remember the spec: "+common.ErrLine(msg.err), true)
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
			m.scr.setStatus(now, "copy failed: "+common.ErrLine(msg.err), true)
		} else {
			m.scr.setStatus(now, copiedText(msg), false)
		}
		return nil, true
	}
	return nil, false
}

// actionsTick re-sends creates whose retry wait is over.
func (m *createOps) actionsTick(now time.Time) []tea.Cmd {
	var cmds []tea.Cmd
	for _, op := range m.cr.creates {
		if op.state == createWaiting && !now.Before(op.retryAt) {
			cmds = append(cmds, m.cr.sendCreate(op, now))
		}
	}
	return cmds
}

// busyText describes a pending action on runtime name for its row ("" when
// none).
func (m *runtimeOps) busyText(name string, now time.Time) string {
	if t, ok := m.ops.deleting[name]; ok {
		return "deleting… " + state.FormatCountdown(now.Sub(t))
	}
	if _, ok := m.ops.opening[name]; ok {
		return "opening session…"
	}
	return ""
}

func itoaPlural(n int, word string) string {
	s := strconv.Itoa(n) + " " + word
	if n != 1 {
		s += "s"
	}
	return s
}

// goneText says why an action cannot act on the gone runtime r: "rt-x is
// gone (reclaimed 10s ago)".
func (m *runtimeOps) goneText(r *state.Runtime, now time.Time) string {
	word := "reclaimed"
	if r.Deleted() {
		word = "deleted"
	}
	return r.ID() + " is gone (" + word + " " + state.FormatAgo(now.Sub(r.GoneAt)) + ")"
}

// rfc1034Rules are the id rules api.ValidateID enforces, for dialog hints.
const rfc1034Rules = picker.IDRules
