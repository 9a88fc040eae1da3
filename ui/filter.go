package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/ui/common"
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

func (f *filterOverlay) HandleKey(k tea.KeyMsg, _ *common.Context) common.Effect {
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

func (f *filterOverlay) Draw(c *common.Context, fr *frame.Frame) {
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

func (f *filterOverlay) Fits(*common.Context) bool { return true }

func (f *filterOverlay) Keys(*common.Context) []key.Binding {
	return []key.Binding{common.HelpKey("enter", "apply"), common.HelpKey("esc", "clear"), common.HelpKey("ctrl+c", "quit")}
}

func (f *filterOverlay) Name() string { return "filter" }
