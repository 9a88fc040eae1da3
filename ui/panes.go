package ui

// The app's side of its panes (ui/pane/…): it keeps the runtimes and
// sessions cursors in step, lays the sessions and details panes out, and
// hands the header and footer what they show beyond the Context.

import (
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/pane/details"
	"github.com/colabdash/colabdash/ui/pane/footer"
	"github.com/colabdash/colabdash/ui/pane/header"
	"github.com/colabdash/colabdash/ui/pane/runtimes"
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
	if m.rt.Sync(m.cx.Snap) {
		m.sess.Reset()
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
func (m *app) selectedSession() string {
	return m.sess.Selected(m.cx.Snap.Runtime(m.rt.Selected()), m.cx.Focus == common.PanelSessions)
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
	if !now.Before(m.cx.Status.Until) {
		m.cx.Status.Text = "" // expired since the last tick
	}
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
		s.Keys = m.cx.Keys.Dashboard.ShortHelp()
	}
	return footer.View(m.cx, w, s)
}

// headerView is the header pane (ui/pane/header): exactly two lines of
// at most w cells: who and where (profile, tier, account or endpoint,
// badges), then the connection and its freshness.
func (m *app) headerView(_ time.Time, w int) []string {
	return header.View(m.cx, w, header.State{Switching: m.ops.prof.switching,
		Endpoint: m.opts.Endpoint, Demo: m.opts.Demo, NextRefresh: m.calls.nextRefresh})
}
