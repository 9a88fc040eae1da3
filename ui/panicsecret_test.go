package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/secrettest"
)

const panicSecret = "ya-not-google-SECRET-4f9e2c"

// secretPanics panics, quoting a secret, in list_sessions and
// delete_runtime.
type secretPanics struct{ *fakeService }

func (s secretPanics) ListSessions(context.Context, string) ([]api.Session, error) {
	panic("nil map in reply {token: " + panicSecret + "}")
}

func (s secretPanics) DeleteRuntime(context.Context, string) error {
	panic("bad request Authorization=" + panicSecret[:10] + " key " + panicSecret)
}

// A panic the ui turns into an error can quote a secret: it reached the
// status line, the header and the details unredacted (known leftover).
// Every screen now shows "[redacted]" instead.
func TestPanicTextIsRedacted(t *testing.T) {
	f := newFake()
	f.runtimes = []api.Runtime{mkRuntime("r-alpha", specT4, t0.Add(time.Hour), "")}
	var red api.Redactor
	red.Add(panicSecret)
	clk := &clock{t: t0}
	m := testModel(secretPanics{f}, clk)
	m.cx.Redact = red.Redact
	m, _ = update(m, tea.WindowSizeMsg{Width: 160, Height: 40})
	m, _ = run(t, m, m.Init())
	check := func(when string) {
		t.Helper()
		if !secrettest.Check(t, when, m.View(), panicSecret) {
			t.FailNow()
		}
	}
	check("after list_sessions panicked")
	m, _ = update(m, keyMsg("tab"))
	check("sessions panel")
	m, _ = update(m, keyMsg("shift+tab"))
	m, _ = update(m, keyMsg("d"))
	clk.t = clk.t.Add(time.Second)
	m, cmd := update(m, keyMsg("y"))
	m = drive(t, m, cmd)
	if !strings.Contains(m.View(), "internal error") || !strings.Contains(m.View(), api.Redacted) {
		t.Fatalf("delete_runtime's panic is not on the status line, redacted:\n%s", m.View())
	}
	check("after delete_runtime panicked")
	m, _ = update(m, keyMsg("L"))
	check("event log")
}
