package console

import (
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
)

const (
	rt   = "runtimes/r-alpha"
	sess = "runtimes/r-alpha/sessions/colabdash-1a2b"
)

// t0 is the fixture's fixed clock.
var t0 = commontest.T0

// fakeRuns is the app's run-code state as the console reads it: one
// transcript per session, at most one run in flight, closed sessions.
type fakeRuns struct {
	transcripts map[string]*Transcript
	run         *Run
	closed      map[string]bool
}

func (f *fakeRuns) Transcript(session string) *Transcript { return f.transcripts[session] }

func (f *fakeRuns) Running(session string) (Run, bool) {
	if f.run != nil && (session == "" || f.run.Session == session) {
		return *f.run, true
	}
	return Run{}, false
}

func (f *fakeRuns) Closed(session string) bool { return f.closed[session] }

// transcript returns session's transcript, made on first use.
func (f *fakeRuns) transcript(session string) *Transcript {
	t := f.transcripts[session]
	if t == nil {
		t = &Transcript{}
		f.transcripts[session] = t
	}
	return t
}

// ran writes a finished run of code with its result into session's
// transcript, as the app does.
func (f *fakeRuns) ran(session, code string, res api.ExecuteCodeResult) {
	f.transcript(session).AddIn(session, code)
	f.transcript(session).AddResult(res)
}

// fixture is a w×h dashboard with runtime r-alpha (selected) and its
// session, and a console on that session with nothing run yet.
func fixture(t testing.TB, w, h int) (*common.Context, *fakeRuns, *Overlay) {
	t.Helper()
	c := commontest.OverlayContext(w, h, false, commontest.Alpha())
	c.Snap.ApplySessions(t0, rt, []api.Session{{Name: sess}})
	runs := &fakeRuns{transcripts: map[string]*Transcript{}, closed: map[string]bool{}}
	p := New(runs)
	p.Show(rt, sess)
	return c, runs, p
}

// consoleBody is the console's body as drawn (commontest.Draw) on c's
// screen: exactly the frame's body rows, which its own view fills.
func consoleBody(t testing.TB, p *Overlay, c *common.Context) []string {
	t.Helper()
	lines := commontest.Draw(t, p, c)
	body := lines[2 : len(lines)-2]
	if got := len(p.consoleView(c, c.Now(), c.Layout.W, len(body))); got != len(body) {
		t.Fatalf("the console drew %d lines in %d rows", got, len(body))
	}
	return body
}

// consoleText is consoleBody as one text, a line a row.
func consoleText(t testing.TB, p *Overlay, c *common.Context) string {
	t.Helper()
	return strings.Join(consoleBody(t, p, c), "\n")
}
