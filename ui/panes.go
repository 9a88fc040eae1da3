package ui

// The app's side of its panes (ui/pane/…): it keeps the runtimes and
// sessions cursors in step, lays the sessions and details panes out, and
// hands the header and footer what they show beyond the Context.

import (
	"errors"
	"slices"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/pane/details"
	"github.com/colabdash/colabdash/ui/pane/footer"
	"github.com/colabdash/colabdash/ui/pane/header"
	"github.com/colabdash/colabdash/ui/pane/runtimes"
	"github.com/colabdash/colabdash/ui/pane/sessions"
	"github.com/colabdash/colabdash/ui/poll"
	"github.com/colabdash/colabdash/ui/widget/frame"
)

// move moves the runtimes cursor by delta rows; another runtime selected
// starts its sessions cursor at the top.
func (m *app) move(delta int) {
	if m.rt.Move(delta, m.runtimeRows()) {
		m.sess.Reset()
	}
}

// syncRows rebuilds the table's rows when the data, sort or filter
// changed (ui/pane/runtimes), and mirrors the selection into the Context.
func (m *app) syncRows() {
	if m.rt.Sync(m.cx) {
		m.sess.Reset()
	}
	if newLayout(m.scr.width, m.scr.height, m.tableRows(), m.scr.showDetails, m.mon != nil) != m.cx.Layout {
		m.relayout() // the table grew or shrank: it takes the rows it has
	}
	m.cx.Selected = m.rt.Selected()
}

// runtimeRows is how many runtime rows the table shows: its height less
// the create-in-progress rows above them, which leave at least one.
func (m *app) runtimeRows() int {
	return runtimes.Visible(m.cx.Layout.TableRows, len(m.cr.creates))
}

// scroll keeps the cursor inside the visible window of the table's
// runtime rows.
func (m *app) scroll() { m.rt.Scroll(m.runtimeRows()) }

// moveSession moves the sessions cursor; the session under it becomes the
// one run code uses on its runtime.
func (m *app) moveSession(delta int) {
	if s := m.sess.Move(delta, m.cx.Snap.Runtime(m.rt.Selected())); s != "" {
		m.ex.pickSession(m.rt.Selected(), s, m.cx.Now())
	}
}

// selectedSession is the session under the sessions-panel cursor, when
// that panel has the focus.
func (m *app) selectedSession() string { return selectedSession(m.cx, m.rt, m.sess) }

// selectedSession is the session under the sessions-panel cursor sp, on
// the runtime selected in rt, when that panel has the focus.
func selectedSession(cx *common.Context, rt *runtimes.Pane, sp *sessions.Pane) string {
	return sp.Selected(cx.Snap.Runtime(rt.Selected()), cx.Focus == common.PanelSessions)
}

// bottomView draws the sessions and details panes in l.BottomRows+1
// lines. Wide terminals (l.Split) put them side by side; narrower ones
// stack them, sessions above details. The sessions pane (which tab focuses
// and x acts on) keeps its share at every size; expanded details (enter)
// took their room from the table (stacked) or the sessions pane's width
// (split) when the layout was computed.
func (m *app) bottomView(now time.Time, l common.Layout) []string {
	r := m.cx.Snap.Runtime(m.rt.Selected())
	n := l.BottomRows + 1
	if !l.Split {
		lines := m.sess.View(m.cx, r, l.W, l.SessLines)
		return append(lines, details.View(m.cx, r, now, l.W, n-l.SessLines)...)
	}
	sw := l.SessWidth
	left := m.sess.View(m.cx, r, sw, n)
	right := details.View(m.cx, r, now, l.W-sw-3, n)
	sep := m.cx.Styles.Dim.Render(" │ ")
	lines := make([]string, 0, n)
	for i := range left {
		lines = append(lines, frame.PadTo(left[i], sw)+sep+right[i])
	}
	return lines
}

// footerView is the footer pane (ui/pane/footer): exactly two lines of
// at most w cells, the status line and the key help of what is on top
// (the dashboard's, or the top overlay's own keys).
func (m *app) footerView(now time.Time, w int) []string {
	m.scr.expireStatus(now) // expired since the last tick
	s := footer.State{Calls: m.calls.inFlight(), Spinner: m.life.frame, Filter: m.rt.Filter()}
	if s.Calls == 1 {
		for k := range m.calls.pending {
			s.Call = k.kind.String()
		}
	}
	if r := m.ex.runningHidden(); r != nil {
		s.Running, s.RunningSince = true, r.started
	}
	if t := m.scr.top(); t != nil {
		// Under a layer the dashboard's keys do nothing: never nil.
		s.Keys = append([]key.Binding{}, t.Keys(m.cx)...)
	} else {
		s.Keys = append(m.cx.Keys.Dashboard.ShortHelp(), m.cx.Keys.PluginBindings(m.pluginScope())...)
		s.WrapStatus = true
	}
	return footer.View(m.cx, w, s)
}

