package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/files"
	"github.com/colabdash/colabdash/ui/overlay/help"
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
				m.cx.Status.Text, m.scr.statusPane = "", false
			}
		}
		m.scr.pop()
		if a.Text != "" {
			m.scr.setStatus(now, a.Text, a.Err)
		}
		return a.Cmd // the closing overlay's last call (the files filter's listing), if any
	case common.Open:
		m.scr.push(a.Overlay)
	case common.Say:
		m.scr.setStatus(now, a.Text, a.Err)
		m.scr.statusPane = a.Pane
	case common.Move:
		m.move(a.N)
	case common.MoveSession:
		m.moveSession(a.N)
	case common.Focus:
		m.cx.Focus = 1 - m.cx.Focus
	case common.Details:
		m.scr.showDetails = !m.scr.showDetails
		m.relayout()
	case common.Sort:
		m.rt.NextSort()
		m.scr.setStatus(now, "sorted by "+m.rt.SortKey().String(), false)
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
		return m.apply(a.Then)
	case common.DeleteRuntime:
		return m.ops.startDelete(a.Name, now)
	case common.AskDelete:
		if r := m.cx.Snap.Runtime(a.Name); r != nil && !r.Gone() {
			m.rt.Select(r.Name)
			m.ops.askDelete(r, now)
		}
	case common.CloseSession:
		return m.ops.startCloseSession(a.Name, now)
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
		m.cx.Status.Text = ""
	}
}

// globalKey maps a key no overlay or pane took to its effect.
func (m *app) globalKey(k tea.KeyMsg) common.Effect {
	keys := m.cx.Keys
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
