package ui

import (
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
)

// A start notice (a runtime left by an unfinished `colabdash run`) is in
// the status line when the dashboard opens and stays in the event log.
func TestStartNoticesShown(t *testing.T) {
	const notice = "runtime run-1a2b3c4d (CPU/STANDARD) was created by a run that did not finish; delete it with: colabdash run --reap"
	e, m := emuModel(t, colabfake.Options{}, func(o *Options) { o.Notices = []string{notice} })
	found := false
	for _, ev := range m.Events() {
		found = found || ev.Tool == "run" && ev.Note == notice
	}
	if !found {
		t.Errorf("no run event with the notice in %+v", m.Events())
	}
	mustContain(t, m.View(), "run-1a2b3c4d (CPU/STANDARD) was created by a run")
	mustContain(t, e.press(t, m, "L").View(), "did not finish")
}
