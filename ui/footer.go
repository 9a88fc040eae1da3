package ui

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/termtext"
)

// spinnerFrames advance once per tick (no second timer).
var spinnerFrames = spinner.Dot.Frames

// footerView is the footer pane: exactly two lines of at most w cells,
// the status line and the key help of what is on top (the dashboard's, or
// the top overlay's own keys).
func (m *Model) footerView(now time.Time, w int) []string {
	var status string
	if !now.Before(m.statusUntil) {
		m.status = "" // expired since the last tick
	}
	switch {
	case m.inFlight() > 0:
		status = spinnerFrames[m.frame%len(spinnerFrames)] + " " + m.inFlightText()
		if m.status != "" {
			status += " · " + m.statusText(w-ansi.StringWidth(status)-3)
		}
	case m.status != "":
		status = m.statusText(w)
	case m.runningHidden() != nil:
		status = spinnerFrames[m.frame%len(spinnerFrames)] + " code running " +
			state.FormatCountdown(now.Sub(m.runningHidden().started)) + " (" + m.keys.RunCode.Help().Key + " shows it)"
	case m.filter != "":
		status = m.st.Dim.Render("filter: " + termtext.Line(m.filter) + " (esc clears)")
	}
	h := *m.help // a copy: its width is this frame's
	h.Width = w
	keys := m.keys.ShortHelp()
	if t := m.top(); t != nil {
		keys = t.keys(m) // under a layer the dashboard's keys do nothing
	}
	return []string{status, h.ShortHelpView(keys)}
}

// statusText is the status message in room cells. An error that does not
// fit is cut with a hint that the event log (L) has it in full.
func (m *Model) statusText(room int) string {
	s := termtext.Line(m.status)
	if !m.statusErr {
		return s
	}
	if ansi.StringWidth(s) > room {
		hint := " (" + m.keys.Events.Help().Key + ": in full)"
		s = ansi.Truncate(s, max(room-ansi.StringWidth(hint), 8), "…") + hint
	}
	return m.st.ErrText.Render(s)
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

// helpKey is a footer entry that says keys do what (keys as they read,
// e.g. "esc" or "L/esc").
func helpKey(keys, what string) key.Binding {
	return key.NewBinding(key.WithKeys(keys), key.WithHelp(keys, what))
}

// keysOf is how bindings read together in the footer, each by its first
// key: "L/esc", "↑/↓".
func keysOf(bs ...key.Binding) string {
	var ks []string
	for _, b := range bs {
		if k, _, _ := strings.Cut(b.Help().Key, "/"); k != "" {
			ks = append(ks, k)
		}
	}
	return strings.Join(ks, "/")
}

// keyName is how a key string reads in a sentence: "n", "space" for " ".
func keyName(k string) string {
	if strings.TrimPrefix(k, "alt+") == " " {
		return strings.TrimSuffix(k, " ") + "space"
	}
	return k
}
