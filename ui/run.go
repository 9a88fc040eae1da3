package ui

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"

	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/paint"
	"github.com/colabdash/colabdash/ui/termtext"
	"github.com/colabdash/colabdash/ui/theme"
	"github.com/colabdash/colabdash/ui/widget/frame"
)

// notATerminalMessage is what to print (on stderr, exiting non-zero) when
// colabdash is started without a subcommand and stdout is not a terminal.
const notATerminalMessage = "colabdash: the dashboard needs a terminal and stdout is not one; " +
	"use `colabdash status` (or `status --json`) in scripts and pipes"

// ErrPanicked is returned by Run when the program panicked; the terminal
// was restored before the panic text was printed.
var ErrPanicked = errors.New("colabdash crashed (internal error); the terminal was restored")

// ErrHangup is returned by Run when the terminal hung up (SIGHUP: the
// window was closed, ssh dropped); the terminal was restored first.
var ErrHangup = errors.New("the terminal hung up (SIGHUP); the terminal was restored")

// Run runs model full-screen (alternate screen) until it quits and returns
// the final model (type-assert it to Model or AuthErrorModel).
//
// SIGINT and SIGTERM end it through Bubble Tea (which restores the
// terminal); SIGHUP, which Bubble Tea does not handle and which would kill
// the process with the terminal still in the alternate screen and the
// cursor hidden, ends it the same way: alternate screen off, cursor shown,
// bracketed paste and mouse modes off, cooked mode back; Run then returns
// ErrHangup. A SIGHUP that was ignored when the process started (nohup)
// stays ignored.
//
// Guarantees: a panic in Init, Update, View or any tea.Cmd is recovered by
// Bubble Tea, after the terminal was given back (alternate screen off,
// cursor shown, echo/cooked mode restored), and the panic and stack are
// printed; Run then returns an error wrapping ErrPanicked (exit non-zero).
// The dashboard's own API commands recover panics themselves and show them
// as call errors, so the program keeps running. Goroutines started outside
// Bubble Tea must recover on their own (the dashboard starts none).
//
// On a Unix terminal the frames are drawn by a paint.Painter, as soon as
// each is ready (a key's redraw follows the key); elsewhere, and when the
// output is not a terminal, by Bubble Tea's renderer at renderFPS frames a
// second. extra options are appended to Run's own.
func Run(model tea.Model, extra ...tea.ProgramOption) (tea.Model, error) {
	var stop func() bool
	final, err := runOn(model, os.Stdin, os.Stdout, func(p *tea.Program) { stop = onHangup(p.Kill) }, extra...)
	if stop != nil && stop() {
		return final, ErrHangup
	}
	if errors.Is(err, tea.ErrProgramPanic) {
		return final, fmt.Errorf("%w: %w", ErrPanicked, err)
	}
	return final, err
}

// runOn runs model full-screen on the terminal in (keys) and out (frames)
// and returns the final model. started, when not nil, is called with the
// program before it runs. Errors: the program's, or the painter's failure
// to take the terminal.
func runOn(model tea.Model, in, out *os.File, started func(*tea.Program), extra ...tea.ProgramOption) (tea.Model, error) {
	painter, tty, done := painterFor(in, out)
	defer done()
	if painter != nil {
		extra = append([]tea.ProgramOption{tea.WithInput(tty), tea.WithOutput(out)}, extra...)
	}
	p := newProgram(model, painter, extra...)
	if started != nil {
		started(p)
	}
	return runProgram(p, painter)
}

// newProgram is the program that runs model: drawn by painter, or by
// Bubble Tea's renderer at renderFPS when painter is nil; a dashboard
// Model opens shells and plugins and suspends through painter. extra
// options come last.
func newProgram(model tea.Model, painter *paint.Painter, extra ...tea.ProgramOption) *tea.Program {
	if m, ok := model.(Model); ok {
		m.life.term = painter
	}
	opts := []tea.ProgramOption{tea.WithAltScreen(), tea.WithFPS(renderFPS)}
	if painter != nil {
		opts = []tea.ProgramOption{tea.WithoutRenderer()}
	}
	return tea.NewProgram(paint.Wrap(model, painter), append(opts, extra...)...)
}

// runProgram starts painter on p's terminal, runs p, stops painter and
// returns the final model as newProgram was given it.
func runProgram(p *tea.Program, painter *paint.Painter) (tea.Model, error) {
	if err := painter.Start(p.Send); err != nil {
		return nil, fmt.Errorf("the terminal: %w", err)
	}
	final, err := p.Run()
	painter.Stop()
	return paint.Unwrap(final), err
}

// painterFor returns the Painter for the terminal in/out (nil where
// Bubble Tea's renderer draws: see Run), the input to read keys from
// (the controlling terminal when in is not one, as Bubble Tea does), and
// what to call at the end.
func painterFor(in, out *os.File) (*paint.Painter, *os.File, func()) {
	if !paint.Supported || !isTerminal(out) {
		return nil, in, func() {}
	}
	if isTerminal(in) {
		return paint.New(in, out), in, func() {}
	}
	tty, err := os.Open("/dev/tty")
	if err != nil {
		return nil, in, func() {}
	}
	return paint.New(tty, out), tty, func() { _ = tty.Close() }
}

// onHangup calls kill (once) when the process gets SIGHUP, until stop is
// called; stop reports whether it did. Bubble Tea's Kill restores the
// terminal before Run returns.
func onHangup(kill func()) (stop func() (hungUp bool)) {
	if signal.Ignored(syscall.SIGHUP) {
		return func() bool { return false }
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGHUP)
	done := make(chan struct{})
	var hung atomic.Bool
	go func() {
		select {
		case <-ch:
			hung.Store(true)
			kill()
		case <-done:
		}
	}()
	return func() bool {
		signal.Stop(ch)
		close(done)
		return hung.Load()
	}
}

