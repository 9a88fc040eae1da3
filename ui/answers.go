package ui

// The root's side of the answers: each answer goes to the domain type
// that sent its call, and what it means to the others the root hands
// them here, so that no domain type calls another.

import (
	"path/filepath"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
	"github.com/colabdash/colabdash/ui/overlay/files/pane"
	"github.com/colabdash/colabdash/ui/overlay/logview"
	"github.com/colabdash/colabdash/ui/plugin"
	"github.com/colabdash/colabdash/ui/poll"
)

// carryOut issues what a domain type's answer asked of the read calls
// (want) and returns it with the domain type's own command.
func (m *app) carryOut(w want, now time.Time) tea.Cmd {
	if w.issued != nil {
		m.calls.learnTokenLife(*w.issued, w.sent)
	}
	if w.forget != "" {
		m.calls.forget(w.forget)
	}
	cmds := []tea.Cmd{w.cmd}
	if w.relist {
		delete(m.calls.pending, callKey{kind: callRuntimes})
	}
	if w.refresh || w.relist {
		cmds = append(cmds, m.calls.refresh(now, false)...)
	}
	if w.sessions != "" {
		k := callKey{kind: callSessions, runtime: w.sessions}
		if w.relistSessions {
			delete(m.calls.pending, k)
		}
		cmds = append(cmds, m.calls.issue(k, now))
	}
	return tea.Batch(cmds...)
}

// onResult takes the answer of a read call (callState), then hands it to
// whom it concerns: a list of the runtimes to the creates whose outcome
// was unknown, a list of sessions to run code (a session it used may have
// gone), a renewal to the monitor (whether the answer was still wanted or
// not: a poll waits for it).
func (m *app) onResult(msg resultMsg) tea.Cmd {
	now := m.cx.Now()
	var before []api.Session // the sessions a list replaces
	if r := m.cx.Snap.Runtime(msg.key.runtime); r != nil && msg.key.kind == callSessions {
		before = r.Sessions
	}
	cmd, p, ok := m.calls.onResult(msg, now)
	switch {
	case msg.key.kind == callRenew:
		m.mon.renewed(msg.key.runtime, msg.err)
		cmd = tea.Batch(cmd, m.notifyRenewFailed(msg.key.runtime, msg.err, now))
	case !ok || msg.err != nil:
	case msg.key.kind == callRuntimes:
		m.cr.onRuntimesListed(now)
	case msg.key.kind == callSessions:
		for _, s := range msg.owned {
			m.cx.Snap.MarkOwned(s)
		}
		m.ex.forgetVanishedSession(msg.key.runtime, p.started, msg.sessions)
		m.mon.sessionsListed(msg.key.runtime, before, msg.sessions, now)
	}
	return cmd
}

// onPoll takes a monitor poll's answer; a token the proxy refused is
// renewed through the one renewal path (callState), unless the call
// budget is spent for a runtime that is not selected: the poll then ends
// failed.
func (m *app) onPoll(msg poll.ResultMsg) tea.Cmd {
	name := m.mon.onResult(msg)
	if name == "" {
		return nil
	}
	c, err := m.calls.renewForPoll(name, m.cx.Now())
	if err != nil {
		m.mon.renewed(name, err)
	}
	return c
}

// onActionMsg handles the answers of actions; ok is false for other
// messages.
func (m *app) onActionMsg(msg tea.Msg) (tea.Cmd, bool) {
	now := m.cx.Now()
	switch msg := msg.(type) {
	case createDoneMsg:
		return m.carryOut(m.cr.onCreateDone(msg, now), now), true
	case deleteDoneMsg:
		return tea.Batch(m.carryOut(m.ops.onDeleteDone(msg, now), now), m.guardDeleted(msg, now)), true
	case sessionOpenedMsg:
		if !m.ops.onSessionOpened(msg, now) {
			return nil, true
		}
		m.ex.sessionOpened(msg.runtime, msg.session, msg.forConsole, now)
		return m.carryOut(want{sessions: msg.runtime}, now), true
	case sessionClosedMsg:
		if !m.ops.onSessionClosed(msg, now) {
			return nil, true
		}
		m.ex.sessionClosed(msg.name, now)
		m.mon.sessionClosed(api.Session{Name: msg.name}.Parent(), now)
		return m.carryOut(want{sessions: api.Session{Name: msg.name}.Parent(), relistSessions: true}, now), true
	case execDoneMsg:
		return tea.Batch(m.ex.onExecDone(msg, now), m.notifyUnseenRuns(now)), true
	case pane.ListedMsg, pane.ProgressMsg, pane.DoneMsg, pane.PlanMsg:
		cmd, e := m.ops.onFilesMsg(msg, now)
		return tea.Batch(cmd, m.apply(e)), true
	case dialog.CheckMsg:
		return m.onDialogCheck(msg), true
	case shellDoneMsg:
		return m.ops.onShellDone(msg, now), true
	case plugin.DoneMsg:
		return m.onPluginDone(msg, now), true
	case interruptDoneMsg:
		return m.ex.onInterruptDone(msg, now), true
	case jobsListedMsg:
		var cmds []tea.Cmd
		for _, d := range m.jobs.onListed(msg, now) {
			cmds = append(cmds, m.carryWhenDone(d, now))
		}
		if m.mon != nil && m.jobs != nil && msg.gen == m.jobs.gen { // jobs: a signal of the activity verdict
			m.mon.poll.RecordJobs(msg.runtime, now, msg.recs, msg.err)
		}
		return tea.Batch(append(cmds, m.notifyJobs(msg.runtime, now))...), true
	case whenDoneClaimedMsg:
		return m.onWhenDoneClaimed(msg, now), true
	case notifiedMsg:
		m.onNotified(msg, now)
		return nil, true
	case guardCheckedMsg:
		return m.guardChecked(msg, now), true
	case guardKeptMsg:
		m.guardKept(msg, now)
		return nil, true
	case jobNotesMsg:
		m.jobs.onNotes(msg, now)
		return nil, true
	case logview.Msg:
		return m.onLogMsg(msg), true
	case kernelLogMsg:
		return m.onKernelLog(msg, now), true
	}
	return nil, m.sayAnswer(msg, now)
}

// sayAnswer shows the answers that only speak in the status line (a
// copy, the last spec's save); ok is false for other messages.
func (m *app) sayAnswer(msg tea.Msg, now time.Time) (ok bool) {
	switch msg := msg.(type) {
	case lastSpecSaveFailedMsg:
		m.scr.say(now, common.Say{Text: "could not remember the spec: " + common.ErrLine(msg.err), Err: true})
		m.scr.recordEvent(now, "state file", filepath.Join(m.opts.StateDir, ops.LastSpecFile), 0, msg.err)
	case clipboardMsg:
		if msg.err != nil {
			m.scr.say(now, common.Say{Text: "copy failed: " + common.ErrLine(msg.err), Err: true})
		} else {
			m.scr.say(now, common.Say{Text: copiedText(msg)})
		}
	default:
		return false
	}
	return true
}

// onDialogCheck hands a dialog's check answer to its dialog, which keeps
// it when it is for its input now and submits when enter was waiting for
// it (only while it is on top).
func (m *app) onDialogCheck(msg dialog.CheckMsg) tea.Cmd {
	d := msg.Owner()
	return m.apply(d.Checked(msg, m.scr.top() == d, m.cx))
}
