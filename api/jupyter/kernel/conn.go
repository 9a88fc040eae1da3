package kernel

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// Defaults applied for zero Options fields.
const (
	// DefaultMaxMessage bounds one received message: 4 MiB.
	DefaultMaxMessage = 4 << 20
	// DefaultMaxOutput bounds what one Execute keeps: 16 MiB.
	DefaultMaxOutput = 16 << 20
	// DefaultDialTimeout bounds Dial: 60 s (the proxy's 30 s handshake
	// bound, plus a proxy-token renewal).
	DefaultDialTimeout = 60 * time.Second
)

// Errors of Dial, Execute and Watch (wrapped: test with errors.Is).
var (
	// ErrBadKernelID: the kernel id cannot be one path segment; nothing
	// was sent.
	ErrBadKernelID = errors.New("not a kernel id")
	// ErrClosed: the channels socket ended (Close, the server closed
	// it, the network dropped it, the kernel was shut down).
	ErrClosed = errors.New("the kernel's channels socket closed")
	// ErrKernelLost: the server reported the kernel restarting or dead
	// while code ran; what it would have printed after is lost.
	ErrKernelLost = errors.New("the kernel restarted or died while the code ran")
)

// Dialer opens a WebSocket to path (already escaped, relative to the
// runtime's URL, with its query). *proxy.Client (api/jupyter/proxy) is
// the Dialer of a runtime: it carries the proxy token and the client
// agent header, renews the token and classifies refusals (*proxy.Error).
type Dialer interface {
	DialWebSocket(ctx context.Context, path string) (*websocket.Conn, error)
}

// Options configure Dial and Watch; the zero value uses the defaults.
type Options struct {
	// MaxMessage bounds one received message in bytes (default
	// DefaultMaxMessage); a larger one is skipped.
	MaxMessage int64
	// MaxOutput bounds the output one Execute keeps, in bytes (default
	// DefaultMaxOutput); past it Result.Truncated is set.
	MaxOutput int64
	// DialTimeout bounds Dial (default DefaultDialTimeout).
	DialTimeout time.Duration
	// OnIOPub, when set, is called with every iopub message of the
	// kernel, whichever request (or client) it belongs to, in the order
	// received, on the socket's reading goroutine: while it runs no
	// other message is read (a slow callback slows the socket, it loses
	// nothing). It must not call the Conn's Execute or Close.
	OnIOPub func(Message)
}

func (o Options) withDefaults() Options {
	if o.MaxMessage <= 0 {
		o.MaxMessage = DefaultMaxMessage
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = DefaultMaxOutput
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = DefaultDialTimeout
	}
	return o
}

// Conn is an open channels socket of one kernel. Execute may be called
// from several goroutines at once (the kernel runs the requests one after
// the other). Close it when done.
type Conn struct {
	ws      *websocket.Conn
	o       Options
	kernel  string
	session string // this client's session id (header.session)

	ctx    context.Context // the reading goroutine's; ends on Close
	cancel context.CancelFunc
	done   chan struct{} // closed when the reading goroutine ended

	mu      sync.Mutex
	err     error           // why the socket ended (wraps ErrClosed)
	pending map[string]*run // Executes in flight, by request msg_id
	skipped int             // messages skipped (too large or malformed)
}

