package ui

// The log viewer's side of the app (ui/overlay/logview): l opens it on
// the selected runtime's newest running job (ops.JobLog), or on the
// sessions panel on the selected session's kernel output (ops.KernelLog,
// which connects before it returns: it runs in a command and the viewer
// opens with its answer); the viewer's own messages come back here.

import (
	"context"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/overlay/logview"
	"github.com/colabdash/colabdash/ui/termtext"
)

// openLog is l: the log viewer on the selected runtime's newest running
// job (its newest job when none runs), following; on the sessions panel,
// on the selected session's kernel output.
func (a *app) openLog(now time.Time) tea.Cmd {
	switch {
	case a.cx.Focus == common.PanelSessions:
		return a.ops.openKernelLog(now, a.selectedSession())
	case a.jobs == nil:
		a.scr.say(now, common.Say{Text: "jobs are not listed while monitoring is off: colabdash logs JOB follows a job's log", Err: true})
		return nil
	}
	sel := a.ops.reachableSelection(now, "its jobs cannot be read")
	if sel == nil {
		return nil
	}
	return a.jobs.openLog(now, sel)
}

// openLog opens the viewer on runtime sel's job.
func (m *jobsOps) openLog(now time.Time, sel *state.Runtime) tea.Cmd {
	js, ok := m.Jobs(sel.Name)
	switch {
	case !ok:
		m.scr.say(now, common.Say{Text: "the jobs of " + sel.ID() + " are not listed yet: " + m.cx.Keys.Word(keymap.ActionLogs) + " again in a moment", Err: true, About: sel.Name})
		return nil
	case len(js) == 0:
		rt := "RUNTIME"
		if state.PasteID(sel.ID()) { // a server's id goes into a command only when it pastes as itself
			rt = sel.ID()
		}
		m.scr.say(now, common.Say{Text: "no job on " + sel.ID() + " (colabdash run --runtime " + rt + " --detach FILE starts one)", Err: true, About: sel.Name})
		return nil
	}
	pick, running := js[0], 0
	for _, j := range js {
		if !state.JudgeJob(j.Record, now, 0).Ended() {
			if running == 0 {
				pick = j
			}
			running++
		}
	}
	if m.link.svc == nil {
		m.scr.say(now, common.Say{Text: errNoService.Error(), Err: true})
		return nil
	}
	jc, err := ops.Jupyter(m.link.svc, sel.Name, *sel.ConnectionInfo, ops.JupyterOptions{Now: m.opts.Now})
	if err != nil {
		m.scr.say(now, common.Say{Text: "log of " + sel.ID() + ": " + common.ErrLine(err), Err: true})
		return nil
	}
	id := pick.Record.Spec.ID
	src, err := jobLogSource(jc, id)
	if err != nil {
		m.scr.say(now, common.Say{Text: "log of job " + termtext.Line(id) + ": " + common.ErrLine(err), Err: true})
		return nil
	}
	word := state.JudgeJob(pick.Record, now, 0).Word()
	o := logview.New(m.link.life.ctx, logview.Target{Kind: "job", ID: id, Runtime: sel.ID(), State: word}, src)
	m.scr.push(o)
	if len(js) > 1 {
		which := "the newest of " + countWord(len(js), "job") + " (none runs)"
		if running > 0 {
			which = "the newest running job of " + countWord(len(js), "job")
		}
		m.scr.say(now, common.Say{Text: "log of " + termtext.Line(id) + ": " + which + "; colabdash logs JOB follows another"})
	}
	return o.Init()
}

// jobLogSource is the source l follows (a test seam: jobLog).
var jobLogSource = jobLog

// jobLog is ops.JobLog following job id from its last jobLogTail lines
// (it does no I/O: its reads are the viewer's).
func jobLog(jc *jupyter.Client, id string) (ops.LogSource, error) {
	return ops.JobLog(jc, id, ops.JobLogOptions{Tail: jobLogTail, Follow: true}), nil
}

