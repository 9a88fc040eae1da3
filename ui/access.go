package ui

// runtimeOps reaching into a runtime: its files pane (ui/overlay/files)
// and its shell (ui/shell, the dashboard suspended while it runs).

import (
	"context"
	"io"
	"os"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/overlay/files"
	"github.com/colabdash/colabdash/ui/overlay/files/pane"
	"github.com/colabdash/colabdash/ui/shell"
	"github.com/colabdash/colabdash/ui/termtext"
)

// The files pane (f) and the console's kernel interrupt: both reach the
// runtime's Jupyter server through its proxy (api/jupyter). The pane is
// ui/overlay/files (its state machine ui/overlay/files/pane, its questions
// ui/overlay/files/ask.go); this file opens it with the runtime's Jupyter
// client opener and routes its messages, returning the effects they ask
// for to the root.

// openFiles is f: the files pane of the selected runtime, through its
// current connectionInfo (renewed with get_runtime when a transfer
// outlives it).
func (m *runtimeOps) openFiles(now time.Time) tea.Cmd {
	sel := m.reachableSelection(now, "its files cannot be reached")
	if sel == nil {
		return nil
	}
	// Under m.link.life.ctx: quitting ends its calls; a profile switch closes it.
	p := pane.New(m.link.life.ctx, sel.ID(), m.link.jupyterOpener(sel.Name, *sel.ConnectionInfo), m.cx.Now)
	p.SetLocation(m.cx.Location)
	o := files.New(p, nil)
	m.scr.push(o)
	return o.Init()
}

// reachableSelection is the selected runtime when its Jupyter server can
// be reached (listed, not gone, with a connectionInfo URL); otherwise it
// says why on the status line (unreachable ends the sentence: "its files
// cannot be reached") and returns nil.
func (m *runtimeOps) reachableSelection(now time.Time, unreachable string) *state.Runtime {
	sel := m.cx.Snap.Runtime(m.rt.Selected())
	switch {
	case sel == nil:
		m.scr.say(now, common.Say{Text: "no runtime selected", Err: true})
	case sel.Gone():
		m.scr.say(now, common.Say{Text: goneText(sel, now), Err: true, About: sel.Name})
	case sel.ConnectionInfo == nil || sel.ConnectionInfo.URL == "":
		m.scr.say(now, common.Say{Text: "runtime " + sel.ID() + " has no connectionInfo yet: " + unreachable, Err: true, About: sel.Name})
	default:
		return sel
	}
	return nil
}

// jupyterOpener builds the Jupyter client of runtime name from ci; the
// token is renewed through get_runtime when needed.
func (m *link) jupyterOpener(name string, ci api.ConnectionInfo) pane.Opener {
	svc := m.svc
	return func(ctx context.Context) (*jupyter.Client, error) {
		if svc == nil {
			return nil, errNoService
		}
		return ops.Jupyter(svc, name, ci, ops.JupyterOptions{Now: m.opts.Now})
	}
}

// onFilesMsg hands a files-pane message to the open pane. A finished
// transfer is logged against its own runtime whatever pane is open now,
// and reaches the status line only when the open pane took it: the answer
// of a closed pane, another runtime's or an older request's never speaks
// for the pane on screen. It returns the pane's command and the effect
// for the root to carry out.
func (m *runtimeOps) onFilesMsg(msg tea.Msg, now time.Time) (tea.Cmd, common.Effect) {
	o, open := find[*files.Overlay](m.scr)
	if pm, ok := msg.(pane.PlanMsg); ok {
		return nil, m.onFilesPlan(o, open, pm)
	}
	var cmd tea.Cmd
	mine := false
	if open {
		cmd, mine = o.Pane().Update(msg)
	}
	if pm, ok := msg.(pane.ProgressMsg); ok && !mine {
		// A closed pane's transfer: wait on for its end all the same.
		return pm.Next(), nil
	}
	if d, isDone := msg.(pane.DoneMsg); isDone {
		m.scr.recordEvent(now, "files "+d.Op, "runtimes/"+d.Runtime, d.Elapsed, d.Err)
		if mine {
			return cmd, files.Finished(d)
		}
		var say common.Effect
		m.scr.filesClosed, say = m.scr.filesClosed.Done(d, open)
		return cmd, say
	}
	return cmd, nil
}

