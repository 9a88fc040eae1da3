package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui"
	"github.com/colabdash/colabdash/ui/termtext"
)

// streams are the standard streams a command sees, and whether each is a
// terminal: human output, prompts and the token guard depend on it.
type streams struct {
	in                    io.Reader
	out, err              io.Writer
	inTTY, outTTY, errTTY bool
	// interrupts subscribes to SIGINT, SIGTERM and SIGHUP until the
	// returned stop is called (exec's stop-or-detach).
	interrupts func() (<-chan os.Signal, func())
	// signals records the signals that arrived, for the exit code (set by
	// runStreamsContext; nil in a verb's own tests).
	signals *signalState
}

// osStreams are the process's streams with stdout and stderr replaced by
// the writers Run was given.
func osStreams(stdout, stderr io.Writer) *streams {
	isTTY := func(w any) bool { f, ok := w.(*os.File); return ok && ui.IsTerminal(f) }
	return &streams{in: os.Stdin, out: stdout, err: stderr,
		inTTY: ui.IsTerminal(os.Stdin), outTTY: isTTY(stdout), errTTY: isTTY(stderr),
		interrupts: func() (<-chan os.Signal, func()) {
			ch := make(chan os.Signal, 2)
			signal.Notify(ch, watchedSignals()...)
			return ch, func() { signal.Stop(ch) }
		}}
}

// Exit codes the scriptable verbs add to exitOK, exitUsage,
// exitCredential and exitAPI.
const (
	// exitPartial: exec's code raised an exception, or some of several
	// targets (delete, session close) failed while others succeeded.
	exitPartial = 1
	// exitQuota: a usage quota, a rate limit, too many active runtimes,
	// an account refused runtimes, or a runtimeSpec the account is not
	// eligible for.
	exitQuota = 5
	// exitInterrupted: ctrl+c, SIGTERM or SIGHUP ended the command. The
	// process exits 128 + the signal's number (signalState.exitCode): 130
	// for SIGINT, as here, 143 for SIGTERM, 129 for SIGHUP.
	exitInterrupted = 130
)

// verb is what every scriptable verb shares: the global flags (profile,
// redactor), the streams, --json and the colours.
type verb struct {
	mu     sync.Mutex // serialises stderr: exec writes from two goroutines
	g      *globalFlags
	s      *streams
	name   string // the command path after "colabdash", e.g. "session close"
	asJSON bool
	// wroteJSON is set once writeJSON printed a document (the file verbs
	// print one on failure only when none was printed yet).
	wroteJSON bool

	inMu    sync.Mutex
	pending chan lineRead // the stdin read in flight, abandoned by a cancelled ask
}

// lineRead is one line read from stdin, or why none was.
type lineRead struct {
	line string
	err  error
}

func newVerb(g *globalFlags, s *streams, name string) *verb { return &verb{g: g, s: s, name: name} }

// red is the redactor every secret the process learns is registered with.
func (v *verb) red() *api.Redactor { return v.g.logs.red }

// style returns a renderer for w: colour only on a terminal and without
// NO_COLOR (https://no-color.org).
func (v *verb) style(w io.Writer, tty bool) *lipgloss.Renderer {
	r := lipgloss.NewRenderer(w)
	if !tty || ui.NoColorFromEnv() {
		r.SetColorProfile(termenv.Ascii)
	} else {
		r.SetColorProfile(termenv.ANSI)
	}
	return r
}

// say writes one human line to stdout, through termtext (the one door to
// the terminal for text from outside) and the redactor. Pieces of server
// text in it are cut to their column by the caller (termtext.Cut).
func (v *verb) say(line string) {
	v.sayStyled(nil, line)
}

// sayStyled is say with the line styled by st (nil: plain) after it was
// made safe.
func (v *verb) sayStyled(st *lipgloss.Style, line string) {
	line = termtext.Line(v.red().Redact(line))
	if st != nil {
		line = st.Render(line)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	fmt.Fprintln(v.s.out, line)
}

// note writes "colabdash: <verb>: line" to stderr, like say.
func (v *verb) note(line string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	fmt.Fprintln(v.s.err, termtext.Line(v.red().Redact("colabdash: "+v.name+": "+line)))
}

// writeJSON prints doc as indented JSON and a newline on stdout. Values are
// byte-exact; the C1 controls and bidirectional controls, which JSON
// allows raw inside strings, are written as \u escapes (the same value,
// termtext.JSON), so no JSON document can drive a terminal it is printed on.
func (v *verb) writeJSON(doc any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return &exitError{exitFailure, "encoding JSON: " + err.Error()}
	}
	v.wroteJSON = true
	if _, err := v.s.out.Write(termtext.JSON(buf.Bytes())); err != nil {
		return &exitError{exitFailure, "writing JSON: " + err.Error()}
	}
	return nil
}

