// Package tty is a terminal on a Colab runtime: Colab's /colab/tty
// WebSocket below connectionInfo.url, or, when the runtime's server is a
// stock Jupyter server (a Jupyter 404 for that route), a terminado
// terminal.
//
// A Terminal connects in the background: input written and sizes set
// while it connects are queued and sent once it is open, the size first.
// The proxy token goes in the header only (api/jupyter's DialWebSocket,
// which renews it first when little is left). A WebSocket ping every
// DefaultPingInterval keeps idle proxies from cutting quiet
// sockets. The remote output is written to Options.Output unmodified:
// the shell is the user's own, and filtering is the caller's choice.
package tty

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/colabdash/colabdash/api/jupyter"
)

// Defaults of Options.
const (
	// DefaultPingInterval is how often a WebSocket ping is sent (25 s):
	// the terminal protocol has no keepalive of its own.
	DefaultPingInterval = 25 * time.Second
	// MaxFrame bounds one frame read from the server (1 MiB).
	MaxFrame = 1 << 20
	// queueFrames is how many frames may wait while connecting before
	// Write blocks.
	queueFrames = 1024
	// deleteTimeout bounds the DELETE of a terminado terminal on exit.
	deleteTimeout = 5 * time.Second
)

// End says how a Terminal ended.
type End int

// Ends of a Terminal.
const (
	// EndNone: it never connected (Result's error says why).
	EndNone End = iota
	// EndExited: the remote shell exited (Colab closed the socket with
	// 1000, terminado sent "disconnect").
	EndExited
	// EndDetached: Close was called, or the context ended.
	EndDetached
	// EndLost: the connection closed for any other reason (a close code
	// other than 1000, a network failure, no pong); the remote shell may
	// still run, and a new Terminal gets a new one.
	EndLost
)

// String names the end in messages.
func (e End) String() string {
	switch e {
	case EndExited:
		return "exited"
	case EndDetached:
		return "detached"
	case EndLost:
		return "lost"
	}
	return "not connected"
}

// CloseError is why a connection was lost: the close code the server
// sent (websocket.StatusCode, -1 for none) and a reason.
type CloseError struct {
	Code   websocket.StatusCode
	Reason string
}

// Error says what closed, in one line.
func (e *CloseError) Error() string {
	if e.Code < 0 {
		return e.Reason
	}
	s := fmt.Sprintf("closed by the server (%d", int(e.Code))
	if e.Code == websocket.StatusPolicyViolation {
		s += ", policy: the proxy token that opened it may have expired"
	}
	s += ")"
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	return s
}

// Options configure Open. Client and Output are required.
type Options struct {
	// Client is the runtime's Jupyter client: it dials through the proxy
	// with the current token and creates and deletes terminado terminals.
	Client *jupyter.Client
	// Output receives the remote output as it arrives, unmodified. Only
	// the Terminal's own goroutine writes to it.
	Output io.Writer
	// Cols and Rows are the size sent on open, unless Resize was called
	// since (0: none is sent until Resize).
	Cols, Rows int
	// PingInterval between WebSocket pings (default DefaultPingInterval);
	// a ping unanswered for that long loses the connection.
	PingInterval time.Duration
	// OnInvalidInput is called once, the first time input held bytes
	// that are not UTF-8 (they are sent as U+FFFD).
	OnInvalidInput func()
	// Logger gets a debug record per dropped frame and the end (never
	// the token). nil discards.
	Logger *slog.Logger
}

// Terminal is one remote shell. Its methods are safe for concurrent use.
type Terminal struct {
	o         Options
	ctx       context.Context
	cancel    context.CancelFunc
	connected chan struct{}
	done      chan struct{}
	frames    chan []byte // encoded input waiting for the sender

	mu       sync.Mutex
	in       utf8Input
	warned   bool
	fr       framer
	proto    string
	cols     int
	rows     int
	sized    bool // a size is waiting to be sent
	sizeSent chan struct{}
	end      End
	err      error
	detached bool
	conn     *websocket.Conn
}