// onFilesPlan acts on where a download would land (files.Overlay.OnPlan):
// the question whether to replace a local file is brought by an answer,
// so it opens over the pane it was asked from (openFromAnswer). Any other
// outcome is an effect, returned.
func (m *runtimeOps) onFilesPlan(o *files.Overlay, open bool, pm pane.PlanMsg) common.Effect {
	if !open {
		return files.PaneClosed(pm.Target.Runtime, "nothing downloaded")
	}
	e := o.OnPlan(pm, m.cx)
	q, ask := e.(common.Open)
	if !ask {
		return e
	}
	m.scr.openFromAnswer(o, "the question whether to replace "+pm.Plan.Dst, func(now time.Time) bool {
		if x, open := find[*files.Overlay](m.scr); !open || x != o {
			return false
		}
		if g, ok := q.Overlay.(common.Graced); ok {
			g.Regrace(now) // it may have waited for its layer
		}
		m.scr.push(q.Overlay)
		return true
	})
	return nil
}

// interruptDoneMsg answers a kernel interrupt through the proxy.
type interruptDoneMsg struct {
	session, kernel string
	latency         time.Duration
	err             error
}

// interruptOrStop is ctrl+c while console code runs: interrupt the
// session's kernel through the runtime proxy (/api/sessions → kernel →
// /api/kernels/{id}/interrupt); when that cannot be done, offer to stop
// the code by closing the session, as before. The status line says which.
func (m *execOps) interruptOrStop(now time.Time) tea.Cmd {
	p := m.execState.console
	if p == nil {
		return nil
	}
	r := m.execState.running(p.Session())
	if r == nil {
		return nil
	}
	rt := m.cx.Snap.Runtime(p.Runtime())
	if rt == nil || rt.ConnectionInfo == nil || rt.ConnectionInfo.URL == "" || m.link.svc == nil {
		m.askStop(r.session, now)
		return nil
	}
	session := r.session
	open := m.link.jupyterOpener(rt.Name, *rt.ConnectionInfo)
	m.scr.say(now, common.Say{Text: "interrupting the kernel of session " + api.LastSegment(session) + " through the runtime proxy…"})
	start := time.Now()
	return guard(callSpec{what: "kernel interrupt", svc: m.link.svc, parent: m.link.life.ctx, timeout: 30 * time.Second, redact: m.cx.Redact},
		func(ctx context.Context, _ api.Service) tea.Msg {
			c, err := open(ctx)
			if err != nil {
				return interruptDoneMsg{session: session, err: err}
			}
			k, err := c.InterruptSession(ctx, session)
			return interruptDoneMsg{session: session, kernel: k, latency: time.Since(start), err: err}
		},
		func(err error) tea.Msg { return interruptDoneMsg{session: session, err: err} })
}

func (m *execOps) onInterruptDone(msg interruptDoneMsg, now time.Time) tea.Cmd {
	m.scr.recordEvent(now, "kernel interrupt", msg.session, msg.latency, msg.err)
	id := api.LastSegment(msg.session)
	if msg.err == nil {
		m.scr.say(now, common.Say{Text: "interrupted the kernel of session " + id + " through the runtime proxy (the run ends with KeyboardInterrupt; the session and its state stay)"})
		return nil
	}
	m.scr.say(now, common.Say{Text: "could not interrupt session " + id + " through the runtime proxy (" + common.ErrLine(msg.err) + "): stopping it means closing the session", Err: true})
	if m.execState.running(msg.session) != nil {
		// Asked from the console: the offer opens over it.
		m.scr.openFromAnswer(m.execState.console, "the offer to stop the code on session "+id, func(now time.Time) bool {
			return m.askStop(msg.session, now)
		})
	}
	return nil
}

