package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// actionKind is what a pane, an overlay or a global key asks for.
type actionKind int

const (
	actNone         actionKind = iota
	actQuit                    // cancel every call and quit
	actClose                   // close the overlay on top (and show text, if any, as actStatus does; then run cmd, if any)
	actOpen                    // open overlay ov on top
	actStatus                  // show text (err: as an error) in the status line
	actMove                    // move the runtimes cursor by n
	actMoveSession             // move the sessions cursor by n
	actFocus                   // focus the other panel
	actDetails                 // expand or collapse the details
	actSort                    // next sort key
	actRefresh                 // refresh now
	actBack                    // esc on the dashboard: the most specific thing first
	actFilter                  // the filter is now text
	actFilterClear             // close the filter line and clear the filter
	actDialog                  // dialog dlg was answered: ok, or cancelled (esc: by esc)
	actProfile                 // switch to profile text
	actRun                     // run the console's code text
	actStop                    // ask whether to stop the code running in the console
	actHelp                    // open the help
	actEvents                  // open the event log
	actProfiles                // open the profile picker
	actOpenFilter              // open the filter line
	actNewRuntime              // open the create picker
	actQuickCreate             // ask to re-create the last spec
	actDelete                  // ask to delete the selected runtime
	actOpenSession             // ask for a session id to open
	actCloseSession            // ask to close the selected session
	actRenew                   // renew the selected runtime's token now
	actCancelCreate            // cancel a create waiting to retry
	actRunCode                 // open the run-code console
	actCopyURL                 // copy the selected runtime's URL
	actCopyToken               // copy its proxy token (once revealed)
	actReveal                  // reveal or hide its proxy token
	actFiles                   // open the files pane of the selected runtime
	actCmd                     // run cmd (an overlay's own call, e.g. the files pane's)
	actShell                   // suspend the dashboard for a shell on the selected runtime
)

// action is a request from a pane, an overlay or a global key. Only the
// fields its kind names are set.
type action struct {
	kind actionKind
	n    int
	text string
	err  bool
	ok   bool
	esc  bool
	ov   overlay
	dlg  *dialog
	cmd  tea.Cmd
	// pane marks an actStatus about a key of the files pane: it is
	// cleared when the pane closes.
	pane bool
}

// apply carries out a: the one place where actions become state changes
// and commands.
func (m *Model) apply(a action) tea.Cmd {
	now := m.now()
	switch a.kind {
	case actNone:
	case actQuit:
		m.cancel()
		return tea.Quit
	case actClose:
		if o, ok := m.top().(*filesOverlay); ok {
			m.closingFiles(o)
			if m.statusPane { // "select a file to download…" means nothing on the dashboard
				m.status, m.statusPane = "", false
			}
		}
		m.pop()
		if a.text != "" {
			m.setStatus(now, a.text, a.err)
		}
		return a.cmd // the closing overlay's last call (the files filter's listing), if any
	case actOpen:
		m.push(a.ov)
	case actStatus:
		m.setStatus(now, a.text, a.err)
		m.statusPane = a.pane
	case actMove:
		m.move(a.n)
	case actMoveSession:
		m.moveSession(a.n)
	case actFocus:
		m.focus = 1 - m.focus
	case actDetails:
		m.showDetails = !m.showDetails
		m.relayout()
	case actSort:
		m.sortKey = m.sortKey.Next()
		m.rowsDirty = true
		m.setStatus(now, "sorted by "+m.sortKey.String(), false)
	case actRefresh:
		return tea.Batch(m.refresh(now, true)...)
	case actBack:
		m.back()
	case actFilter:
		m.filter, m.rowsDirty = a.text, true
	case actFilterClear:
		m.pop()
		m.filter, m.rowsDirty = "", true
	case actDialog:
		return m.onDialogAnswer(a.dlg, a.ok, a.esc, now)
	case actProfile:
		m.pop()
		if a.text == m.opts.Profile && m.prof.switching == "" {
			return nil
		}
		return m.switchProfile(a.text)
	case actRun:
		return m.runInConsole(a.text, now)
	case actStop:
		return m.interruptOrStop(now)
	case actFiles:
		return m.openFiles(now)
	case actShell:
		return m.openShell(now)
	case actCmd:
		return a.cmd
	case actHelp:
		m.push(&helpOverlay{first: a.text})
	case actEvents:
		m.push(&eventsOverlay{})
	case actProfiles:
		m.openProfilePicker()
	case actOpenFilter:
		m.push(newFilterOverlay(m.filter))
	default:
		return m.applyCommand(a, now)
	}
	return nil
}

// back is esc on the dashboard: one thing per press, the most specific
// first: the filter, the expanded details, then the status message.
func (m *Model) back() {
	switch {
	case m.filter != "":
		m.filter, m.rowsDirty = "", true
	case m.showDetails:
		m.showDetails = false
		m.relayout()
	default:
		m.status = ""
	}
}

// globalKey maps a key no overlay or pane took to its action.
func (m *Model) globalKey(k tea.KeyMsg) action {
	keys := m.keys
	for _, g := range []struct {
		b    key.Binding
		kind actionKind
	}{
		{keys.Profile, actProfiles}, {keys.Events, actEvents}, {keys.Quit, actQuit}, {keys.Help, actHelp},
		{keys.Back, actBack}, {keys.NextPanel, actFocus}, {keys.PrevPanel, actFocus}, {keys.Details, actDetails},
		{keys.Filter, actOpenFilter}, {keys.Sort, actSort}, {keys.Refresh, actRefresh},
		{keys.NewRuntime, actNewRuntime}, {keys.QuickCreate, actQuickCreate}, {keys.DeleteRuntime, actDelete},
		{keys.OpenSession, actOpenSession}, {keys.CloseSession, actCloseSession}, {keys.RenewToken, actRenew},
		{keys.Cancel, actCancelCreate}, {keys.RunCode, actRunCode}, {keys.CopyURL, actCopyURL},
		{keys.CopyToken, actCopyToken}, {keys.RevealToken, actReveal}, {keys.Files, actFiles},
		{keys.Shell, actShell},
	} {
		if key.Matches(k, g.b) {
			return action{kind: g.kind}
		}
	}
	if b, ok := keys.DisabledMatch(k); ok {
		return action{kind: actStatus, text: "read-only mode: " + b.Help().Key + " (" + b.Help().Desc + ") is disabled", err: true}
	}
	return action{}
}
