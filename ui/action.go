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
func (m *Model) apply(e common.Effect) tea.Cmd {
	now := m.cx.Now()
	switch a := e.(type) {
	case nil:
	case common.Quit:
		m.cancel()
		return tea.Quit
	case common.Close:
		if o, ok := m.top().(*files.Overlay); ok {
			m.filesClosed = m.filesClosed.Note(o)
			if m.statusPane { // "select a file to download…" means nothing on the dashboard
				m.cx.Status.Text, m.statusPane = "", false
			}
		}
		m.pop()
		if a.Text != "" {
			m.setStatus(now, a.Text, a.Err)
		}
		return a.Cmd // the closing overlay's last call (the files filter's listing), if any
	case common.Open:
		m.push(a.Overlay)
	case common.Say:
		m.setStatus(now, a.Text, a.Err)
		m.statusPane = a.Pane
	case common.Move:
		m.move(a.N)
	case common.MoveSession:
		m.moveSession(a.N)
	case common.Focus:
		m.cx.Focus = 1 - m.cx.Focus
	case common.Details:
		m.showDetails = !m.showDetails
		m.relayout()
	case common.Sort:
		m.rt.NextSort()
		m.setStatus(now, "sorted by "+m.rt.SortKey().String(), false)
	case common.Refresh:
		return tea.Batch(m.refresh(now, true)...)
	case common.Back:
		m.back()
	case common.Filter:
		m.rt.SetFilter(a.Text)
	case common.ClearFilter:
		m.pop()
		m.rt.SetFilter("")
	case common.Answer:
		m.remove(a.Dialog)
		return m.apply(a.Then)
	case common.DeleteRuntime:
		return m.startDelete(a.Name, now)
	case common.AskDelete:
		if r := m.cx.Snap.Runtime(a.Name); r != nil && !r.Gone() {
			m.rt.Select(r.Name)
			m.askDelete(r, now)
		}
	case common.CloseSession:
		return m.startCloseSession(a.Name, now)
	case common.OpenSession:
		return m.startOpenSession(a.Runtime, a.ID, a.ForConsole, now)
	case common.StopRun:
		return m.stopRun(a.Session, now)
	case common.CreateRuntime:
		return m.submitCreate(a.Spec, a.Version, a.ID, now)
	case common.ResendCreate:
		return m.resendCreate(a.Create.(*createOp), now)
	case common.SwitchProfile:
		m.pop()
		if a.Name == m.cx.Profile && m.prof.switching == "" {
			return nil
		}
		return m.switchProfile(a.Name)
	case common.RunCode:
		return m.runInConsole(a.Code, now)
	case common.StopCode:
		return m.interruptOrStop(now)
	case common.Run:
		return a.Cmd
	case common.Help:
		m.push(help.New(a.First))
	case common.Do:
		return m.applyCommand(a.Op, now)
	}
	return nil
}

// back is esc on the dashboard: one thing per press, the most specific
// first: the filter, the expanded details, then the status message.
func (m *Model) back() {
	switch {
	case m.rt.Filter() != "":
		m.rt.SetFilter("")
	case m.showDetails:
		m.showDetails = false
		m.relayout()
	default:
		m.cx.Status.Text = ""
	}
}

// globalKey maps a key no overlay or pane took to its effect.
func (m *Model) globalKey(k tea.KeyMsg) common.Effect {
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