// validKernelID reports whether id can be one path segment: 1 to 128
// letters, digits, '-', '_' or '.', and not "." or "..". Jupyter's are
// UUIDs.
func validKernelID(id string) bool {
	if id == "" || len(id) > 128 || id == "." || id == ".." {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// newID returns 32 random hex digits (a msg_id or session id).
func newID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Dial opens kernel kernelID's channels socket
// (api/kernels/KERNEL/channels?session_id=S, S a new random id) through
// d, within o.DialTimeout. The server relays to it what the kernel
// publishes from then on. Errors: ErrBadKernelID (nothing sent) for an
// id that cannot be one path segment; d's errors as they are (for a
// *proxy.Client: *proxy.Error, ErrNotFound for an unknown kernel,
// ErrRefused, ErrRuntimeGone, ErrTransport); the context's error.
func Dial(ctx context.Context, d Dialer, kernelID string, o Options) (*Conn, error) {
	if !validKernelID(kernelID) {
		return nil, fmt.Errorf("kernel %.40q: %w", kernelID, ErrBadKernelID)
	}
	o = o.withDefaults()
	session := newID()
	dctx, cancel := context.WithTimeout(ctx, o.DialTimeout)
	defer cancel()
	ws, err := d.DialWebSocket(dctx, "api/kernels/"+kernelID+"/channels?session_id="+session)
	if err != nil {
		return nil, err
	}
	// The bound is this package's own (readFrame): a message past it is
	// skipped, not a reason to drop the socket.
	ws.SetReadLimit(-1)
	c := &Conn{ws: ws, o: o, kernel: kernelID, session: session, done: make(chan struct{}), pending: map[string]*run{}}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	go c.read()
	return c, nil
}

// Kernel returns the kernel id the socket belongs to.
func (c *Conn) Kernel() string { return c.kernel }

// Done is closed once the socket has ended; Err then says why.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err is why the socket ended (wrapping ErrClosed), nil while it is open.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Skipped counts the messages skipped so far: larger than
// Options.MaxMessage, or not Jupyter messages.
func (c *Conn) Skipped() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.skipped
}

// Close closes the socket at once (no closing handshake) and waits for
// its reading goroutine; Executes in flight fail with ErrClosed. The
// kernel goes on: code it runs keeps running. Safe to call more than
// once; it returns nil.
func (c *Conn) Close() error {
	c.cancel()
	_ = c.ws.CloseNow()
	<-c.done
	return nil
}

// read is the reading goroutine: one frame at a time, dispatched.
func (c *Conn) read() {
	defer close(c.done)
	var err error
	for {
		var typ websocket.MessageType
		var data []byte
		var over bool
		typ, data, over, err = c.readFrame()
		if err != nil {
			break
		}
		if over {
			c.skip()
			continue
		}
		m, derr := decode(data, typ == websocket.MessageBinary)
		if derr != nil {
			c.skip()
			continue
		}
		c.dispatch(m)
	}
	if c.ctx.Err() != nil {
		err = errors.New("closed by the client")
	}
	c.fail(fmt.Errorf("kernel %s: %w: %v", c.kernel, ErrClosed, err))
}

// readFrame reads one message up to MaxMessage bytes; over reports one
// larger, which is read to its end and dropped.
func (c *Conn) readFrame() (websocket.MessageType, []byte, bool, error) {
	typ, r, err := c.ws.Reader(c.ctx)
	if err != nil {
		return 0, nil, false, err
	}
	data, err := io.ReadAll(io.LimitReader(r, c.o.MaxMessage+1))
	if err != nil {
		return 0, nil, false, err
	}
	if int64(len(data)) <= c.o.MaxMessage {
		return typ, data, false, nil
	}
	if _, err := io.Copy(io.Discard, r); err != nil {
		return 0, nil, false, err
	}
	return typ, nil, true, nil
}

// skip counts a skipped message; the Executes in flight may have lost
// output with it.
func (c *Conn) skip() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.skipped++
	for _, r := range c.pending {
		r.res.Truncated = true
	}
}

// fail ends every Execute in flight with err and records it.
func (c *Conn) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.err = err
	for id, r := range c.pending {
		r.finish(err)
		delete(c.pending, id)
	}
}

// dispatch hands m to OnIOPub and to the Execute it belongs to.
func (c *Conn) dispatch(m Message) {
	if m.Channel == ChannelIOPub && c.o.OnIOPub != nil {
		c.o.OnIOPub(m)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if m.Channel == ChannelIOPub {
		if st, ok := m.State(); ok && (st == "restarting" || st == "dead" || st == "autorestarting") {
			for id, r := range c.pending {
				r.finish(fmt.Errorf("kernel %s is %s: %w", c.kernel, st, ErrKernelLost))
				delete(c.pending, id)
			}
			return
		}
	}
	r := c.pending[m.ParentID]
	if r == nil || m.ParentID == "" {
		return
	}
	if r.apply(m, c.o.MaxOutput) {
		r.finish(nil)
		delete(c.pending, m.ParentID)
	}
}