// Open starts connecting to the runtime's terminal and returns at once.
// Wait on Connected or Done; Result says how it ended.
func Open(ctx context.Context, o Options) *Terminal {
	if o.PingInterval <= 0 {
		o.PingInterval = DefaultPingInterval
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Output == nil {
		o.Output = io.Discard
	}
	t := &Terminal{o: o, connected: make(chan struct{}), done: make(chan struct{}),
		frames: make(chan []byte, queueFrames), sizeSent: make(chan struct{}, 1)}
	t.ctx, t.cancel = context.WithCancel(ctx)
	if o.Cols > 0 && o.Rows > 0 {
		t.cols, t.rows, t.sized = o.Cols, o.Rows, true
	}
	go t.run()
	return t
}

// Connected is closed once the terminal is open (never, when it fails).
func (t *Terminal) Connected() <-chan struct{} { return t.connected }

// Done is closed once the terminal has ended.
func (t *Terminal) Done() <-chan struct{} { return t.done }

// Result returns how the terminal ended and why (nil for EndExited and
// EndDetached; a *CloseError or the network's error for EndLost; the
// connect error, an *jupyter.Error, for EndNone). Valid after Done.
func (t *Terminal) Result() (End, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.end, t.err
}

// Protocol returns ProtocolColab or ProtocolTerminado once connected, ""
// before.
func (t *Terminal) Protocol() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.proto
}

// Write sends keystrokes (queued while connecting). Bytes that are not
// UTF-8 are sent as U+FFFD (OnInvalidInput says so once); a sequence
// split between two writes is completed first. It fails only after the
// terminal ended.
func (t *Terminal) Write(p []byte) (int, error) {
	select {
	case <-t.done:
		return 0, io.ErrClosedPipe
	default:
	}
	t.mu.Lock()
	s, bad := t.in.feed(p)
	warn := bad && !t.warned
	if warn {
		t.warned = true
	}
	t.mu.Unlock()
	if warn && t.o.OnInvalidInput != nil {
		t.o.OnInvalidInput()
	}
	if s == "" {
		return len(p), nil
	}
	select {
	case t.frames <- []byte(s):
		return len(p), nil
	case <-t.done:
		return 0, io.ErrClosedPipe
	}
}

// Resize sets the remote size (cols × rows cells): sent at once when
// open, else on open. Sizes that are not positive are ignored.
func (t *Terminal) Resize(cols, rows int) {
	if cols <= 0 || rows <= 0 {
		return
	}
	t.mu.Lock()
	t.cols, t.rows, t.sized = cols, rows, true
	t.mu.Unlock()
	select {
	case t.sizeSent <- struct{}{}:
	default:
	}
}

// Close detaches: the socket is closed (1000) and, for terminado, the
// terminal deleted. It waits until the terminal has ended.
func (t *Terminal) Close() {
	t.mu.Lock()
	t.detached = true
	t.mu.Unlock()
	t.cancel()
	<-t.done
}

func (t *Terminal) finish(end End, err error) {
	t.mu.Lock()
	if t.end == EndNone && t.err == nil {
		// Detaching on the context's end closes the socket with 1000
		// itself: the close that comes back is not the shell's exit.
		if t.detached || t.ctx.Err() != nil {
			end, err = EndDetached, nil
			if t.conn == nil {
				end = EndNone
				err = context.Canceled
			}
		}
		t.end, t.err = end, err
	}
	t.mu.Unlock()
}

// run connects, then relays until the end.
func (t *Terminal) run() {
	defer close(t.done)
	defer t.cancel()
	c := t.o.Client
	conn, fr, proto, term, err := t.connect()
	if err != nil {
		t.finish(EndNone, err)
		return
	}
	if term != "" {
		defer func() {
			ctx, cancel := context.WithTimeout(context.Background(), deleteTimeout)
			defer cancel()
			if derr := c.DeleteTerminal(ctx, term); derr != nil {
				t.o.Logger.Debug("deleting the terminado terminal failed", "terminal", term, "error", derr)
			}
		}()
	}
	conn.SetReadLimit(MaxFrame)
	t.mu.Lock()
	t.fr, t.proto, t.conn = fr, proto, conn
	t.mu.Unlock()
	close(t.connected)

	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); t.send(conn, fr) }()
	go func() { defer wg.Done(); t.ping(conn) }()
	go func() {
		// Detaching (Close, or the context's end) closes the socket
		// cleanly; the read below then ends.
		defer wg.Done()
		<-t.ctx.Done()
		t.mu.Lock()
		ended := t.end != EndNone
		t.mu.Unlock()
		if ended { // the server closed or stopped answering: nothing to wait for
			_ = conn.CloseNow()
			return
		}
		_ = conn.Close(websocket.StatusNormalClosure, "detached")
	}()
	t.read(conn, fr)
	t.cancel()
	wg.Wait()
	_ = conn.CloseNow()
}

