package ui

import (
	"strconv"
	"time"

	"github.com/charmbracelet/bubbles/spinner"
	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/termtext"
)

// spinnerFrames advance once per tick (no second timer).
var spinnerFrames = spinner.Dot.Frames

// footerView is the footer pane: exactly two lines of at most w cells,
// the status line and the key help of what is on top (the dashboard's, or
// the top overlay's own keys).
func (m *Model) footerView(now time.Time, w int) []string {
	var status string
	if !now.Before(m.cx.Status.Until) {
		m.cx.Status.Text = "" // expired since the last tick
	}
	switch {
	case m.inFlight() > 0:
		status = spinnerFrames[m.frame%len(spinnerFrames)] + " " + m.inFlightText()
		if m.cx.Status.Text != "" {
			status += " · " + common.StatusText(m.cx, w-ansi.StringWidth(status)-3)
		}
	case m.cx.Status.Text != "":
		status = common.StatusText(m.cx, w)
	case m.runningHidden() != nil:
		status = spinnerFrames[m.frame%len(spinnerFrames)] + " code running " +
			state.FormatCountdown(now.Sub(m.runningHidden().started)) + " (" + m.cx.Keys.RunCode.Help().Key + " shows it)"
	case m.rt.Filter() != "":
		status = m.cx.Styles.Dim.Render("filter: " + termtext.Line(m.rt.Filter()) + " (esc clears)")
	}
	h := *m.help // a copy: its width is this frame's
	h.Width = w
	keys := m.cx.Keys.ShortHelp()
	if t := m.top(); t != nil {
		keys = t.Keys(m.cx) // under a layer the dashboard's keys do nothing
	}
	return []string{status, h.ShortHelpView(keys)}
}

func (m *Model) inFlightText() string {
	n := len(m.pending)
	if n == 1 {
		for k := range m.pending {
			return "calling " + k.kind.String() + "…"
		}
	}
	return strconv.Itoa(n) + " calls in flight…"
}
