package paint

import (
	"io"
	"os/exec"

	tea "github.com/charmbracelet/bubbletea"
)

// Wrap returns m drawn by p (m itself when p is nil): each View goes to
// p.Frame, and the program's own renderer gets nothing; a tea.ResumeMsg
// (the program is back from ctrl+z) takes the terminal again; a panic in
// Init, Update or View gives the terminal back (Release) before Bubble Tea
// prints the panic, so the text lands on the main screen and stays.
// Unwrap returns m from the program's final model.
func Wrap(m tea.Model, p *Painter) tea.Model {
	if p == nil {
		return m
	}
	return model{m: m, p: p}
}

// Unwrap returns the model Wrap was given (m itself when it is not a
// wrapped one).
func Unwrap(m tea.Model) tea.Model {
	if w, ok := m.(model); ok {
		return w.m
	}
	return m
}

// model is a tea.Model drawn by a Painter.
type model struct {
	m tea.Model
	p *Painter
}

func (w model) Init() tea.Cmd {
	defer w.onPanic()
	return w.guard(w.m.Init())
}

func (w model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	defer w.onPanic()
	m, cmd := w.m.Update(msg)
	w.m = m
	if _, ok := msg.(tea.ResumeMsg); ok {
		p := w.p
		cmd = tea.Batch(func() tea.Msg { _ = p.Restore(); return nil }, cmd)
	}
	return w, w.guard(cmd)
}

func (w model) View() string {
	defer w.onPanic()
	w.p.Frame(w.m.View())
	return ""
}

// guard returns cmd releasing the terminal if it panics (Bubble Tea
// recovers the panic and prints it), and the commands of a tea.Batch it
// returns likewise.
func (w model) guard(cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() tea.Msg {
		defer w.onPanic()
		msg := cmd()
		if b, ok := msg.(tea.BatchMsg); ok {
			for i := range b {
				b[i] = w.guard(b[i])
			}
		}
		return msg
	}
}

// onPanic, deferred, releases the terminal when the call panics and lets
// the panic go on.
func (w model) onPanic() {
	if r := recover(); r != nil {
		w.p.Release()
		panic(r)
	}
}

// Exec is tea.Exec(c, fn) with the terminal released while c runs and
// taken again after it: the command for a program that uses the terminal
// (a shell, an editor). A nil Painter: tea.Exec itself.
func (p *Painter) Exec(c tea.ExecCommand, fn tea.ExecCallback) tea.Cmd {
	if p == nil {
		return tea.Exec(c, fn)
	}
	return tea.Exec(around{ExecCommand: c, p: p}, fn)
}

// ExecProcess is Exec for an operating-system process, as
// tea.ExecProcess: the process gets the program's terminal as its stdin,
// stdout and stderr unless c sets them.
func (p *Painter) ExecProcess(c *exec.Cmd, fn tea.ExecCallback) tea.Cmd {
	if p == nil {
		return tea.ExecProcess(c, fn)
	}
	return p.Exec(process{c}, fn)
}

// Suspend is tea.Suspend (ctrl+z: the shell gets the terminal until fg)
// with the terminal released first; Wrap takes it again on the
// tea.ResumeMsg that follows fg.
func (p *Painter) Suspend() tea.Cmd {
	if p == nil {
		return tea.Suspend
	}
	return tea.Sequence(func() tea.Msg { p.Release(); return nil }, tea.Suspend)
}

// around runs an ExecCommand with the terminal released.
type around struct {
	tea.ExecCommand
	p *Painter
}

func (a around) Run() error {
	a.p.Release()
	err := a.ExecCommand.Run()
	if rerr := a.p.Restore(); err == nil {
		err = rerr
	}
	return err
}

// process is an *exec.Cmd as a tea.ExecCommand.
type process struct{ c *exec.Cmd }

func (x process) Run() error { return x.c.Run() }

func (x process) SetStdin(r io.Reader) {
	if x.c.Stdin == nil {
		x.c.Stdin = r
	}
}

func (x process) SetStdout(w io.Writer) {
	if x.c.Stdout == nil {
		x.c.Stdout = w
	}
}

func (x process) SetStderr(w io.Writer) {
	if x.c.Stderr == nil {
		x.c.Stderr = w
	}
}
