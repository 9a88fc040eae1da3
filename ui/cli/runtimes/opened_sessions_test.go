package runtimes

import (
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/cli/kit/kittest"
	"github.com/colabdash/colabdash/ui/ops"
)

// A session the dashboard opened under a typed id (recorded in the state
// directory) is colabdash's to `sessions` and `session close` too: listed
// as colabdash's, closed without --force, and its record goes with it.
func TestRecordedSessionIsColabdashsToTheCLI(t *testing.T) {
	e := kittest.Demo(t)
	const rt = "runtimes/rt-cpudemo4qx"
	if _, err := e.Srv.AddNotebookSession(rt, "mysess"); err != nil {
		t.Fatal(err)
	}
	r := e.Run(SessionsCommand, "rt-cpudemo4qx")
	if !strings.Contains(r.Out, "rt-cpudemo4qx/mysess             not colabdash") {
		t.Fatalf("unrecorded, mysess is not a notebook's: %q", r.Out)
	}
	if err := ops.RecordOpenedSession(kit.StateDir(), rt+"/sessions/mysess", time.Now()); err != nil {
		t.Fatal(err)
	}
	r = e.Run(SessionsCommand, "rt-cpudemo4qx", "--json")
	if !strings.Contains(r.Out, `"name": "runtimes/rt-cpudemo4qx/sessions/mysess",
      "openedByColabdash": true`) {
		t.Fatalf("recorded, mysess is not colabdash's: %s", r.Out)
	}
	r = e.Run(SessionCommand, "close", "rt-cpudemo4qx/mysess", "--yes")
	if r.Code != 0 || !strings.Contains(r.Out, "closed rt-cpudemo4qx/mysess") {
		t.Fatalf("close without --force: exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	if ops.OpenedByColabdash(kit.StateDir(), rt+"/sessions/mysess") {
		t.Error("the closed session's record is left")
	}
}

// session open --id records a session it opens under a new id of the
// user's, and not one that was already open (a notebook's, returned as it
// is by create_session).
func TestSessionOpenRecordsOnlyANewID(t *testing.T) {
	e := kittest.Demo(t)
	const rt = "runtimes/rt-cpudemo4qx"
	if r := e.Run(SessionCommand, "open", "rt-cpudemo4qx", "--id", "mine"); r.Code != 0 || r.Out != "rt-cpudemo4qx/mine\n" {
		t.Fatalf("open --id mine: exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	if !ops.OpenedByColabdash(kit.StateDir(), rt+"/sessions/mine") {
		t.Error("a session opened under a new id is not recorded")
	}
	r := e.Run(SessionCommand, "open", "rt-cpudemo4qx", "--id", "notebook-5e6f7a8b", "--json")
	if r.Code != 0 || !strings.Contains(r.Out, `"openedByColabdash": false`) || ops.OpenedByColabdash(kit.StateDir(), rt+"/sessions/notebook-5e6f7a8b") {
		t.Errorf("the notebook's open session became colabdash's: %s", r.Out)
	}
}
