package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/ui/termtext"
	"github.com/colabdash/colabdash/ui/widget/frame"
	"github.com/colabdash/colabdash/ui/widget/lineedit"
)

// filterOverlay is the filter line (/), drawn over the status line. Every
// key edits the filter (lineEditor) and the table follows as it is typed;
// enter keeps it, esc clears it, ctrl+c quits. Reopened on a filter, the
// old text is shown selected: typing replaces it, backspace edits it.
type filterOverlay struct {
	in lineedit.Editor
}

func newFilterOverlay(filter string) *filterOverlay {
	f := &filterOverlay{in: lineedit.Editor{Limit: 200}}
	f.in.Set(filter)
	f.in.Selected = filter != ""
	return f
}

func (f *filterOverlay) handleKey(k tea.KeyMsg, _ *Model) action {
	switch k.Type {
	case tea.KeyCtrlC:
		return action{kind: actQuit}
	case tea.KeyEsc:
		return action{kind: actFilterClear}
	case tea.KeyEnter:
		if !k.Alt {
			return action{kind: actClose}
		}
	}
	if f.in.Handle(k) {
		return action{kind: actFilter, text: f.in.Value()}
	}
	return action{}
}

func (f *filterOverlay) draw(c *Model, fr *frame.Frame) {
	if f.in.Selected {
		// The old filter is shown selected: typing replaces it.
		fr.SetStatus("/" + c.st.Selected.Render(termtext.Line(f.in.Value())) + lineedit.Cursor +
			c.st.Dim.Render("  type to replace · backspace edits · enter apply · esc clear"))
		return
	}
	hint := c.st.Dim.Render("  enter apply · esc clear")
	line := f.in.View("/", "", max(fr.W-len("  enter apply · esc clear"), 10), 1)[0]
	fr.SetStatus(line + hint)
}

func (f *filterOverlay) fits(*Model) bool { return true }

func (f *filterOverlay) keys(*Model) []key.Binding {
	return []key.Binding{helpKey("enter", "apply"), helpKey("esc", "clear"), helpKey("ctrl+c", "quit")}
}

func (f *filterOverlay) name() string { return "filter" }
