// Package kit is what every colabdash command shares: the global flags
// (Globals) and the settings loaded for them, the standard streams
// (Streams), the exit codes and ExitError, the connection to the Colab
// API (Connect, Classify), command lines to paste (CommandLine and its
// quoting), runtime and session arguments, the one door for human output
// (Verb.Say and Verb.Note: termtext and the redactor) and for JSON
// (Verb.WriteJSON), prompts, shell completion and signals.
package kit

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"sync"

	"github.com/charmbracelet/lipgloss"
	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/termtext"
	"github.com/colabdash/colabdash/ui/theme"
	"github.com/muesli/termenv"
)

// Streams are the standard streams a command sees, and whether each is a
// terminal: human output, prompts and the token guard depend on it.
type Streams struct {
	In                    io.Reader
	Out, Err              io.Writer
	InTTY, OutTTY, ErrTTY bool
	// Interrupts subscribes to SIGINT, SIGTERM and SIGHUP until the
	// returned stop is called (exec's stop-or-detach).
	Interrupts func() (<-chan os.Signal, func())
	// Signals records the signals that arrived, for the exit code (set by
	// ui/cli's runStreamsContext; nil in a verb's own tests).
	Signals *SignalState
	// Listen opens forward's listener; nil is net.Listen (tests hand
	// forward a listener that fails).
	Listen func(network, address string) (net.Listener, error)

	json   *JSONState      // --json and --jq of this run (JSON)
	red    *api.Redactor   // what Out and Err pass (Protect); nil before
	rawOut io.Writer       // Out without the redactor (Revealed)
	ctx    context.Context // the run's: its end (a signal) stops a --jq filter; nil: never ends
}

// SetContext makes ctx the run's context: its end (ctrl+c, SIGTERM,
// SIGHUP) stops a --jq filter that is running.
func (s *Streams) SetContext(ctx context.Context) { s.ctx = ctx }

// Verb is what every scriptable verb shares: the global flags (profile,
// redactor), the streams, --json and the colours.
type Verb struct {
	Mu     sync.Mutex // serialises stderr: exec writes from two goroutines
	G      *Globals   // the global flags and the settings loaded for them
	S      *Streams   // where the command reads and writes
	name   string     // the command path after "colabdash", e.g. "session close"
	AsJSON bool       // --json
	// WroteJSON is set once WriteJSON printed a document (the file verbs
	// print one on failure only when none was printed yet).
	WroteJSON bool

	inMu    sync.Mutex
	pending chan lineRead // the stdin read in flight, abandoned by a cancelled ask
}

// lineRead is one line read from stdin, or why none was.
type lineRead struct {
	line string
	err  error
}

// NewVerb is the shared state of the command at path name (after "colabdash").
func NewVerb(g *Globals, s *Streams, name string) *Verb { return &Verb{G: g, S: s, name: name} }

// Red is the redactor every secret the process learns is registered with.
func (v *Verb) Red() *api.Redactor { return v.G.Logs.Red }

// ColorOn reports whether a stream that is a terminal when tty draws
// colour: --color, then CLICOLOR_FORCE, NO_COLOR and CLICOLOR
// (theme.ColorOn, gh's rules).
func (v *Verb) ColorOn(tty bool) bool {
	mode := ""
	if v.G != nil {
		mode = v.G.Color
	}
	return theme.ColorOn(mode, tty, os.Getenv)
}

// Style returns a renderer for w: colour only when ColorOn(tty) (by
// default on a terminal and without NO_COLOR or CLICOLOR=0).
func (v *Verb) Style(w io.Writer, tty bool) *lipgloss.Renderer {
	r := lipgloss.NewRenderer(w)
	if !v.ColorOn(tty) {
		r.SetColorProfile(termenv.Ascii)
	} else {
		r.SetColorProfile(termenv.ANSI)
	}
	return r
}

// Say writes one human line to stdout, through termtext (the one door to
// the terminal for text from outside) and the redactor. Pieces of server
// text in it are cut to their column by the caller (termtext.Cut).
func (v *Verb) Say(line string) {
	v.SayStyled(nil, line)
}

// SayStyled is say with the line styled by st (nil: plain) after it was
// made safe.
func (v *Verb) SayStyled(st *lipgloss.Style, line string) {
	line = termtext.Line(v.Red().Redact(line))
	if st != nil {
		line = st.Render(line)
	}
	v.Mu.Lock()
	defer v.Mu.Unlock()
	fmt.Fprintln(v.S.Out, line)
}

// Note writes "colabdash: <verb>: line" to stderr, like say.
func (v *Verb) Note(line string) {
	v.Mu.Lock()
	defer v.Mu.Unlock()
	fmt.Fprintln(v.S.Err, termtext.Line(v.Red().Redact("colabdash: "+v.name+": "+line)))
}

// WriteJSON prints doc as indented JSON and a newline on stdout, or what
// --jq makes of it (a --jq runtime error: exit code 2). Values are
// byte-exact; the C1 controls and bidirectional controls, which JSON
// allows raw inside strings, are written as \u escapes (the same value,
// termtext.JSON), so no JSON document can drive a terminal it is printed on.
//
// Like everything on stdout it passes the redactor, and a --jq filter
// sees the document's strings already redacted.
func (v *Verb) WriteJSON(doc any) error { return v.writeJSON(v.S.Out, v.S.red, doc) }