// renderFPS is the most frames per second Bubble Tea's renderer redraws
// the terminal where it draws (see Run). The dashboard changes once a
// second (countdowns) or on a key; Bubble Tea's default of 60 woke the
// renderer 60 times a second and cost about 0.7 % of a core while idle
// (BenchmarkIdleCPU), 20 keeps a key's echo under 50 ms.
const renderFPS = 20

// AuthErrorInfo describes a failure to find usable Google credentials, for
// the no-credentials screen.
type AuthErrorInfo struct {
	// Headline is one line, e.g. "No Google credentials found".
	Headline string
	// Tried lists what was tried, one item each (e.g.
	// "GOOGLE_APPLICATION_CREDENTIALS: not set",
	// "~/.config/gcloud/application_default_credentials.json: not found").
	Tried []string
	// Fix lists the steps that fix it, one per line. A line that starts
	// with a space is a command (or its continuation): the screen never
	// breaks it across lines; other lines are prose and wrap at spaces.
	Fix []string
	// Err is the underlying error, shown on one line (may be nil).
	Err error
	// Keymap (default keymap.Default()): Demo continues in demo mode, Quit
	// and Back quit.
	Keymap *keymap.KeyMap
	// NoColor renders without escape codes.
	NoColor bool
}

// AuthErrorModel is the no-credentials screen: what was tried and how to
// fix it, instead of a crash. Pressing the demo key ("d") quits with
// WantsDemo() true so the caller can start the dashboard on the emulator.
type AuthErrorModel struct {
	info          AuthErrorInfo
	st            *theme.Styles
	width, height int
	demo          bool
}

// NewAuthError builds the no-credentials screen.
func NewAuthError(info AuthErrorInfo) AuthErrorModel {
	if info.Keymap == nil {
		info.Keymap = keymap.Default()
	}
	if info.Headline == "" {
		info.Headline = "No usable Google credentials"
	}
	return AuthErrorModel{info: info, st: theme.New(info.NoColor, theme.Dark)}
}

// WantsDemo reports whether the user chose to continue in demo mode.
func (m AuthErrorModel) WantsDemo() bool { return m.demo }

// Init does nothing.
func (m AuthErrorModel) Init() tea.Cmd { return nil }

// Update handles the demo and quit keys and window sizes.
func (m AuthErrorModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.KeyMsg:
		k := m.info.Keymap.Setup
		switch {
		case key.Matches(msg, k.Demo):
			m.demo = true
			return m, tea.Quit
		case key.Matches(msg, k.Quit), key.Matches(msg, k.Back):
			return m, tea.Quit
		}
	}
	return m, nil
}

// View renders the screen in the terminal's width. Prose wraps at spaces
// only; a Fix line that starts with a space is a command (or its
// continuation) and is never broken across lines: a command, path or URL
// wider than the screen is cut with "…", and the screen says that q
// prints it whole.
func (m AuthErrorModel) View() string {
	w := m.width
	if w <= 0 {
		w = 80
	}
	type authLine struct {
		text  string
		whole bool // a command: cut, never wrapped
	}
	var ls []authLine
	add := func(s string) { ls = append(ls, authLine{text: s}) }
	k := m.info.Keymap.Setup
	// The keys come right under the headline so they stay on screen at the
	// smallest size; the details follow. The headline, what was tried and
	// the fix quote files and the environment: termtext.Line makes them
	// inert.
	add(m.st.ErrText.Render("✕ " + termtext.Line(m.info.Headline)))
	add(m.st.Bold.Render(k.Demo.Help().Key) + " continue in demo mode (embedded emulator) · " +
		m.st.Bold.Render(k.Quit.Help().Key) + " quit (the fix is printed again on quit)")
	add("")
	if m.info.Err != nil {
		add(common.ErrLine(m.info.Err))
		add("")
	}
	if len(m.info.Tried) > 0 {
		add(m.st.Bold.Render("Tried:"))
		for _, t := range m.info.Tried {
			add("  • " + termtext.Line(t))
		}
		add("")
	}
	if len(m.info.Fix) > 0 {
		add(m.st.Bold.Render("To fix:"))
		for _, f := range m.info.Fix {
			ls = append(ls, authLine{text: "  " + termtext.Line(f), whole: strings.HasPrefix(f, " ")})
		}
	}
	var lines []string
	cut := false
	for _, l := range ls {
		if l.whole {
			if ansi.StringWidth(l.text) > w {
				cut = true
			}
			lines = append(lines, ansi.Truncate(l.text, w, "…"))
			continue
		}
		// Continuation lines keep the line's indent (and its bullet's).
		plain := ansi.Strip(l.text)
		indent := len(plain) - len(strings.TrimLeft(plain, " "))
		if strings.HasPrefix(plain[indent:], "• ") {
			indent += 2
		}
		if indent > w/2 {
			indent = 0
		}
		for i, ln := range strings.Split(frame.Wrap(l.text, w-indent), "\n") {
			if i > 0 {
				ln = strings.Repeat(" ", indent) + ln
			}
			lines = append(lines, ansi.Truncate(strings.TrimRight(ln, " "), w, "…"))
		}
	}
	if cut {
		quit := "q"
		if ks := k.Quit.Keys(); len(ks) > 0 {
			quit = common.KeyName(ks[0])
		}
		lines = append(lines, m.st.Dim.Render(ansi.Truncate("(a command is cut at this width: "+quit+" prints it whole)", w, "…")))
	}
	if m.height > 0 && len(lines) > m.height {
		lines = lines[:m.height]
	}
	return termtext.Frame(strings.Join(lines, "\n"))
}

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool { return f != nil && term.IsTerminal(f.Fd()) }