// connect opens the profile's connection; the caller closes it.
func (v *verb) connect(ctx context.Context) (*connection, error) {
	conn, err := connect(ctx, *v.g)
	if err != nil {
		return nil, classify(err, nil)
	}
	return conn, nil
}

// canPrompt reports whether a question can be asked and answered: stdin
// and stderr (where the question goes) are both terminals.
func (v *verb) canPrompt() bool { return v.s.inTTY && v.s.errTTY }

// ask writes question to stderr and reads one line (at most 1 KiB) from
// stdin; it returns the line without surrounding blanks, and ok false on
// EOF or a read error (which count as no). When ctx ends first (ctrl+c,
// SIGTERM) it returns at once with err ctx.Err(), the cursor moved to a
// new line so what follows does not run on after the question and "^C".
func (v *verb) ask(ctx context.Context, question string) (answer string, ok bool, err error) {
	v.mu.Lock()
	fmt.Fprint(v.s.err, termtext.Block(v.red().Redact(question)))
	v.mu.Unlock()
	line, rerr := v.readLine(ctx)
	if rerr != nil && line == "" {
		v.mu.Lock()
		fmt.Fprintln(v.s.err)
		v.mu.Unlock()
		if ctx.Err() != nil {
			return "", false, ctx.Err()
		}
		return "", false, nil
	}
	return strings.TrimSpace(line), true, nil
}

