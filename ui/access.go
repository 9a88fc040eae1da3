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
// ui/overlay/files (its state machine ui/overlay/files/pane); this file
// opens it with the runtime's Jupyter client opener, routes its messages
// and hands it its dialogs' answers (filesask.go builds the dialogs).

// openFiles is f: the files pane of the selected runtime, through its
// current connectionInfo (renewed with get_runtime when a transfer
// outlives it).
func (m *runtimeOps) openFiles(now time.Time) tea.Cmd {
	sel := m.ops.reachableSelection(now, "its files cannot be reached")
	if sel == nil {
		return nil
	}
	// Under m.life.ctx: quitting ends its calls; a profile switch closes it.
	p := pane.New(m.life.ctx, sel.ID(), m.ops.jupyterOpener(sel.Name, *sel.ConnectionInfo), m.cx.Now)
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
		m.scr.setStatus(now, "no runtime selected", true)
	case sel.Gone():
		m.scr.setStatusAbout(now, sel.Name, m.ops.goneText(sel, now), true)
	case sel.ConnectionInfo == nil || sel.ConnectionInfo.URL == "":
		m.scr.setStatusAbout(now, sel.Name, "runtime "+sel.ID()+" has no connectionInfo yet: "+unreachable, true)
	default:
		return sel
	}
	return nil
}

// jupyterOpener builds the Jupyter client of runtime name from ci; the
// token is renewed through get_runtime when needed.
func (m *runtimeOps) jupyterOpener(name string, ci api.ConnectionInfo) pane.Opener {
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
// for the pane on screen.
func (m *runtimeOps) onFilesMsg(msg tea.Msg, now time.Time) tea.Cmd {
	o, open := find[*files.Overlay](m.scr)
	if pm, ok := msg.(pane.PlanMsg); ok {
		return m.ops.onFilesPlan(o, open, pm)
	}
	var cmd tea.Cmd
	mine := false
	if open {
		cmd, mine = o.Pane().Update(msg)
	}
	if pm, ok := msg.(pane.ProgressMsg); ok && !mine {
		// A closed pane's transfer: wait on for its end all the same.
		return pm.Next()
	}
	if d, isDone := msg.(pane.DoneMsg); isDone {
		m.scr.recordEvent(now, "files "+d.Op, "runtimes/"+d.Runtime, d.Elapsed, d.Err)
		if mine {
			m.apply(files.Finished(d))
		} else {
			var say common.Effect
			m.scr.filesClosed, say = m.scr.filesClosed.Done(d, open)
			m.apply(say)
		}
	}
	return cmd
}

// onFilesPlan acts on where a download would land (files.Overlay.OnPlan):
// the question whether to replace a local file is brought by an answer,
// so it opens over the pane it was asked from (openFromAnswer).
func (m *runtimeOps) onFilesPlan(o *files.Overlay, open bool, pm pane.PlanMsg) tea.Cmd {
	if !open {
		return m.apply(files.PaneClosed(pm.Target.Runtime, "nothing downloaded"))
	}
	e := o.OnPlan(pm, m.cx)
	q, ask := e.(common.Open)
	if !ask {
		return m.apply(e)
	}
	m.scr.openFromAnswer(o, "the question whether to replace "+pm.Plan.Dst, func(m *app, now time.Time) bool {
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
	p := m.ex.execState.console
	if p == nil {
		return nil
	}
	r := m.ex.execState.running(p.Session())
	if r == nil {
		return nil
	}
	rt := m.cx.Snap.Runtime(p.Runtime())
	if rt == nil || rt.ConnectionInfo == nil || rt.ConnectionInfo.URL == "" || m.svc == nil {
		m.ex.askStop(r.session, now)
		return nil
	}
	session := r.session
	open := m.ops.jupyterOpener(rt.Name, *rt.ConnectionInfo)
	m.scr.setStatus(now, "interrupting the kernel of session "+api.LastSegment(session)+" through the runtime proxy…", false)
	start := time.Now()
	return guard(callSpec{what: "kernel interrupt", svc: m.svc, parent: m.life.ctx, timeout: 30 * time.Second, redact: m.cx.Redact},
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
		m.scr.setStatus(now, "interrupted the kernel of session "+id+" through the runtime proxy (the run ends with KeyboardInterrupt; the session and its state stay)", false)
		return nil
	}
	m.scr.setStatus(now, "could not interrupt session "+id+" through the runtime proxy ("+common.ErrLine(msg.err)+"): stopping it means closing the session", true)
	if m.ex.execState.running(msg.session) != nil {
		// Asked from the console: the offer opens over it.
		m.scr.openFromAnswer(m.ex.execState.console, "the offer to stop the code on session "+id, func(m *app, now time.Time) bool {
			return m.ex.askStop(msg.session, now)
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
	sel := m.ops.reachableSelection(now, "no shell can be opened")
	if sel == nil {
		return nil
	}
	if m.svc == nil {
		m.scr.setStatus(now, errNoService.Error(), true)
		return nil
	}
	// Building the client does no I/O; the shell renews the token itself.
	name, svc := sel.Name, m.svc
	t, err := ops.Shell(svc, name, *sel.ConnectionInfo, ops.JupyterOptions{Now: m.opts.Now})
	if err != nil {
		m.scr.setStatus(now, "shell on "+sel.ID()+": "+common.ErrLine(err), true)
		return nil
	}
	ex := &shellExec{ctx: m.life.ctx, o: shell.Options{Runtime: termtext.Cut(sel.ID(), 63), Client: t.Client, Redact: m.cx.Redact,
		Listed: t.Listed}}
	id := sel.ID()
	return tea.Exec(ex, func(error) tea.Msg { return shellDoneMsg{runtime: name, id: id, outcome: ex.outcome, err: ex.err} })
}

// onShellDone says in the status line how the shell ended.
func (m *runtimeOps) onShellDone(msg shellDoneMsg, now time.Time) tea.Cmd {
	what := "shell on " + termtext.Line(msg.id) + ": "
	switch msg.outcome {
	case shell.Exited:
		m.scr.setStatus(now, what+"exited", false)
	case shell.Detached:
		m.scr.setStatus(now, what+"detached", false)
	case shell.Interrupted:
		m.scr.setStatus(now, what+"interrupted", false)
	case shell.Reclaimed:
		m.scr.setStatus(now, what+"the runtime is gone (reclaimed)", true)
	default:
		m.scr.setStatus(now, what+"connection lost: "+common.ErrLine(msg.err), true)
	}
	if msg.err != nil {
		m.scr.recordEvent(now, "shell", msg.runtime, 0, msg.err)
	}
	// The terminal may have been resized meanwhile: ask for the size again.
	return tea.WindowSize()
}
