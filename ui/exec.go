package ui

import (
	"context"
	"errors"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/overlay/console"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
	"github.com/google/uuid"
)

// maxRunsKept bounds the runs remembered (done or not).
const maxRunsKept = 50

// execRun is one piece of code sent to execute_code on a session.
type execRun struct {
	id          int
	code        string
	executionID string
	runtime     string
	session     string
	started     time.Time // when the user ran it
	sent        time.Time // when the current attempt was sent
	attempt     int
	drops       int // failures in a row other than the 600 s cut-off (state.ExecTries)
	done        bool
	stopping    bool // the user asked to stop it: delete_session was sent
	res         api.ExecuteCodeResult
	err         error
}

type execDoneMsg struct {
	run     int
	attempt int
	res     api.ExecuteCodeResult
	err     error
}

// execState is everything about run code: the runs (the last
// maxRunsKept), each session's transcript, and the console, kept while it
// is hidden so a long run goes on while the user is back on the dashboard.
type execState struct {
	runs        []*execRun
	nextRun     int
	transcripts map[string]*console.Transcript // by session name
	console     *console.Overlay
	// unseen are the runs that finished while their console was not on
	// screen, until the root tells them (notifyUnseenRuns).
	unseen []*execRun
}

// transcript returns session's transcript, made on first use.
func (x *execState) transcript(session string) *console.Transcript {
	t := x.transcripts[session]
	if t == nil {
		t = &console.Transcript{}
		x.transcripts[session] = t
	}
	return t
}

// running returns a run in flight on session ("": on any session), or nil.
func (x *execState) running(session string) *execRun {
	for _, r := range x.runs {
		if !r.done && (session == "" || r.session == session) {
			return r
		}
	}
	return nil
}

// runningHidden is the run in flight while the console is not open (the
// footer counts its time), or nil.
func (m *execOps) runningHidden() *execRun {
	if _, open := find[*console.Overlay](m.scr); open {
		return nil
	}
	return m.execState.running("")
}

// execTarget is the session e runs on for runtime r: the one under the
// cursor when the sessions panel is focused, else the one most recently
// selected, opened or used for r; "" when none is left (e then asks before
// opening one). A session the user closed is never returned.
func (m *execOps) execTarget(r *state.Runtime, now time.Time) string {
	if s := selectedSession(m.cx, m.rt, m.sess); s != "" && !m.closed[s] {
		m.pickSession(r.Name, s, now)
		return s
	}
	if pk, ok := m.lastSession[r.Name]; ok && !m.closed[pk.name] {
		return pk.name
	}
	return ""
}

// pickSession remembers session as the one run code uses on runtime.
func (m *execOps) pickSession(runtime, session string, now time.Time) {
	m.lastSession[runtime] = sessionPick{name: session, at: now}
}

// forgetVanishedSession drops runtime's remembered session when a
// list_sessions sent after it was chosen no longer lists it.
func (m *execOps) forgetVanishedSession(runtime string, sent time.Time, listed []api.Session) {
	pk, ok := m.lastSession[runtime]
	if !ok || sent.Before(pk.at) {
		return
	}
	for _, s := range listed {
		if s.Name == pk.name {
			return
		}
	}
	delete(m.lastSession, runtime)
}

// runInConsole runs code on the console's session. Without a usable
// session (it was closed, or stopped) it asks before opening a new one,
// keeping the code in the input.
func (m *execOps) runInConsole(code string, now time.Time) tea.Cmd {
	p := m.execState.console
	x := &m.execState
	if p.Session() == "" || m.closed[p.Session()] {
		m.askConsoleSession(p.Runtime(), "The console's session was closed.", now)
		return nil
	}
	if x.running(p.Session()) != nil {
		m.scr.say(now, common.Say{Text: "code is still running; wait for it to finish (" + m.cx.Keys.Word(keymap.ActionConsoleStop) + " stops it)", Err: true})
		return nil
	}
	p.Ran(code)
	x.nextRun++
	r := &execRun{id: x.nextRun, code: code, executionID: uuid.NewString(), runtime: p.Runtime(), session: p.Session(), started: now}
	x.runs = append(x.runs, r)
	if len(x.runs) > maxRunsKept {
		x.runs = x.runs[len(x.runs)-maxRunsKept:]
	}
	x.transcript(r.session).AddIn(r.session, r.code)
	return m.sendExec(r, now)
}

