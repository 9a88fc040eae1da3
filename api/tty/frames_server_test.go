package tty

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// frameServer is a /colab/tty server on loopback that passes each text
// frame the client sends to got and sends what it is handed on send.
func frameServer(t *testing.T) (c Options, got <-chan string, send chan<- func(*websocket.Conn)) {
	t.Helper()
	g, s := make(chan string, 16), make(chan func(*websocket.Conn), 16)
	client := serverClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer conn.CloseNow()
		go func() {
			for {
				select {
				case f := <-s:
					f(conn)
				case <-r.Context().Done():
					return
				}
			}
		}()
		for {
			_, b, err := conn.Read(r.Context())
			if err != nil {
				return
			}
			g <- string(b)
		}
	}))
	return Options{Client: client}, g, s
}

func next(t *testing.T, got <-chan string) string {
	t.Helper()
	select {
	case f := <-got:
		return f
	case <-time.After(wait):
		t.Fatal("the server got no frame")
		return ""
	}
}

// A size with a side of 0 (or less), in Options or Resize, is never
// sent: the shell gets the input, then the first whole size.
func TestSizesThatAreNotPositiveAreNotSent(t *testing.T) {
	for _, size := range [][2]int{{80, 0}, {0, 24}} {
		o, got, _ := frameServer(t)
		o.Cols, o.Rows = size[0], size[1]
		term := Open(context.Background(), o)
		waitConnected(t, term)
		term.Resize(0, 24)
		term.Resize(80, 0)
		term.Resize(-1, -1)
		// Input waits for the server between writes: a size frame, if
		// one were sent, would arrive among them.
		for _, s := range []string{"x", "y", "z"} {
			if _, err := term.Write([]byte(s)); err != nil {
				t.Fatal(err)
			}
			if f := next(t, got); f != `{"data":"`+s+`"}` {
				t.Fatalf("opened at %v: frame %s, want the input %q", size, f, s)
			}
		}
		term.Resize(100, 30)
		if f := next(t, got); f != `{"cols":100,"rows":30}` {
			t.Errorf("opened at %v: frame %s, want the 100×30 size", size, f)
		}
		term.Close()
	}
}

// The caller's context ending detaches, as Close does.
func TestContextEndDetaches(t *testing.T) {
	o, _, _ := frameServer(t)
	cx, cancel := context.WithCancel(context.Background())
	term := Open(cx, o)
	waitConnected(t, term)
	cancel()
	if end, err := waitDone(t, term); end != EndDetached || err != nil {
		t.Errorf("end %v, %v; want detached", end, err)
	}
}

// A binary frame, or a text frame that is not the protocol's JSON, is
// dropped; what follows is shown.
func TestFramesOutsideTheProtocolAreDropped(t *testing.T) {
	o, _, send := frameServer(t)
	out := newScreen()
	o.Output = out
	term := Open(context.Background(), o)
	defer term.Close()
	waitConnected(t, term)
	send <- func(c *websocket.Conn) {
		ctx := context.Background()
		_ = c.Write(ctx, websocket.MessageBinary, []byte(`{"data":"BINARY"}`))
		_ = c.Write(ctx, websocket.MessageText, []byte(`not json`))
		_ = c.Write(ctx, websocket.MessageText, []byte(`{"data":"shown"}`))
	}
	out.waitFor(t, "shown")
	if s := out.String(); s != "shown" {
		t.Errorf("the screen shows %q, want only the protocol's output", s)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("the screen is gone") }

// When the output cannot be written (the screen went away), the terminal
// detaches instead of reading on.
func TestOutputThatFailsDetaches(t *testing.T) {
	o, _, send := frameServer(t)
	o.Output = failingWriter{}
	term := Open(context.Background(), o)
	waitConnected(t, term)
	send <- func(c *websocket.Conn) {
		_ = c.Write(context.Background(), websocket.MessageText, []byte(`{"data":"x"}`))
	}
	if end, err := waitDone(t, term); end != EndDetached || err != nil {
		t.Errorf("end %v, %v; want detached", end, err)
	}
}

// Closed before the socket opened, the terminal never connected: EndNone
// with context.Canceled, not "detached".
func TestCloseWhileConnecting(t *testing.T) {
	arrived, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	var once sync.Once
	c := serverClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(arrived) })
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	term := Open(context.Background(), Options{Client: c})
	select {
	case <-arrived:
	case <-time.After(wait):
		t.Fatal("the dial never reached the server")
	}
	term.Close()
	if end, err := term.Result(); end != EndNone || !errors.Is(err, context.Canceled) {
		t.Errorf("end %v, %v; want not connected, cancelled", end, err)
	}
}

// How a lost connection reads in the one line the shell shows.
func TestCloseErrorLines(t *testing.T) {
	for _, c := range []struct {
		e    CloseError
		want string
	}{
		{CloseError{Code: websocket.StatusPolicyViolation}, "closed by the server (1008, policy: the proxy token that opened it may have expired)"},
		{CloseError{Code: websocket.StatusInternalError, Reason: "boom"}, "closed by the server (1011): boom"},
		{CloseError{Code: websocket.StatusGoingAway}, "closed by the server (1001)"},
		{CloseError{Code: -1, Reason: "the connection was cut: EOF"}, "the connection was cut: EOF"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.e, got, c.want)
		}
	}
}

// A network error shown in that line keeps its first line, at most 200
// bytes.
func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"read: connection reset\nmore": "read: connection reset",
		"reset\r\nmore":                "reset",
		strings.Repeat("x", 250):       strings.Repeat("x", 200),
		"short":                        "short",
	} {
		if got := oneLine(errors.New(in)); got != want {
			t.Errorf("oneLine(%.20q…) = %.30q…, want %.30q…", in, got, want)
		}
	}
}

// A connection cut without a close frame is lost, and says so.
func TestCutConnectionIsLost(t *testing.T) {
	o, _, send := frameServer(t)
	term := Open(context.Background(), o)
	waitConnected(t, term)
	send <- func(c *websocket.Conn) { _ = c.CloseNow() }
	end, err := waitDone(t, term)
	var ce *CloseError
	if end != EndLost || !errors.As(err, &ce) || ce.Code != -1 || !strings.HasPrefix(err.Error(), "the connection was cut: ") {
		t.Errorf("end %v, %v; want lost, the connection was cut", end, err)
	}
}

// Close tells the server with a normal closure (1000): the remote shell
// learns the user left, rather than a dropped connection.
func TestCloseSendsANormalClosure(t *testing.T) {
	code := make(chan websocket.StatusCode, 1)
	c := serverClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer conn.CloseNow()
		for {
			if _, _, err := conn.Read(r.Context()); err != nil {
				code <- websocket.CloseStatus(err)
				return
			}
		}
	}))
	term := Open(context.Background(), Options{Client: c})
	waitConnected(t, term)
	term.Close()
	select {
	case got := <-code:
		if got != websocket.StatusNormalClosure {
			t.Errorf("the server saw close status %d, want 1000", got)
		}
	case <-time.After(wait):
		t.Fatal("the server saw no close")
	}
}
