package ui

import (
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/console"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
)

// openConsole is e: the console on the session run code uses for the
// selected runtime. A run in flight is shown as it is. Without a session
// chosen it asks before opening a new one.
func (m *execOps) openConsole(now time.Time) {
	x := &m.ex.execState
	if r := x.running(""); r != nil {
		m.ex.showConsole(r.runtime, r.session)
		return
	}
	sel := m.cx.Snap.Runtime(m.rt.Selected())
	switch {
	case sel == nil && x.console != nil:
		m.ex.showConsole(x.console.Runtime(), x.console.Session())
		return
	case sel == nil:
		m.scr.setStatus(now, "no runtime selected", true)
		return
	case sel.Gone():
		m.scr.setStatus(now, m.ops.goneText(sel, now), true)
		return
	}
	target := m.ex.execTarget(sel, now)
	if target == "" {
		m.ex.askConsoleSession(sel.Name, "No session is chosen on "+sel.ID()+" (tab to the sessions panel to pick one).", now)
		return
	}
	m.ex.showConsole(sel.Name, target)
}

// askConsoleSession asks before opening a new colabdash session on
// runtime for run code; why says why one is needed.
func (m *execOps) askConsoleSession(runtime, why string, now time.Time) {
	d := dialog.New(dialog.Confirm, now, "Open a new session on "+api.LastSegment(runtime)+"?", why,
		"Run code needs a session: y opens a new colabdash session (create_session), with an empty kernel.")
	d.OnAnswer = func(_ *common.Context, r dialog.Reply) common.Effect {
		if !r.OK {
			return nil
		}
		return common.OpenSession{Runtime: runtime, ForConsole: true}
	}
	m.scr.push(d)
}

// showConsole opens the console on session of runtime (made on first use;
// its input and history are kept).
func (m *execOps) showConsole(runtime, session string) {
	x := &m.ex.execState
	p := x.console
	if p == nil {
		p = console.New(m)
		x.console = p
	}
	p.Show(runtime, session)
	if _, open := find[*console.Overlay](m.scr); !open {
		m.scr.push(p)
	}
}

// Transcript is session's transcript (console.Runs), nil before its
// first run.
func (m *execOps) Transcript(session string) *console.Transcript { return m.transcripts[session] }

// Running is the run in flight on session (console.Runs).
func (m *execOps) Running(session string) (console.Run, bool) {
	r := m.running(session)
	if r == nil {
		return console.Run{}, false
	}
	return console.Run{Session: r.session, Started: r.started, Stopping: r.stopping, Attempt: r.attempt}, true
}

// Closed reports whether the user closed session (console.Runs).
func (m *execOps) Closed(session string) bool { return m.closed[session] }

// addResult writes the outcome of the finished run r into its
// transcript t.
func addResult(t *console.Transcript, r *execRun) {
	if r.err != nil {
		t.AddFailure(common.ErrLine(r.err), r.stopping)
		return
	}
	t.AddResult(r.res)
}
