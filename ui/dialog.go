package ui

// The root's side of dialogs (package ui/overlay/dialog): each dialog
// carries its own answer, built where it is opened (askDelete,
// askCloseSession, the console's and the files pane's questions, the
// choices after a failed create, the create picker in ui/overlay/picker);
// apply carries out the effect that answer returns. Here: the grace period
// the tests wait out, the picker's start, and the checks' answers.

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
	"github.com/colabdash/colabdash/ui/overlay/picker"
)

// DialogGrace is how long a dialog ignores keys after it opened
// (dialog.Grace, 350 ms).
const DialogGrace = dialog.Grace

// openPicker opens the create picker (ui/overlay/picker) over the runtime
// specs listed, starting on the configured default spec; without specs the
// status line says why.
func (m *createOps) openPicker(now time.Time) tea.Cmd {
	if len(m.cx.Snap.Specs) == 0 {
		msg := "no runtime specs yet (list_runtime_specs has not answered)"
		if err := m.cx.Snap.SpecsFresh.Err; err != nil {
			msg = "cannot list runtime specs: " + common.ErrLine(err)
		}
		m.scr.setStatus(now, msg, true)
		return nil
	}
	return m.apply(picker.Open(m.cx, m.opts.DefaultSpec))
}

// onDialogCheck hands a dialog's check answer to its dialog, which keeps
// it when it is for its input now and submits when enter was waiting for
// it (only while it is on top).
func (m *app) onDialogCheck(msg dialog.CheckMsg) tea.Cmd {
	d := msg.Owner()
	return m.apply(d.Checked(msg, m.scr.top() == d, m.cx))
}
