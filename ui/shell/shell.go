// Package shell runs a runtime's terminal (api/tty) in the local
// terminal: raw mode, restored on every way out (exit, error, signal,
// panic); the size on open and on every SIGWINCH; ssh's "~." detach after
// a newline; the remote output written raw, as ssh does (the one
// documented exception to ui/termtext: the runtime is the user's own
// machine), or without clipboard, title and passthrough sequences
// (FilterOSC, parsed as a terminal parses them: termFilter). When
// the connection closes while the runtime is still listed, it says so
// and offers a reconnect (a new shell, with a fresh token); when the
// runtime is gone, it says it was reclaimed.
//
// `colabdash shell RUNTIME` (ui/cli) and the dashboard's shell key
// (ui, through tea.Exec in the same terminal) both call Run.
package shell

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/muesli/cancelreader"

	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/api/tty"
	"github.com/colabdash/colabdash/ui/termtext"
)

// DetachHint is the escape, as the banner shows it.
const DetachHint = "~. detaches"

// Outcome is how a shell session ended.
type Outcome int

// Outcomes of Run.
const (
	// Exited: the remote shell exited (exit, ctrl+d).
	Exited Outcome = iota
	// Detached: the user typed ~. (or the context ended: Interrupted).
	Detached
	// Lost: the connection closed and was not reconnected, or it could
	// not be opened (the error says why).
	Lost
	// Reclaimed: the runtime is gone (deleted or reclaimed).
	Reclaimed
	// Refused: the runtime proxy refused the (renewed) proxy token.
	Refused
	// Interrupted: a signal (or the caller's context) ended the session,
	// or ctrl+c or ~. was typed before the terminal was connected.
	Interrupted
)

// ctrlC is what ctrl+c types in raw mode (ETX).
const ctrlC = 0x03

// ErrNotTerminal: stdin or stdout is not a terminal.
var ErrNotTerminal = errors.New("a shell needs a terminal on stdin and stdout")

// Options configure Run. Runtime, Client, In and Out are required.
type Options struct {
	// Runtime is the runtime's id, for messages ("rt-abc").
	Runtime string
	// Client is the runtime's Jupyter client (it renews the token).
	Client *jupyter.Client
	// In and Out are the local terminal (both must be terminals).
	In, Out *os.File
	// FilterOSC drops clipboard, title and passthrough sequences (OSC
	// 52, 0/1/2, 1337, ...: the list is termFilter's, in
	// docs/security.md) from the output; everything else passes raw.
	FilterOSC bool
	// Listed reports whether list_runtimes still lists the runtime, after
	// the connection closed. nil: it is taken as listed.
	Listed func(ctx context.Context) (bool, error)
	// Redact cleans the lines colabdash itself prints (errors may quote
	// a server). nil: none.
	Redact func(string) string
	// PingInterval is passed to api/tty (0: its default).
	PingInterval time.Duration
	// Logger gets the terminal's debug records. nil discards.
	Logger *slog.Logger
}

// Run connects to the runtime's terminal and relays it until the remote
// shell exits, the user detaches or declines to reconnect, or ctx ends.
// The local terminal is in raw mode only while it runs. The error says
// why for Lost, Reclaimed and Refused (a *jupyter.Error or a
// *tty.CloseError), else it is nil.
func Run(ctx context.Context, o Options) (out Outcome, err error) {
	if o.In == nil || o.Out == nil || !term.IsTerminal(o.In.Fd()) || !term.IsTerminal(o.Out.Fd()) {
		return Lost, ErrNotTerminal
	}
	if o.Redact == nil {
		o.Redact = func(s string) string { return s }
	}
	fd := o.In.Fd()
	saved, err := term.MakeRaw(fd)
	if err != nil {
		return Lost, fmt.Errorf("raw mode: %w", err)
	}
	var restoreOnce sync.Once
	restore := func() { restoreOnce.Do(func() { _ = term.Restore(fd, saved) }) }
	defer func() {
		if p := recover(); p != nil {
			restore()
			panic(p)
		}
		restore()
	}()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer cancelOnHangup(ctx, cancel)()

	keys, stop, err := readKeys(ctx, o.In)
	if err != nil {
		return Lost, err
	}
	defer func() {
		cancel()
		stop()
	}()
	s := &session{o: o, keys: keys}
	return s.relay(ctx)
}

// cancelOnHangup cancels ctx's run when SIGHUP or SIGTERM arrives (the
// terminal closed, the process told to end), so the terminal is restored
// on the way out. The returned function stops listening.
func cancelOnHangup(ctx context.Context, cancel context.CancelFunc) (stop func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, hangups...)
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-ctx.Done():
		}
	}()
	return func() { signal.Stop(sigs) }
}

