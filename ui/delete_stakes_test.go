package ui

import (
	"strings"
	"testing"
	"time"

	apimon "github.com/colabdash/colabdash/api/monitor"
)

// askedBody is the open dialog's title and body, one string.
func askedBody(t *testing.T, m Model) string {
	t.Helper()
	d := m.dlg()
	if d == nil {
		t.Fatalf("no question open:\n%s", m.View())
	}
	return d.Title + " " + strings.Join(d.Body, " ")
}

// The delete question names the running job it would stop (and the busy
// kernels the monitor saw), for the selected runtime and among marked
// ones; a runtime whose jobs were not listed says they were not checked.
func TestDeleteQuestionNamesWhatItStops(t *testing.T) {
	_, _, m := fixture(t)
	m = withJobs(t, m)
	m = m.selectID(t, "r-alpha")
	m, _ = update(m, keyMsg("d"))
	body := askedBody(t, m)
	if !strings.Contains(body, "It also stops its running job train-4kq9zt.") || strings.Contains(body, "prep-2b8xqq") {
		t.Errorf("the question does not name the running job (alone):\n%s", body)
	}
	m, _ = update(m, keyMsg("esc"))

	now := m.cx.Now()
	m.mon.poll.Store().RecordKernels("runtimes/r-alpha", now, []apimon.Kernel{{ID: "k", ExecutionState: "busy", LastActivity: now.Add(-time.Second)}}, nil)
	m, _ = update(m, keyMsg("d"))
	if body := askedBody(t, m); !strings.Contains(body, "its running job train-4kq9zt, and the code running in its busy kernel.") {
		t.Errorf("the question does not name the busy kernel:\n%s", body)
	}
	m, _ = update(m, keyMsg("esc"))

	m = m.selectID(t, "r-bravo")
	m, _ = update(m, keyMsg("d"))
	if body := askedBody(t, m); !strings.Contains(body, "Its jobs could not be checked (not listed yet)") {
		t.Errorf("a runtime whose jobs were not listed is not said unchecked:\n%s", body)
	}
	m, _ = update(m, keyMsg("esc"))

	m = m.selectID(t, "r-alpha")
	m, _ = update(m, keyMsg(" "))
	m, _ = update(m, keyMsg("d"))
	if body := askedBody(t, m); !strings.Contains(body, "r-alpha: it also stops its running job train-4kq9zt") {
		t.Errorf("the marked runtimes' question does not name the running job:\n%s", body)
	}
}
