package ui

import (
	"strconv"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/files/pane"
	"github.com/colabdash/colabdash/ui/widget/frame"
	"github.com/colabdash/colabdash/ui/widget/lineedit"
)

// filesFilterOverlay is the files pane's filter line (/ in the pane),
// drawn over the status line: the entries shown narrow as it is typed
// (among those the pane kept); enter keeps it, and on a directory larger
// than the pane keeps (pane.MaxShown) lists it again keeping every
// entry that matches; esc clears it; ctrl+c quits.
type filesFilterOverlay struct {
	in lineedit.Editor
	p  *pane.Pane
}

func newFilesFilterOverlay(p *pane.Pane) *filesFilterOverlay {
	f := &filesFilterOverlay{in: lineedit.Editor{Limit: 200}, p: p}
	f.in.Set(p.Filter())
	f.in.Selected = p.Filter() != ""
	return f
}

func (f *filesFilterOverlay) HandleKey(k tea.KeyMsg, _ *common.Context) common.Effect {
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

func (f *filesFilterOverlay) Draw(c *common.Context, fr *frame.Frame) {
	// The pane is drawn beneath (the stack draws every overlay); the
	// line replaces the status.
	hint := "  enter apply · esc clear"
	if total, _ := f.p.Counts(); total > pane.MaxShown {
		hint = "  enter: search all " + strconv.Itoa(total) + " · esc clear"
	}
	line := f.in.View("/", "", max(fr.W-len(hint), 10), 1)[0]
	fr.SetStatus(line + c.Styles.Dim.Render(hint))
}

func (f *filesFilterOverlay) Fits(*common.Context) bool { return true }

func (f *filesFilterOverlay) Keys(*common.Context) []key.Binding {
	return []key.Binding{common.HelpKey("enter", "apply"), common.HelpKey("esc", "clear"), common.HelpKey("ctrl+c", "quit")}
}

func (f *filesFilterOverlay) Name() string { return "files filter" }
