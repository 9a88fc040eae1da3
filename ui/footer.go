package ui

import (
	"time"

	"github.com/charmbracelet/bubbles/key"

	"github.com/colabdash/colabdash/ui/pane/footer"
)

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
	}
	return footer.View(m.cx, w, s)
}
