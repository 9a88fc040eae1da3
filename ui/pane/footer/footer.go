// Package footer is the dashboard's footer pane: the status line (calls
// in flight, the status message, code running in the hidden run-code
// console, the filter) and the key help of what is on top.
package footer

import (
	"strconv"
	"time"

	bhelp "github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/termtext"
)

// SpinnerFrames are the spinner's frames; State.Spinner picks one (it
// advances once per tick: no second timer).
var SpinnerFrames = spinner.Dot.Frames

// State is what the footer shows of the dashboard beyond the Context.
type State struct {
	// Calls is the number of calls in flight; Call names the one call
	// (its tool, "list_runtimes") when Calls is 1.
	Calls int
	Call  string
	// Spinner is the spinner's frame number (any int; taken modulo the
	// frames).
	Spinner int
	// Running is set while code runs in the run-code console that is not
	// open; RunningSince is when that run started.
	Running      bool
	RunningSince time.Time
	// WrapStatus lets an error status too long for its line take the
	// key help's line too while it shows: set over the dashboard itself,
	// never under a layer, whose keys (a dialog's y) must stay on screen.
	WrapStatus bool
	// Filter is the runtimes filter in effect ("" when none).
	Filter string
	// Keys are the key help of what has the keys: the overlay on top (its
	// Keys), or the dashboard's own (keymap.Dashboard.ShortHelp: the app
	// owns those bindings).
	Keys []key.Binding
}

// View is the footer: exactly two lines of at most w cells, the status
// line and the key help. The status line shows, by priority: the calls
// in flight with the spinner (and the status message after them, cut to
// what is left), the status message (c.Status while shown at c.Now()),
// the code running hidden with its elapsed time, or the filter; else it
// is empty. A status error too long for the line takes the key help's
// line too while it shows (s.WrapStatus), and is cut there with a hint that the event
// log has it whole (common.StatusLines).
func View(c *common.Context, w int, s State) []string {
	now := c.Now()
	shown := c.Status.Shown(now)
	var status string
	switch {
	case s.Calls > 0:
		status = spin(s) + " " + inFlightText(s)
		if shown {
			status += " · " + common.StatusText(c, w-ansi.StringWidth(status)-3)
		}
	case shown:
		status = common.StatusText(c, w)
	case s.Running:
		status = spin(s) + " code running " +
			state.FormatCountdown(now.Sub(s.RunningSince)) + " (" + c.Keys.Word(keymap.ActionRunCode) + " shows it)"
	case s.Filter != "":
		status = c.Styles.Dim.Render("filter: " + termtext.Line(s.Filter) + " (esc clears)")
	}
	h := bhelp.New()
	h.Styles, h.Width = c.Styles.Help, w
	if s.Calls == 0 && shown && s.WrapStatus {
		if lines := common.StatusLines(c, w); len(lines) == 2 {
			// An error too long for its line (a credentials fix and
			// its command) takes the key help's line while it shows.
			return lines
		}
	}
	// ShortHelpView keeps a binding that does not fit when its "…" would
	// not fit either (bubbles v1): the line is cut to w here as well.
	return []string{ansi.Truncate(status, w, "…"), ansi.Truncate(h.ShortHelpView(s.Keys), w, "…")}
}

func spin(s State) string {
	return SpinnerFrames[((s.Spinner%len(SpinnerFrames))+len(SpinnerFrames))%len(SpinnerFrames)]
}

// inFlightText is "calling list_runtimes…" for one call, "3 calls in
// flight…" for more.
func inFlightText(s State) string {
	if s.Calls == 1 {
		return "calling " + s.Call + "…"
	}
	return strconv.Itoa(s.Calls) + " calls in flight…"
}
