package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/overlay/console"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
	"github.com/colabdash/colabdash/ui/overlay/files"
)

// A question an answer brings never lands on the dialog the user is
// answering: a create that fails while "Delete runtime …?" is open leaves
// the y typed for that dialog to it, and its own choices open once the
// user is back on the dashboard.
func TestAnswerDialogWaitsForTheLayerItWasAskedFrom(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: "create_runtime", Times: 1,
		Text: colabfake.GoogleErrorText(api.PermissionDenied, "The caller does not have permission.", "", 0)})
	m, create := startCreate(t, m, e, specT4)
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "d")
	mustContain(t, m.View(), "Delete runtime rt-t4demo7k2p?")
	m = drive(t, m, create) // the create fails while the user reads the question
	if d := m.dlg(); d == nil || !strings.HasPrefix(d.Title, "Delete runtime ") {
		t.Fatalf("the failed create's choices opened over the delete question:\n%s", m.View())
	}
	mustContain(t, strings.Join(strings.Fields(m.View()), " "), "failed", "opens when you are back on the dashboard")
	m = e.press(t, m, "y")
	if serverHas(e.srv, "runtimes/rt-t4demo7k2p") {
		t.Fatalf("the y typed for the delete question did not answer it:\n%s", m.View())
	}
	if d := m.dlg(); d == nil || d.Kind() != dialog.Choice {
		t.Fatalf("the failed create's choices did not open once the dashboard was back:\n%s", m.View())
	}
}

// The console asked for with e opens on its new session when that session
// is there, but not over the files pane the user opened meanwhile: it
// waits until the pane is closed, and the pane keeps its keys.
func TestConsoleForANewSessionWaitsForTheDashboard(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "e")
	mustContain(t, m.View(), "Open a new session on rt-t4demo7k2p?")
	e.clk.add(DialogGrace + time.Millisecond)
	m, open := update(m, keyMsg("y")) // create_session, answered later
	m = e.press(t, m, "f")
	m = drive(t, m, open)
	if !topIs[*files.Overlay](m.scr) {
		t.Fatalf("the console opened over the files pane:\n%s", m.View())
	}
	m = e.press(t, m, "esc")
	if !topIs[*console.Overlay](m.scr) {
		t.Fatalf("the console did not open once the files pane closed:\n%s", m.View())
	}
	mustContain(t, m.View(), "RUN CODE")
}
