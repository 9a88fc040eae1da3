package console

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
	"github.com/colabdash/colabdash/ui/widget/frame"
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

// fixture is a w×h dashboard with runtime r-alpha and its session, the
// default keys, colourless styles and a fixed clock, and a console on
// that session with nothing run yet.
func fixture(t testing.TB, w, h int) (*common.Context, *fakeRuns, *Overlay) {
	t.Helper()
	c := commontest.Context(w, h, commontest.Runtime(api.LastSegment(rt), api.RuntimeSpecKey{}, time.Time{}))
	c.Snap.ApplySessions(t0, rt, []api.Session{{Name: sess}})
	c.Selected = rt
	runs := &fakeRuns{transcripts: map[string]*Transcript{}, closed: map[string]bool{}}
	p := New(runs)
	p.Show(rt, sess)
	return c, runs, p
}

// draw paints the console on a frame of the Context's size and returns
// its body: exactly the body's rows, none wider than the screen.
func draw(t testing.TB, p *Overlay, c *common.Context) []string {
	t.Helper()
	w, h := c.Layout.W, c.Layout.H
	f := &frame.Frame{W: w, H: h, Lines: make([]string, h)}
	if got := len(p.consoleView(c, c.Now(), w, f.BodyRows())); got != f.BodyRows() {
		t.Fatalf("the console drew %d lines in %d rows", got, f.BodyRows())
	}
	p.Draw(c, f)
	body := f.Lines[2 : h-2]
	for i, ln := range body {
		if lw := ansi.StringWidth(ln); lw > w {
			t.Fatalf("line %d is %d cells wide (screen %d): %q", i, lw, w, ln)
		}
	}
	return body
}

// screen is draw's body as one text.
func screen(t testing.TB, p *Overlay, c *common.Context) string {
	t.Helper()
	return strings.Join(draw(t, p, c), "\n")
}

// press sends each key in turn and returns the last one's effect.
func press(p *Overlay, c *common.Context, keys ...string) common.Effect {
	var eff common.Effect
	for _, k := range keys {
		eff = p.HandleKey(commontest.Key(k), c)
	}
	return eff
}

// keyHelp is the footer's key help while the console is on top.
func keyHelp(p *Overlay, c *common.Context) string {
	var parts []string
	for _, b := range p.Keys(c) {
		parts = append(parts, b.Help().Key+" "+b.Help().Desc)
	}
	return strings.Join(parts, " · ")
}