// The dashboard's shell key (keymap Shell, S): the dashboard is
// suspended (tea.Exec) while ui/shell runs the selected runtime's
// terminal in this same terminal, then it comes back as it was: the
// model is not touched while the shell runs, and countdowns are computed
// from the clock, so they are right at once.

// shellDoneMsg is the end of the shell opened on runtime (its name).
type shellDoneMsg struct {
	runtime, id string
	outcome     shell.Outcome
	err         error
}

// shellExec is the shell as a tea.ExecCommand: Bubble Tea releases the
// terminal, calls Run, and takes the terminal back.
type shellExec struct {
	ctx     context.Context
	o       shell.Options
	in      io.Reader
	out     io.Writer
	outcome shell.Outcome
	err     error
}

func (e *shellExec) SetStdin(r io.Reader)  { e.in = r }
func (e *shellExec) SetStdout(w io.Writer) { e.out = w }
func (e *shellExec) SetStderr(io.Writer)   {}

// Run runs the shell on the program's own terminal (os.Stdin/os.Stdout
// when Bubble Tea's streams are not files).
func (e *shellExec) Run() error {
	e.o.In, e.o.Out = os.Stdin, os.Stdout
	if f, ok := e.in.(*os.File); ok {
		e.o.In = f
	}
	if f, ok := e.out.(*os.File); ok {
		e.o.Out = f
	}
	e.outcome, e.err = shell.Run(e.ctx, e.o)
	return e.err
}

// openShell suspends the dashboard for a shell on the selected runtime.
func (m *runtimeOps) openShell(now time.Time) tea.Cmd {
	sel := m.reachableSelection(now, "no shell can be opened")
	if sel == nil {
		return nil
	}
	if m.link.svc == nil {
		m.scr.say(now, common.Say{Text: errNoService.Error(), Err: true})
		return nil
	}
	// Building the client does no I/O; the shell renews the token itself.
	name, svc := sel.Name, m.link.svc
	t, err := ops.Shell(svc, name, *sel.ConnectionInfo, ops.JupyterOptions{Now: m.opts.Now})
	if err != nil {
		m.scr.say(now, common.Say{Text: "shell on " + sel.ID() + ": " + common.ErrLine(err), Err: true})
		return nil
	}
	ex := &shellExec{ctx: m.link.life.ctx, o: shell.Options{Runtime: termtext.Cut(sel.ID(), 63), Client: t.Client, Redact: m.cx.Redact,
		Listed: t.Listed}}
	id := sel.ID()
	return m.link.life.term.Exec(ex, func(error) tea.Msg { return shellDoneMsg{runtime: name, id: id, outcome: ex.outcome, err: ex.err} })
}

// onShellDone says in the status line how the shell ended.
func (m *runtimeOps) onShellDone(msg shellDoneMsg, now time.Time) tea.Cmd {
	what := "shell on " + termtext.Line(msg.id) + ": "
	switch msg.outcome {
	case shell.Exited:
		m.scr.say(now, common.Say{Text: what + "exited"})
	case shell.Detached:
		m.scr.say(now, common.Say{Text: what + "detached"})
	case shell.Interrupted:
		m.scr.say(now, common.Say{Text: what + "interrupted"})
	case shell.Reclaimed:
		m.scr.say(now, common.Say{Text: what + "the runtime is gone (deleted elsewhere or reclaimed)", Err: true})
	default:
		m.scr.say(now, common.Say{Text: what + "connection lost: " + common.ErrLine(msg.err), Err: true})
	}
	if msg.err != nil {
		m.scr.recordEvent(now, "shell", msg.runtime, 0, msg.err)
	}
	// The terminal may have been resized meanwhile: ask for the size again.
	return tea.WindowSize()
}
