package events

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/termtext"
	"github.com/colabdash/colabdash/ui/widget/frame"
	"github.com/colabdash/colabdash/ui/widget/lineedit"
)

// FilterLine is the event log's filter line (/ in the log), drawn over
// the status line as the dashboard's and the files pane's are: the log
// beneath narrows as it is typed; enter keeps the filter, esc clears it,
// ctrl+c quits. Reopened on a filter, the old text is shown selected:
// typing replaces it. It implements common.Overlay.
type FilterLine struct {
	log *Overlay
	in  lineedit.Editor
}

// lineEditor is the filter line's editor holding f, selected when set.
func lineEditor(f string) lineedit.Editor {
	in := lineedit.Editor{Limit: 200}
	in.Set(f)
	in.Selected = f != ""
	return in
}

// HandleKey edits the filter (the log follows); enter closes the line,
// keeping it; esc closes it, clearing it (and says so); ctrl+c quits.
func (f *FilterLine) HandleKey(k tea.KeyMsg, _ *common.Context) common.Effect {
	switch k.Type {
	case tea.KeyCtrlC:
		return common.Quit{}
	case tea.KeyEsc:
		f.log.SetFilter("")
		return common.Close{Text: "event log filter cleared"}
	case tea.KeyEnter:
		if !k.Alt {
			return common.Close{}
		}
	}
	if f.in.Handle(k) {
		f.log.SetFilter(f.in.Value())
	}
	return nil
}

// Draw paints the line over the status line (the log is drawn beneath).
func (f *FilterLine) Draw(c *common.Context, fr *frame.Frame) {
	const hint = "  enter apply · esc clear"
	if f.in.Selected {
		fr.SetStatus("/" + c.Styles.Selected.Render(termtext.Line(f.in.Value())) + lineedit.Cursor +
			c.Styles.Dim.Render("  type to replace · backspace edits"+hint))
		return
	}
	line := f.in.View("/", "", max(fr.W-len(hint), 10), 1)[0]
	fr.SetStatus(line + c.Styles.Dim.Render(hint))
}

// Fits: the line fits every screen the dashboard lays out.
func (f *FilterLine) Fits(*common.Context) bool { return true }

// Keys are the footer's keys while the line is open.
func (f *FilterLine) Keys(*common.Context) []key.Binding {
	return []key.Binding{common.HelpKey("enter", "apply"), common.HelpKey("esc", "clear"), common.HelpKey("ctrl+c", "quit")}
}

// Name is "event log filter".
func (f *FilterLine) Name() string { return "event log filter" }
