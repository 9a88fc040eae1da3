// Package filter is the runtimes filter line overlay (/), drawn over the
// status line: the table follows the filter as it is typed.
package filter

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/termtext"
	"github.com/colabdash/colabdash/ui/widget/frame"
	"github.com/colabdash/colabdash/ui/widget/lineedit"
)

// Limit is the longest filter, in characters.
const Limit = 200

// Overlay is the filter line (/), drawn over the status line. Every key
// edits the filter (lineedit.Editor) and the table follows as it is typed
// (common.Filter); enter keeps it, esc clears it, ctrl+c quits. Reopened
// on a filter, the old text is shown selected: typing replaces it,
// backspace edits it. It implements common.Overlay.
type Overlay struct {
	in lineedit.Editor
}

// New returns the filter line on filter, the filter in effect ("" when
// none), shown selected when there is one.
func New(filter string) *Overlay {
	f := &Overlay{in: lineedit.Editor{Limit: Limit}}
	f.in.Set(filter)
	f.in.Selected = filter != ""
	return f
}

// Value is the filter as typed so far.
func (f *Overlay) Value() string { return f.in.Value() }

// HandleKey answers ctrl+c with common.Quit, esc with common.ClearFilter,
// enter with common.Close (the filter stays), and a key that edits the
// text with common.Filter{Text}; any other key does nothing (nil).
func (f *Overlay) HandleKey(k tea.KeyMsg, _ *common.Context) common.Effect {
	switch k.Type {
	case tea.KeyCtrlC:
		return common.Quit{}
	case tea.KeyEsc:
		return common.ClearFilter{}
	case tea.KeyEnter:
		if !k.Alt {
			return common.Close{}
		}
	}
	if f.in.Handle(k) {
		return common.Filter{Text: f.in.Value()}
	}
	return nil
}

// Draw replaces the frame's status line with "/", the filter and the
// cursor, and a hint of the keys.
func (f *Overlay) Draw(c *common.Context, fr *frame.Frame) {
	if f.in.Selected {
		// The old filter is shown selected: typing replaces it.
		fr.SetStatus("/" + c.Styles.Selected.Render(termtext.Line(f.in.Value())) + lineedit.Cursor +
			c.Styles.Dim.Render("  type to replace · backspace edits · enter apply · esc clear"))
		return
	}
	hint := c.Styles.Dim.Render("  enter apply · esc clear")
	line := f.in.View("/", "", max(fr.W-len("  enter apply · esc clear"), 10), 1)[0]
	fr.SetStatus(line + hint)
}

// Fits is always true: the line scrolls within any width.
func (f *Overlay) Fits(*common.Context) bool { return true }

// Keys are the footer's words while the filter line is open.
func (f *Overlay) Keys(*common.Context) []key.Binding {
	return []key.Binding{common.HelpKey("enter", "apply"), common.HelpKey("esc", "clear"), common.HelpKey("ctrl+c", "quit")}
}

// Name is "filter".
func (f *Overlay) Name() string { return "filter" }
