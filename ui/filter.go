package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/ui/termtext"
)

// filterOverlay is the filter line (/), drawn over the status line. Every
// key edits the filter (lineEditor) and the table follows as it is typed;
// enter keeps it, esc clears it, ctrl+c quits. Reopened on a filter, the
// old text is shown selected: typing replaces it, backspace edits it.
type filterOverlay struct {
	in lineEditor
}

func newFilterOverlay(filter string) *filterOverlay {
	f := &filterOverlay{in: lineEditor{limit: 200}}
	f.in.set(filter)
	f.in.selected = filter != ""
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
	if f.in.handle(k) {
		return action{kind: actFilter, text: f.in.value()}
	}
	return action{}
}

func (f *filterOverlay) draw(c *Model, fr *frame) {
	if f.in.selected {
		// The old filter is shown selected: typing replaces it.
		fr.setStatus("/" + c.st.Selected.Render(termtext.Line(f.in.value())) + cursor +
			c.st.Dim.Render("  type to replace · backspace edits · enter apply · esc clear"))
		return
	}
	hint := c.st.Dim.Render("  enter apply · esc clear")
	line := f.in.view("/", "", max(fr.w-len("  enter apply · esc clear"), 10), 1)[0]
	fr.setStatus(line + hint)
}

func (f *filterOverlay) fits(*Model) bool { return true }

func (f *filterOverlay) keys(*Model) []key.Binding {
	return []key.Binding{helpKey("enter", "apply"), helpKey("esc", "clear"), helpKey("ctrl+c", "quit")}
}

func (f *filterOverlay) name() string { return "filter" }