// sendExec (re-)sends r with its executionId. It has no timeout: code runs
// as long as it runs; quitting or stopping it (delete_session) ends it.
func (m *execOps) sendExec(r *execRun, now time.Time) tea.Cmd {
	return m.sendExecAfter(r, now, 0)
}

// sendExecAfter is sendExec after wait, spent in the command (never in
// Update) as the command-line drivers wait (ops.Sleep); the dashboard's
// end cancels the wait.
func (m *execOps) sendExecAfter(r *execRun, now time.Time, wait time.Duration) tea.Cmd {
	r.attempt++
	r.sent = now
	run, attempt := r.id, r.attempt
	req := api.ExecuteCodeRequest{Session: r.session, Code: r.code, ExecutionID: r.executionID}
	spec := callSpec{what: api.ToolExecuteCode, svc: m.link.svc, needSvc: true, parent: m.link.life.ctx}
	return guard(spec, func(ctx context.Context, svc api.Service) tea.Msg {
		if err := ops.Sleep(ctx, wait); err != nil {
			return execDoneMsg{run: run, attempt: attempt, err: &api.Error{Code: api.Cancelled, Err: err, Message: "cancelled"}}
		}
		res, err := svc.ExecuteCode(ctx, req)
		return execDoneMsg{run: run, attempt: attempt, res: res, err: err}
	}, func(err error) tea.Msg { return execDoneMsg{run: run, attempt: attempt, err: err} })
}

func (m *execOps) onExecDone(msg execDoneMsg, now time.Time) tea.Cmd {
	x := &m.execState
	var r *execRun
	for _, y := range x.runs {
		if y.id == msg.run {
			r = y
		}
	}
	if r == nil || r.done || r.attempt != msg.attempt {
		return nil
	}
	m.scr.recordEvent(now, api.ToolExecuteCode, r.session, now.Sub(r.sent), msg.err)
	// state's one rule (state.ExecAnswered), shared with exec and run.
	d := state.ExecAnswered(now, state.ExecTries{Attempt: r.attempt, Drops: r.drops, Resumable: true, Stopped: r.stopping}, msg.err)
	if d.Step == state.ExecReattach {
		r.drops = d.Drops
		return m.sendExecAfter(r, now, d.Wait) // reattach: same executionId
	}
	m.finishRun(r, msg.res, msg.err, now)
	return nil
}

// finishRun records r's outcome in its session's transcript and, when
// the console does not show it, says so in the status line.
func (m *execOps) finishRun(r *execRun, res api.ExecuteCodeResult, err error, now time.Time) {
	r.done, r.res, r.err = true, res, err
	addResult(m.execState.transcript(r.session), r)
	if p, open := find[*console.Overlay](m.scr); !open || p.Session() != r.session {
		word := "finished"
		// sys.exit(0) is done, as in exec and run (state.ExitAsPython).
		if out, code, _ := state.ExitAsPython(res); err != nil || out.ExecutionError != nil || code != 0 {
			word = "failed"
		}
		m.unseen = append(m.unseen, r)
		m.scr.say(now, common.Say{Text: "code run " + word + " after " + state.FormatCountdown(now.Sub(r.started)) + " (" + m.cx.Keys.Dashboard.RunCode.Help().Key + " shows the output)", Err: err != nil})
	}
}

// askStop asks whether to stop the code running on session (the
// console's). Colab cannot interrupt a run; closing its session
// (delete_session) ends it. It reports whether it asked (false: nothing
// runs there any more).
func (m *execOps) askStop(session string, now time.Time) bool {
	r := m.execState.running(session)
	if r == nil {
		return false
	}
	id := api.LastSegment(r.session)
	d := dialog.New(dialog.Confirm, now, "Stop the running code?",
		"Colab cannot interrupt code: stopping it closes session "+id+" (delete_session).",
		"That discards the session's state: its variables, imports and loaded data. The next run asks to open a new session.")
	target := r.session
	d.OnAnswer = func(_ *common.Context, a dialog.Reply) common.Effect {
		if !a.OK {
			return common.Say{Text: "the code keeps running"}
		}
		return common.StopRun{Session: target}
	}
	m.scr.push(d)
	return true
}

