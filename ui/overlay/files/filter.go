package files

import (
	"strconv"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/files/pane"
	"github.com/colabdash/colabdash/ui/widget/frame"
	"github.com/colabdash/colabdash/ui/widget/lineedit"
)

// FilterOverlay is the files pane's filter line (/ in the pane), drawn
// over the status line: the entries shown narrow as it is typed (among
// those the pane kept); enter keeps it, and on a directory larger than
// the pane keeps (pane.MaxShown) lists it again keeping every entry that
// matches; esc clears it; ctrl+c quits. Its keys are the line editor's,
// fixed like the dashboard's filter line.
type FilterOverlay struct {
	in lineedit.Editor
	p  *pane.Pane
}

// NewFilter returns the filter line of p, holding p's filter (selected,
// so typing replaces it).
func NewFilter(p *pane.Pane) *FilterOverlay {
	f := &FilterOverlay{in: lineedit.Editor{Limit: 200}, p: p}
	f.in.Set(p.Filter())
	f.in.Selected = p.Filter() != ""
	return f
}

// HandleKey edits the filter; enter and esc close the line (esc clearing
// the filter), with the listing the filter needs, if any, to run.
func (f *FilterOverlay) HandleKey(k tea.KeyMsg, _ *common.Context) common.Effect {
	switch k.Type {
	case tea.KeyCtrlC:
		return common.Quit{}
	case tea.KeyEsc:
		f.p.SetFilter("")
		return common.Close{Cmd: f.p.ApplyFilter()}
	case tea.KeyEnter:
		if !k.Alt {
			return common.Close{Cmd: f.p.ApplyFilter()}
		}
	}
	if f.in.Handle(k) {
		f.p.SetFilter(f.in.Value())
	}
	return nil
}

// Draw paints the line over the status line (the pane is drawn beneath:
// the stack draws every overlay).
func (f *FilterOverlay) Draw(c *common.Context, fr *frame.Frame) {
	hint := "  enter apply · esc clear"
	if total, _ := f.p.Counts(); total > pane.MaxShown {
		hint = "  enter: search all " + strconv.Itoa(total) + " · esc clear"
	}
	line := f.in.View("/", "", max(fr.W-len(hint), 10), 1)[0]
	fr.SetStatus(line + c.Styles.Dim.Render(hint))
}

// Fits: the line fits every screen the dashboard lays out.
func (f *FilterOverlay) Fits(*common.Context) bool { return true }

// Keys are the footer's keys while the line is open.
func (f *FilterOverlay) Keys(*common.Context) []key.Binding {
	return []key.Binding{common.HelpKey("enter", "apply"), common.HelpKey("esc", "clear"), common.HelpKey("ctrl+c", "quit")}
}

// Name says what the overlay is.
func (f *FilterOverlay) Name() string { return "files filter" }
