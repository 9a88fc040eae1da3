// Package terminal is Colab's terminal WebSocket (colab/tty below a
// runtime's proxy URL) in the emulator's runtime proxy: JSON text frames
// to an emulated shell (shell.go), or to a
// real shell of this machine in a pty (pty.go, Config.Shell).
package terminal

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// Path is Colab's terminal route below a runtime's proxy URL.
const Path = "colab/tty"

// Prompt is the emulated shell's prompt.
const Prompt = "/content# "

// Config is what a terminal needs of the emulator.
type Config struct {
	// Context ends when the emulator closes; every socket closes with it.
	Context context.Context
	// Shell runs a real shell in a pty instead of the emulated one
	// (colabfake.Options.TTYShell).
	Shell bool
	// CloseOnExpiry closes a socket (1008) when the proxy token that
	// opened it expires (colabfake.Options.TTYCloseOnExpiry).
	CloseOnExpiry bool
	// Now is the emulator's clock.
	Now func() time.Time
	// Exists reports whether runtime id still exists; a reclaimed
	// runtime takes its shell with it.
	Exists func(id string) bool
	// Dir returns the real shell's working directory for runtime id
	// ("" for this process's own).
	Dir func(id string) string
}

// Server serves the terminals of one emulator and counts what they
// received. It is safe for concurrent use.
type Server struct {
	opts Config
	ctx  context.Context

	mu        sync.Mutex
	ttyOpen   int      // sockets open now
	ttyFrames int      // client frames they received
	ttySizes  [][2]int // {cols, rows} sent, in order
	// sessions are the open terminals by runtime id (Sessions), nextName
	// the last name given in each runtime.
	sessions map[string][]*session
	nextName map[string]int
}

// New returns a terminal server with opts.
func New(opts Config) *Server {
	s := &Server{opts: opts, ctx: opts.Context}
	if s.ctx == nil {
		s.ctx = context.Background()
	}
	return s
}

func (s *Server) clock() time.Time { return s.opts.Now() }

// ttyExpiryPoll is how often an open terminal compares the emulator's
// clock with the expireTime of the token that opened it
// (Config.CloseOnExpiry).
const ttyExpiryPoll = 50 * time.Millisecond

// ttyFrame is a client frame of Colab's terminal protocol: {"data": …}
// or {"cols": N, "rows": M}.
type ttyFrame struct {
	Data *string `json:"data"`
	Cols *int    `json:"cols"`
	Rows *int    `json:"rows"`
}

// ttyBackend is what runs behind one terminal socket: the emulated line
// discipline, or a real shell in a pty (Config.Shell).
type ttyBackend interface {
	input(s string)
	resize(cols, rows int)
	// run sends output through out until the shell ends (then it
	// returns) or ctx does.
	run(ctx context.Context, out func(string) error)
	close()
}

// Serve is /proxy/{id}/colab/tty of runtime id, already token-checked:
// Colab's terminal WebSocket (JSON text frames: {"data": …} both ways,
// {"cols","rows"} to resize). By default the shell is emulated (fakeShell);
// with Config.Shell it is a real one in a pty. With Config.CloseOnExpiry
// the socket is closed with 1008 when the token that opened it (expiring at
// exp) expires; otherwise it stays open, as nobody has measured what Colab
// does. The socket closes with 1000 when the shell exits. Serve returns an
// error, having written nothing, when the real shell could not be started;
// the caller answers it.
func (s *Server) Serve(w http.ResponseWriter, r *http.Request, id string, exp time.Time) error {
	var be ttyBackend
	if s.opts.Shell {
		b, err := s.startPTYShell(id)
		if err != nil {
			return err
		}
		be = b
	} else {
		be = newFakeShell()
	}
	defer be.close()
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return nil
	}
	defer c.CloseNow()
	c.SetReadLimit(1 << 20)
	s.mu.Lock()
	s.ttyOpen++
	s.mu.Unlock()
	sess := s.open(id)
	defer func() {
		s.closeSession(id, sess)
		s.mu.Lock()
		s.ttyOpen--
		s.mu.Unlock()
	}()
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	var wmu sync.Mutex
	out := func(data string) error {
		s.touch(sess)
		b, _ := json.Marshal(struct {
			Data string `json:"data"`
		}{data})
		wmu.Lock()
		defer wmu.Unlock()
		wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
		defer wcancel()
		return c.Write(wctx, websocket.MessageText, b)
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		be.run(ctx, out)
	}()
	go func() {
		// A reclaimed runtime takes its shell with it (the socket is cut,
		// no close frame); with TTYCloseOnExpiry, the token's expiry
		// closes it with 1008.
		t := time.NewTicker(ttyExpiryPoll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if !s.opts.Exists(id) {
				_ = c.CloseNow()
				cancel()
				return
			}
			if s.opts.CloseOnExpiry && !s.clock().Before(exp) {
				_ = c.Close(websocket.StatusPolicyViolation, "proxy token expired")
				cancel()
				return
			}
		}
	}()
	go func() {
		select {
		case <-ended:
			_ = c.Close(websocket.StatusNormalClosure, "exit")
		case <-ctx.Done():
		}
		cancel()
	}()
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return nil
		}
		s.mu.Lock()
		s.ttyFrames++
		s.mu.Unlock()
		var f ttyFrame
		if json.Unmarshal(b, &f) != nil {
			continue // not JSON: dropped, as Colab's client drops them
		}
		if f.Cols != nil && f.Rows != nil {
			s.mu.Lock()
			s.ttySizes = append(s.ttySizes, [2]int{*f.Cols, *f.Rows})
			s.mu.Unlock()
			be.resize(*f.Cols, *f.Rows)
		}
		if f.Data != nil {
			s.touch(sess)
			be.input(*f.Data)
		}
	}
}

// Stats returns how many terminal sockets are open now, how many client
// frames they received in all, and every size ({cols, rows}) the clients
// sent, in order.
func (s *Server) Stats() (open, frames int, sizes [][2]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ttyOpen, s.ttyFrames, append([][2]int(nil), s.ttySizes...)
}