// quitCost is what quitting now would do to the console's code, when
// code runs: quitting does not stop it (it keeps running on the runtime,
// in its session), but the console loses it.
func (m *execOps) quitCost() (quitCost, bool) {
	r := m.execState.running("")
	if r == nil {
		return quitCost{}, false
	}
	rt := api.LastSegment(r.runtime)
	return quitCost{
		title: "Code is running on " + rt + "; quit anyway?",
		lines: []string{"The console's code keeps running on " + rt + " in session " + api.LastSegment(r.session) + ": quitting does not stop it, and the session stays open.",
			"To stop it instead, answer no and press ctrl+c in the console."},
		goesOn: "the code keeps running",
		after:  "the console's code still runs on " + rt + " in session " + api.LastSegment(r.session) + ", which stays open",
	}, true
}

// stopRun ends the code running on session: it returns the effect that
// closes the session (Colab cannot interrupt code otherwise).
func (m *execOps) stopRun(session string) common.Effect {
	r := m.execState.running(session)
	if r == nil {
		return nil
	}
	r.stopping = true
	return common.CloseSession{Name: session}
}

// sessionOpened makes session, opened on runtime, the one run code uses
// there; forConsole (it was opened for run code) shows it in the console:
// at once when the console is open (it moves to the new session), else
// once the user is back on the dashboard.
func (m *execOps) sessionOpened(runtime string, session api.Session, forConsole bool, now time.Time) {
	m.pickSession(runtime, session.Name, now)
	if !forConsole {
		return
	}
	name := session.Name
	show := func(time.Time) bool {
		if m.closed[name] {
			return false
		}
		m.showConsole(runtime, name) // its title names the session
		return true
	}
	if _, open := find[*console.Overlay](m.scr); open {
		show(now) // asked from the console: it moves to the new session
	} else {
		m.scr.openFromAnswer(nil, "the console on session "+session.ID(), show)
	}
}

// sessionClosed is the end of session name, which the user closed: run
// code never uses it again, and the runs still waiting on it end.
func (m *execOps) sessionClosed(name string, now time.Time) {
	parent := api.Session{Name: name}.Parent()
	m.closed[name] = true
	m.onStopped(name, now)
	if m.lastSession[parent].name == name {
		delete(m.lastSession, parent)
	}
}

// onStopped ends the runs still waiting on a session that was closed: the
// call's late answer, if any, is dropped.
func (m *execOps) onStopped(session string, now time.Time) {
	for _, r := range m.execState.runs {
		if !r.done && r.session == session {
			r.attempt++ // the answer on its way no longer matches
			m.finishRun(r, api.ExecuteCodeResult{}, errors.New("the session was closed"), now)
		}
	}
}

// openConsole is e: the console on the session run code uses for the
// selected runtime. A run in flight is shown as it is. Without a session
// chosen it asks before opening a new one.
func (m *execOps) openConsole(now time.Time) {
	x := &m.execState
	if r := x.running(""); r != nil {
		m.showConsole(r.runtime, r.session)
		return
	}
	sel := m.cx.Snap.Runtime(m.rt.Selected())
	switch {
	case sel == nil && x.console != nil:
		m.showConsole(x.console.Runtime(), x.console.Session())
		return
	case sel == nil:
		m.scr.say(now, common.Say{Text: "no runtime selected", Err: true})
		return
	case sel.Gone():
		m.scr.say(now, common.Say{Text: goneText(sel, now), Err: true})
		return
	}
	target := m.execTarget(sel, now)
	if target == "" {
		m.askConsoleSession(sel.Name, "No session is chosen on "+sel.ID()+" (tab to the sessions panel to pick one).", now)
		return
	}
	m.showConsole(sel.Name, target)
}

// askConsoleSession asks before opening a new colabdash session on
// runtime for run code; why says why one is needed.
func (m *execOps) askConsoleSession(runtime, why string, now time.Time) {
	d := dialog.New(dialog.Confirm, now, "Open a new session on "+api.LastSegment(runtime)+"?", why,
		"Run code needs a session: y opens a new colabdash session (create_session), with an empty kernel.")
	d.OnAnswer = func(_ *common.Context, r dialog.Reply) common.Effect {
		if !r.OK {
			return common.Say{Text: "run code cancelled: no session opened on " + api.LastSegment(runtime)}
		}
		return common.OpenSession{Runtime: runtime, ForConsole: true}
	}
	m.scr.push(d)
}

// showConsole opens the console on session of runtime (made on first use;
// its input and history are kept).
func (m *execOps) showConsole(runtime, session string) {
	x := &m.execState
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
