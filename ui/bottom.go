package ui

import (
	"time"

	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/pane/details"
	"github.com/colabdash/colabdash/ui/widget/frame"
)

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
