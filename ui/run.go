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
// Bubble Tea, which leaves the alternate screen, shows the cursor and
// restores echo/cooked mode before printing the panic and stack; Run then
// returns an error wrapping ErrPanicked (exit non-zero). The dashboard's own
// API commands recover panics themselves and show them as call errors, so
// the program keeps running. Goroutines started outside Bubble Tea must
// recover on their own (the dashboard starts none). extra options are appended to
// tea.WithAltScreen() and tea.WithFPS(renderFPS).
func Run(model tea.Model, extra ...tea.ProgramOption) (tea.Model, error) {
	p := tea.NewProgram(model, programOptions(extra...)...)
	stop := onHangup(p.Kill)
	final, err := p.Run()
	if stop() {
		return final, ErrHangup
	}
	if errors.Is(err, tea.ErrProgramPanic) {
		return final, fmt.Errorf("%w: %w", ErrPanicked, err)
	}
	return final, err
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

// renderFPS is the most frames per second the terminal is redrawn. The
// dashboard changes once a second (countdowns) or on a key; Bubble Tea's
// default of 60 woke the renderer 60 times a second and cost about 0.7 %
// of a core while idle (BenchmarkIdleCPU), 20 keeps a key's echo under
// 50 ms.
const renderFPS = 20

// programOptions are Run's Bubble Tea options: the alternate screen, the
// frame rate, then extra.
func programOptions(extra ...tea.ProgramOption) []tea.ProgramOption {
	return append([]tea.ProgramOption{tea.WithAltScreen(), tea.WithFPS(renderFPS)}, extra...)
}

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