// readKeys reads the local terminal in, 4 KiB at most a read, onto the
// returned channel until ctx ends or the read fails. stop (after ctx is
// cancelled) ends the reader and waits for it.
func readKeys(ctx context.Context, f *os.File) (keys chan []byte, stop func(), err error) {
	in, err := cancelreader.NewReader(f)
	if err != nil {
		return nil, nil, err
	}
	keys = make(chan []byte)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		buf := make([]byte, 4096)
		for {
			n, err := in.Read(buf)
			if n > 0 {
				select {
				case keys <- append([]byte(nil), buf[:n]...):
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return keys, func() {
		in.Cancel()
		<-readDone
		in.Close()
	}, nil
}

// relay runs the remote shell, and after a lost connection asks whether
// to reconnect, until the shell exits, the user leaves or ctx ends.
func (s *session) relay(ctx context.Context) (Outcome, error) {
	o := s.o
	s.say("colabdash shell on " + o.Runtime + " · " + DetachHint + " (after a newline) · exit ends the shell")
	for {
		out, err := s.once(ctx)
		if out != Lost || err == nil || ctx.Err() != nil {
			if ctx.Err() != nil && out != Exited {
				s.say("interrupted: disconnected from " + o.Runtime)
				return Interrupted, nil
			}
			return out, err
		}
		var ce *tty.CloseError
		if !errors.As(err, &ce) {
			return out, err // it never connected
		}
		if out, ended := s.stillListed(ctx, err); ended {
			return out, err
		}
		s.say("connection to " + o.Runtime + " closed (" + err.Error() + "); the runtime is still running.")
		s.say("r reconnects (a new shell, with a fresh token); any other key quits")
		select {
		case k := <-s.keys:
			if len(k) == 0 || (k[0] != 'r' && k[0] != 'R') {
				return Lost, err
			}
		case <-ctx.Done():
			return Interrupted, nil
		}
	}
}

// stillListed asks (30 s at most) whether the runtime is still listed
// after its connection closed with err; ended is true, with the outcome,
// when it is gone or that cannot be told, and says so.
func (s *session) stillListed(ctx context.Context, err error) (out Outcome, ended bool) {
	if s.o.Listed == nil {
		return Lost, false
	}
	lctx, lcancel := context.WithTimeout(ctx, 30*time.Second)
	l, lerr := s.o.Listed(lctx)
	lcancel()
	if lerr != nil {
		s.say("connection to " + s.o.Runtime + " closed (" + err.Error() + "); whether the runtime still runs is unknown: " + lerr.Error())
		return Lost, true
	}
	if !l {
		s.say("runtime " + s.o.Runtime + " is gone (reclaimed): its shell ended with it")
		return Reclaimed, true
	}
	return Lost, false
}

// session is one Run: its options and the keys read from the terminal.
type session struct {
	o    Options
	keys chan []byte
	mu   sync.Mutex
}

// say prints one line of colabdash's own (sanitized, redacted) in raw
// mode.
func (s *session) say(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprint(s.o.Out, "\r\n[colabdash] "+termtext.Line(s.o.Redact(line))+"\r\n")
}

// once runs one connection until it ends.
func (s *session) once(ctx context.Context) (Outcome, error) {
	o := s.o
	var w io.Writer = o.Out
	var f *termFilter
	if o.FilterOSC {
		f = newTermFilter(o.Out)
		w = f
	}
	cols, rows, _ := term.GetSize(o.Out.Fd())
	t := tty.Open(ctx, tty.Options{Client: o.Client, Output: w, Cols: cols, Rows: rows, PingInterval: o.PingInterval,
		Logger: o.Logger, OnInvalidInput: func() {
			s.say("input that is not UTF-8 was sent as U+FFFD (a terminal takes text, not binary)")
		}})
	// finish ends the connection and its output before colabdash says
	// anything: a sequence the shell left open must not swallow the line.
	finish := func() {
		t.Close()
		if f != nil {
			_ = f.End()
		}
	}
	defer finish()
	winch := make(chan os.Signal, 1)
	stop := notifyResize(winch)
	defer stop()
	var d detacher
	connected := t.Connected() // nil once it is
	for {
		select {
		case <-connected:
			connected = nil
		case <-t.Done():
			finish()
			return s.ended(t)
		case <-ctx.Done():
			finish()
			return Detached, nil
		case <-winch:
			if c, r, err := term.GetSize(o.Out.Fd()); err == nil {
				t.Resize(c, r)
			}
		case k := <-s.keys:
			send, detach := d.feed(k)
			if connected != nil && (detach || bytes.IndexByte(send, ctrlC) >= 0) {
				// Not connected yet: ctrl+c (or ~.) gives up, as ssh's
				// does before its session exists; nothing typed is sent.
				finish()
				s.say("interrupted while connecting to " + o.Runtime)
				return Interrupted, nil
			}
			if len(send) > 0 {
				_, _ = t.Write(send)
			}
			if detach {
				finish()
				s.say("detached from " + o.Runtime)
				return Detached, nil
			}
		}
	}
}

// ended says how the terminal ended and maps it to an Outcome.
func (s *session) ended(t *tty.Terminal) (Outcome, error) {
	end, err := t.Result()
	switch end {
	case tty.EndExited:
		s.say("the shell on " + s.o.Runtime + " exited")
		return Exited, nil
	case tty.EndDetached:
		return Detached, nil
	case tty.EndLost:
		return Lost, err
	}
	// It never connected.
	var je *jupyter.Error
	if errors.As(err, &je) {
		switch {
		case errors.Is(je.Kind, jupyter.ErrRuntimeGone):
			s.say("runtime " + s.o.Runtime + " is gone (reclaimed)")
			return Reclaimed, err
		case errors.Is(je.Kind, jupyter.ErrRefused), errors.Is(je.Kind, jupyter.ErrPermission):
			s.say("the runtime proxy refused the proxy token: " + err.Error())
			return Refused, err
		}
	}
	if errors.Is(err, context.Canceled) {
		return Interrupted, nil
	}
	s.say("could not open a shell on " + s.o.Runtime + ": " + err.Error())
	return Lost, err
}