// headerView is the header pane (ui/pane/header): exactly two lines of
// at most w cells: who and where (profile, tier, account or endpoint,
// badges), then the connection and its freshness.
func (m *app) headerView(_ time.Time, w int) []string {
	return header.View(m.cx, w, header.State{Switching: m.prof.switching,
		Endpoint: m.opts.Endpoint, Demo: m.opts.Demo, NextRefresh: m.calls.nextRefresh})
}

// The monitor (ui/poll): its polls start on the tick, their
// answers are folded here, and a proxy 404 renews the token through the
// dashboard's one renewal path (get_runtime, callRenew) before the poll
// is retried once. No other call is added.

// due starts the monitor's polls due at now: the selected runtime
// and the other runtimes on screen (visible rows of the table), those
// with a connectionInfo URL.
func (m *monitorOps) due(now time.Time, visible int) []tea.Cmd {
	if m == nil {
		return nil
	}
	snap := m.cx.Snap
	reach := m.reachable
	if v := snap.Version(); v != m.version {
		m.version = v
		m.poll.Retain(reach)
	}
	// Not while a runtime's token is being renewed: the poll would carry
	// the token about to be replaced.
	renewing := m.cx.Activity.Renewals.InFlight
	onScr := m.rt.OnScreen(visible, m.onScr)
	m.onScr = slices.DeleteFunc(onScr, func(name string) bool { return !reach(name) || renewing(name) })
	sel := m.rt.Selected()
	if !reach(sel) || renewing(sel) {
		sel = ""
	}
	seen := func(name string) { // a runtime never used is quiet since then
		if r := snap.Runtime(name); r != nil {
			m.poll.Store().Seen(name, r.FirstSeen)
		}
	}
	for _, name := range m.onScr {
		seen(name)
	}
	seen(sel)
	return m.poll.Due(m.link.life.ctx, now, sel, m.onScr, m.connInfo)
}

// sessionClosed tells the monitor that this dashboard closed a session of
// runtime name at now: a kernel that leaves the runtime's list about then
// was closed with it, not dead.
func (m *monitorOps) sessionClosed(name string, now time.Time) {
	if m != nil {
		m.poll.Store().SessionClosed(name, now)
	}
}

// sessionsListed tells the monitor when a list of runtime name's Colab
// sessions (after) lacks one of those it replaces (before): another client
// closed it, and a kernel that leaves the runtime's list about then was
// closed with it, not dead.
func (m *monitorOps) sessionsListed(name string, before, after []api.Session, now time.Time) {
	if m == nil {
		return
	}
	for _, s := range before {
		if !slices.ContainsFunc(after, func(a api.Session) bool { return a.Name == s.Name }) {
			m.poll.Store().SessionClosed(name, now)
			return
		}
	}
}

// reachable reports whether runtime name's proxy can be polled: listed,
// not gone, with a connectionInfo URL.
func (m *monitorOps) reachable(name string) bool {
	r := m.cx.Snap.Runtime(name)
	return r != nil && !r.Gone() && r.ConnectionInfo != nil && r.ConnectionInfo.URL != ""
}

// connInfo is runtime name's connectionInfo now (ok false: not
// reachable).
func (m *monitorOps) connInfo(name string) (api.ConnectionInfo, bool) {
	if !m.reachable(name) {
		return api.ConnectionInfo{}, false
	}
	return *m.cx.Snap.Runtime(name).ConnectionInfo, true
}

// onResult folds a poll's answer and returns the runtime whose token the
// proxy refused, to be renewed (app.onPoll); "" when there is none, when
// it was renewed while the poll ran (the next poll uses the new one), or
// auto-renew is off (the poll then ends failed).
func (m *monitorOps) onResult(msg poll.ResultMsg) (renew string) {
	if m == nil {
		return ""
	}
	now := m.cx.Now()
	name := m.poll.Fold(msg, now, m.connInfo)
	m.rt.FiguresChanged()
	switch {
	case name == "":
		return ""
	case m.cx.Activity.Renewals.InFlight(name):
		return "" // its answer ends the poll (renewed)
	case m.opts.NoAutoRenew:
		m.poll.Renewed(name, now, errors.New("auto-renew is off"))
		return ""
	}
	return name
}

// renewed hands the end of runtime name's renewal (err its
// failure) to the monitor: a poll waiting for it ends, and the next one
// uses the token now listed; or it ends failed.
func (m *monitorOps) renewed(name string, err error) {
	if m == nil {
		return
	}
	if _, ok := m.connInfo(name); !ok && err == nil {
		err = errors.New("the runtime is gone")
	}
	m.poll.Renewed(name, m.cx.Now(), err)
}