// WriteJSONRevealed is WriteJSON without the redactor, for a document
// whose purpose is a secret the user asked for (token --json, status
// --json --show-tokens).
func (v *Verb) WriteJSONRevealed(doc any) error { return v.writeJSON(v.S.Revealed(), nil, doc) }

func (v *Verb) writeJSON(w io.Writer, red *api.Redactor, doc any) error {
	st := v.S.JSON()
	was := st.Written
	st.Written = false
	err := writeDoc(v.S.ctx, w, v.S.OutTTY, st, doc, red)
	v.WroteJSON = v.WroteJSON || st.Written
	st.Written = was || st.Written
	return err
}

// Connect opens the profile's connection; the caller closes it.
func (v *Verb) Connect(ctx context.Context) (*Connection, error) {
	conn, err := Connect(ctx, *v.G)
	if err != nil {
		return nil, Classify(err, nil)
	}
	return conn, nil
}

// CanPrompt reports whether a question can be asked and answered: stdin
// and stderr (where the question goes) are both terminals.
func (v *Verb) CanPrompt() bool { return v.S.InTTY && v.S.ErrTTY }

// Ask writes question to stderr and reads one line (at most 1 KiB) from
// stdin; it returns the line without surrounding blanks, and ok false on
// EOF or a read error (which count as no). When ctx ends first (ctrl+c,
// SIGTERM) it returns at once with err ctx.Err(), the cursor moved to a
// new line so what follows does not run on after the question and "^C".
func (v *Verb) Ask(ctx context.Context, question string) (answer string, ok bool, err error) {
	v.Mu.Lock()
	fmt.Fprint(v.S.Err, termtext.Block(v.Red().Redact(question)))
	v.Mu.Unlock()
	line, rerr := v.ReadLine(ctx)
	if rerr != nil && line == "" {
		v.Mu.Lock()
		fmt.Fprintln(v.S.Err)
		v.Mu.Unlock()
		if ctx.Err() != nil {
			return "", false, ctx.Err()
		}
		return "", false, nil
	}
	return strings.TrimSpace(line), true, nil
}

// ReadLine reads one line (at most 1 KiB) from stdin. The read runs in a
// goroutine, so ctx's end returns at once with ctx.Err(): a read from a
// terminal, or from a pipe nobody writes to, never returns by itself,
// and would keep ctrl+c from ending the process. A read abandoned that
// way is not lost: the next readLine takes its line.
func (v *Verb) ReadLine(ctx context.Context) (string, error) {
	v.inMu.Lock()
	if v.pending == nil {
		ch := make(chan lineRead, 1)
		v.pending = ch
		in := v.S.In
		go func() {
			line, err := bufio.NewReaderSize(io.LimitReader(in, 1024), 1024).ReadString('\n')
			ch <- lineRead{line, err}
		}()
	}
	ch := v.pending
	v.inMu.Unlock()
	select {
	case r := <-ch:
		v.inMu.Lock()
		v.pending = nil
		v.inMu.Unlock()
		return r.line, r.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Confirm asks question and reports whether the answer is want, as
// Confirms reads it (for want "y": y or yes in any case; Enter, EOF and
// everything else are no). Every yes/no question of the verbs is read
// here. When ctx ends while it waits (ctrl+c,
// SIGTERM) the error is exit code 130 saying that what was asked was
// not done ("delete interrupted; nothing was deleted" for undone "nothing
// was deleted").
func (v *Verb) Confirm(ctx context.Context, question, want, undone string) (bool, error) {
	a, ok, err := v.Ask(ctx, question)
	if err != nil {
		return false, &ExitError{Code: ExitInterrupted, Msg: v.name + " interrupted; " + undone}
	}
	return ok && Confirms(a, want), nil
}

// Confirms reports whether answer (a line, spaces around it ignored)
// gives want: for want "y", y or yes in any case; a word asked for in so
// many words ("close") must be that word, in any case.
func Confirms(answer, want string) bool {
	a := strings.TrimSpace(answer)
	if strings.EqualFold(a, want) {
		return true
	}
	return want == "y" && strings.EqualFold(a, "yes")
}

// OSStreams are the process's streams with stdout and stderr replaced by
// the writers Run was given.
func OSStreams(stdout, stderr io.Writer) *Streams {
	isTTY := func(w any) bool { f, ok := w.(*os.File); return ok && IsTerminal(f) }
	return &Streams{In: os.Stdin, Out: stdout, Err: stderr,
		InTTY: IsTerminal(os.Stdin), OutTTY: isTTY(stdout), ErrTTY: isTTY(stderr),
		Interrupts: func() (<-chan os.Signal, func()) {
			ch := make(chan os.Signal, 2)
			signal.Notify(ch, watchedSignals()...)
			return ch, func() { signal.Stop(ch) }
		}}
}