// onLogMsg hands a log viewer's own message to it while it is open; a
// save's answer speaks even when it has closed.
func (m *app) onLogMsg(msg logview.Msg) tea.Cmd {
	o, open := find[*logview.Overlay](m.scr)
	open = open && o == msg.Owner()
	if sm, ok := msg.(logview.SavedMsg); ok {
		e := msg.Owner().Saved(sm, m.cx)
		if q, ask := e.(common.Open); ask {
			if !open {
				return m.apply(common.Say{Text: "log not saved: " + termtext.Line(sm.Path) + " exists", Err: true})
			}
			m.scr.openFromAnswer(o, "the question whether to replace "+sm.Path, func(now time.Time) bool {
				if x, still := find[*logview.Overlay](m.scr); !still || x != o {
					return false
				}
				if g, ok := q.Overlay.(common.Graced); ok {
					g.Regrace(now)
				}
				m.scr.push(q.Overlay)
				return true
			})
			return nil
		}
		return m.apply(e)
	}
	if !open {
		if _, ok := msg.(logview.ChunkMsg); ok {
			return msg.Owner().Close() // a viewer that left: its source is closed (once)
		}
		return nil
	}
	return o.Update(msg, m.cx.Now())
}

// kernelLogMsg answers the connection to session's kernel output on
// runtime: the source to follow, or why there is none.
type kernelLogMsg struct {
	runtime, session string
	src              ops.LogSource
	err              error
}

// kernelLogTimeout bounds finding the session's kernel and connecting.
const kernelLogTimeout = 30 * time.Second

// openKernelLog connects to session's kernel output (a command: it
// connects before it answers); the viewer opens with the answer.
func (m *runtimeOps) openKernelLog(now time.Time, session string) tea.Cmd {
	if session == "" {
		m.scr.say(now, common.Say{Text: "no session selected: " + m.cx.Keys.Word(keymap.ActionLogs) + " on the sessions panel follows the selected session's kernel", Err: true})
		return nil
	}
	sel := m.reachableSelection(now, "its kernels cannot be reached")
	if sel == nil {
		return nil
	}
	if m.link.svc == nil {
		m.scr.say(now, common.Say{Text: errNoService.Error(), Err: true})
		return nil
	}
	open := m.link.jupyterOpener(sel.Name, *sel.ConnectionInfo)
	ctx, rt := m.link.life.ctx, sel.Name
	m.scr.say(now, common.Say{Text: "connecting to the kernel of session " + termtext.Line(api.LastSegment(session)) + "…"})
	return func() (msg tea.Msg) {
		res := kernelLogMsg{runtime: rt, session: session}
		defer func() {
			if r := recover(); r != nil {
				res.src, res.err = nil, fmt.Errorf("internal error: %v", r)
				msg = res
			}
		}()
		cctx, cancel := context.WithTimeout(ctx, kernelLogTimeout)
		defer cancel()
		jc, err := open(cctx)
		if err != nil {
			res.err = err
			return res
		}
		// The source outlives this command: it follows under the
		// dashboard's life (its own reads take the viewer's context).
		res.src, res.err = ops.KernelLog(context.WithoutCancel(cctx), jc, session)
		return res
	}
}

// onKernelLog opens the viewer on a kernel's output once connected, over
// the dashboard; while another layer is on top (the user moved on) it
// does not open over it: the connection is closed and the status line
// says so. A failure goes to the status line.
func (a *app) onKernelLog(msg kernelLogMsg, now time.Time) tea.Cmd {
	id := termtext.Line(api.LastSegment(msg.session))
	if msg.err != nil {
		a.scr.recordEvent(now, "kernel output", msg.session, 0, msg.err)
		a.scr.say(now, common.Say{Text: "kernel output of session " + id + ": " + common.ErrLine(msg.err), Err: true})
		return nil
	}
	o := logview.New(a.link.life.ctx, logview.Target{Kind: "kernel", ID: api.LastSegment(msg.session),
		Runtime: api.LastSegment(msg.runtime)}, msg.src)
	if a.scr.top() != nil {
		a.scr.say(now, common.Say{Text: "the kernel output of session " + id + " was not opened over the " + a.scr.top().Name() +
			": " + a.cx.Keys.Word(keymap.ActionLogs) + " again from the sessions panel"})
		return o.Close()
	}
	a.scr.push(o)
	return o.Init()
}