// readLine reads one line (at most 1 KiB) from stdin. The read runs in a
// goroutine, so ctx's end returns at once with ctx.Err(): a read from a
// terminal, or from a pipe nobody writes to, never returns by itself,
// and would keep ctrl+c from ending the process. A read abandoned that
// way is not lost: the next readLine takes its line.
func (v *verb) readLine(ctx context.Context) (string, error) {
	v.inMu.Lock()
	if v.pending == nil {
		ch := make(chan lineRead, 1)
		v.pending = ch
		in := v.s.in
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

// confirm asks question and reports whether the answer is exactly want
// ("y" for a yes: like the dashboard, only y confirms; Enter, "yes", "Y",
// EOF and everything else are no). When ctx ends while it waits (ctrl+c,
// SIGTERM) the error is exit code 130 saying that what was asked was
// not done ("delete interrupted; nothing was deleted" for undone "nothing
// was deleted").
func (v *verb) confirm(ctx context.Context, question, want, undone string) (bool, error) {
	a, ok, err := v.ask(ctx, question)
	if err != nil {
		return false, &exitError{exitInterrupted, v.name + " interrupted; " + undone}
	}
	return ok && a == want, nil
}

// --- runtime and session arguments ---

// resolveRuntime finds the runtime arg names among the listed runtimes:
// "rt-abc", "runtimes/rt-abc", or a prefix of exactly one runtime id.
// Errors (exit code 2) name the live runtimes, or the ones a prefix
// matches.
func resolveRuntime(rts []api.Runtime, arg string) (api.Runtime, error) {
	rt, _, err := lookupRuntime(rts, arg)
	if err != nil {
		return api.Runtime{}, err
	}
	return rt, nil
}

// lookupRuntime is resolveRuntime telling apart an argument that matches
// no runtime (missing true) from an ambiguous or empty one.
func lookupRuntime(rts []api.Runtime, arg string) (rt api.Runtime, missing bool, err *exitError) {
	id := strings.TrimPrefix(strings.TrimSpace(arg), "runtimes/")
	if id == "" {
		return api.Runtime{}, false, &exitError{exitUsage, "empty runtime argument"}
	}
	var matches []api.Runtime
	for _, rt := range rts {
		if rt.ID() == id {
			return rt, false, nil
		}
		if strings.HasPrefix(rt.ID(), id) {
			matches = append(matches, rt)
		}
	}
	if len(matches) == 1 {
		return matches[0], false, nil
	}
	if len(matches) > 1 {
		return api.Runtime{}, false, &exitError{exitUsage, fmt.Sprintf("%q matches %d runtimes (%s): give more of the id",
			termtext.Cut(arg, 80), len(matches), runtimeIDs(matches))}
	}
	return api.Runtime{}, true, missingRuntime(arg, rts, rts, 0)
}

// missingRuntime is the error for arg, which names none of all: it lists
// rts as the live runtimes ("no runtime "rt-zz" (live: rt-a, rt-b)"), or
// as the other live ones when the command already targets some (delete
// does not offer the runtimes it deletes: rts is all without them). An id
// or prefix written in upper case gets the lower-case id it would match
// among all, even one the command targets already: runtime ids are lower
// case (RFC 1034).
func missingRuntime(arg string, all, rts []api.Runtime, targeted int) *exitError {
	live := "no runtimes are live"
	if targeted > 0 {
		live = "no other runtimes are live"
	}
	if len(rts) > 0 {
		live = "live: " + runtimeIDs(rts)
		if targeted > 0 {
			live = "other live runtimes: " + runtimeIDs(rts)
		}
	}
	id := strings.TrimPrefix(strings.TrimSpace(arg), "runtimes/")
	if low := strings.ToLower(id); low != id {
		if rt, _, err := lookupRuntime(all, low); err == nil {
			live = "runtime ids are lower case: did you mean " + termtext.Cut(rt.ID(), 63) + "?"
			if !slices.ContainsFunc(rts, func(r api.Runtime) bool { return r.Name == rt.Name }) {
				live += " It is named in this command already"
			}
		}
	}
	return &exitError{exitUsage, fmt.Sprintf("no runtime %q (%s)", termtext.Cut(arg, 80), live)}
}

// runtimeIDs lists runtime ids for a message, sanitized, at most 10.
func runtimeIDs(rts []api.Runtime) string {
	ids := make([]string, 0, len(rts))
	for i, rt := range rts {
		if i == 10 {
			ids = append(ids, fmt.Sprintf("and %d more", len(rts)-10))
			break
		}
		ids = append(ids, termtext.Cut(rt.ID(), 63))
	}
	return strings.Join(ids, ", ")
}

// splitSessionArg splits a session argument, "runtimes/R/sessions/S",
// "R/sessions/S" or "R/S", into its runtime argument R (which
// resolveRuntime reads) and session id S; ok is false for an argument
// that names no session (a runtime).
func splitSessionArg(arg string) (runtime, session string, ok bool) {
	a := strings.TrimPrefix(strings.TrimSpace(arg), "runtimes/")
	if r, s, found := strings.Cut(a, "/sessions/"); found {
		return r, s, r != "" && s != "" && !strings.Contains(s, "/")
	}
	r, s, found := strings.Cut(a, "/")
	return r, s, found && r != "" && s != "" && !strings.Contains(s, "/")
}

// sessionRef is how a session is written as a verb argument, "R/S",
// ready for the terminal: each id through termtext and cut to the 63
// characters RFC 1034 allows (a valid id is never cut).
func sessionRef(name string) string {
	s := api.Session{Name: name}
	return termtext.Cut(api.LastSegment(s.Parent()), 63) + "/" + termtext.Cut(s.ID(), 63)
}

// listRuntimes lists the runtimes; the error is classified.
func listRuntimes(ctx context.Context, conn *connection) ([]api.Runtime, error) {
	rts, err := conn.svc.ListRuntimes(ctx)
	if err != nil {
		return nil, classify(err, conn.creds)
	}
	return rts, nil
}

// connectRuntime connects and resolves arg (rt-abc, runtimes/rt-abc or a
// unique prefix) to one runtime. The caller closes the connection; on
// error there is none to close. Errors are *exitError, as findRuntime's.
func (v *verb) connectRuntime(ctx context.Context, arg string) (*connection, api.Runtime, error) {
	conn, err := v.connect(ctx)
	if err != nil {
		return nil, api.Runtime{}, err
	}
	rt, err := findRuntime(ctx, conn, arg)
	if err != nil {
		conn.close()
		return nil, api.Runtime{}, err
	}
	return conn, rt, nil
}

// findRuntime lists the runtimes and resolves arg among them.
func findRuntime(ctx context.Context, conn *connection, arg string) (api.Runtime, error) {
	rts, err := listRuntimes(ctx, conn)
	if err != nil {
		return api.Runtime{}, err
	}
	return resolveRuntime(rts, arg)
}

// --- outcomes of verbs with several targets ---

// outcomes collects the result of each target of delete or session close
// and gives the exit code: 0 when every target succeeded, 1 when some did
// and some did not, else the first failure's own code.
type outcomes struct {
	ok    int
	first *exitError
}

func (o *outcomes) succeed() { o.ok++ }

func (o *outcomes) fail(e *exitError) {
	if o.first == nil {
		o.first = e
	}
}

// err is the verb's final result; the per-target lines are already out.
func (o *outcomes) err() error {
	switch {
	case o.first == nil:
		return nil
	case o.ok > 0:
		return &exitError{exitPartial, ""}
	}
	return &exitError{o.first.code, ""}
}

// quotaOrIneligible reports whether an API failure is the account's quota
// or limits rather than the network or the server (exit code 5).
func quotaOrIneligible(ae *api.Error) bool {
	return ae.IsQuota() || ae.Code == api.ResourceExhausted ||
		ae.Reason == api.ReasonTooManyActiveRuntimes || ae.Reason == api.ReasonDenylisted
}

// asAPIError returns err's *api.Error, or nil.
func asAPIError(err error) *api.Error {
	var ae *api.Error
	if errors.As(err, &ae) {
		return ae
	}
	return nil
}
