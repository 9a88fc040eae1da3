package ui

import (
	"context"
	"io"
	"os"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/shell"
	"github.com/colabdash/colabdash/ui/termtext"
)

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
	jc, err := m.ops.jupyterOpener(sel.Name, *sel.ConnectionInfo)(m.life.ctx)
	if err != nil {
		m.scr.setStatus(now, "shell on "+sel.ID()+": "+common.ErrLine(err), true)
		return nil
	}
	name, svc := sel.Name, m.svc
	ex := &shellExec{ctx: m.life.ctx, o: shell.Options{Runtime: termtext.Cut(sel.ID(), 63), Client: jc, Redact: m.cx.Redact,
		Listed: func(ctx context.Context) (bool, error) {
			rts, err := svc.ListRuntimes(ctx)
			if err != nil {
				return false, err
			}
			for _, rt := range rts {
				if rt.Name == name {
					return true, nil
				}
			}
			return false, nil
		}}}
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