// connect opens Colab's /colab/tty, or, on a Jupyter 404 for it, a
// terminado terminal (term is its name, deleted on exit).
func (t *Terminal) connect() (conn *websocket.Conn, fr framer, proto, term string, err error) {
	c := t.o.Client
	conn, err = c.DialWebSocket(t.ctx, "colab/tty")
	if err == nil {
		return conn, colabFramer{}, ProtocolColab, "", nil
	}
	var je *jupyter.Error
	if !errors.As(err, &je) || je.Kind != jupyter.ErrNotFound {
		return nil, nil, "", "", err
	}
	t.o.Logger.Debug("no colab/tty on this runtime: trying a terminado terminal", "runtime", c.Runtime())
	term, err = c.CreateTerminal(t.ctx)
	if err != nil {
		return nil, nil, "", "", err
	}
	conn, err = c.DialTerminal(t.ctx, term)
	if err != nil {
		ctx, cancel := context.WithTimeout(context.Background(), deleteTimeout)
		_ = c.DeleteTerminal(ctx, term)
		cancel()
		return nil, nil, "", "", err
	}
	return conn, terminadoFramer{}, ProtocolTerminado, term, nil
}

// read writes the output until the socket closes.
func (t *Terminal) read(conn *websocket.Conn, fr framer) {
	for {
		// Not under t.ctx: a cancelled read would drop the connection
		// before the close frame that detaching sends.
		typ, b, err := conn.Read(context.Background())
		if err != nil {
			// An if chain, not a switch: Go's coverage counts an if's
			// condition, which mutation testing needs to see reached.
			code := websocket.CloseStatus(err)
			if code == websocket.StatusNormalClosure {
				t.finish(EndExited, nil)
			} else if code != -1 { // -1: no close frame came
				var ce websocket.CloseError
				errors.As(err, &ce)
				t.finish(EndLost, &CloseError{Code: code, Reason: ce.Reason})
			} else {
				t.finish(EndLost, &CloseError{Code: -1, Reason: "the connection was cut: " + oneLine(err)})
			}
			return
		}
		if typ != websocket.MessageText {
			t.o.Logger.Debug("terminal: binary frame dropped", "bytes", len(b))
			continue
		}
		data, exited, ok := fr.output(b)
		if !ok {
			t.o.Logger.Debug("terminal: frame that is not the protocol's JSON dropped", "bytes", len(b))
			continue
		}
		if data != "" {
			if _, err := io.WriteString(t.o.Output, data); err != nil {
				t.finish(EndDetached, nil)
				return
			}
		}
		if exited {
			t.finish(EndExited, nil)
			return
		}
	}
}

// send writes the size first, then queued and new input and sizes, in
// order.
func (t *Terminal) send(conn *websocket.Conn, fr framer) {
	write := func(b []byte) bool {
		return conn.Write(t.ctx, websocket.MessageText, b) == nil
	}
	sendSize := func() bool {
		t.mu.Lock()
		cols, rows, sized := t.cols, t.rows, t.sized
		t.sized = false
		t.mu.Unlock()
		return !sized || write(fr.size(cols, rows))
	}
	if !sendSize() {
		return
	}
	for {
		select {
		case <-t.ctx.Done():
			return
		case <-t.sizeSent:
			if !sendSize() {
				return
			}
		case s := <-t.frames:
			if !write(fr.input(string(s))) {
				return
			}
		}
	}
}

// ping sends a WebSocket ping every PingInterval; one unanswered for as
// long loses the connection.
func (t *Terminal) ping(conn *websocket.Conn) {
	tk := time.NewTicker(t.o.PingInterval)
	defer tk.Stop()
	for {
		select {
		case <-t.ctx.Done():
			return
		case <-tk.C:
		}
		ctx, cancel := context.WithTimeout(t.ctx, t.o.PingInterval)
		err := conn.Ping(ctx)
		cancel()
		if err != nil && t.ctx.Err() == nil {
			t.finish(EndLost, &CloseError{Code: -1, Reason: "the runtime stopped answering (no pong within " + t.o.PingInterval.String() + ")"})
			t.cancel()
			return
		}
	}
}

func oneLine(err error) string {
	s := err.Error()
	for i, r := range s {
		if r == '\n' || r == '\r' {
			return s[:i]
		}
	}
	return s[:min(len(s), 200)]
}
