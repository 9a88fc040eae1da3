package tty

import (
	"context"
	"errors"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/client/clienttest"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/testkit"
	"github.com/colabdash/colabdash/api/jupyter"
)

var t0 = time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)

// wait bounds every wait for output or an end: generous, so a busy
// machine only makes a test slower.
const wait = 20 * time.Second

// screen collects a terminal's output and signals each write on ch.
type screen struct {
	buf testkit.SyncBuffer
	ch  chan struct{}
}

func newScreen() *screen { return &screen{ch: make(chan struct{}, 1)} }

func (s *screen) Write(p []byte) (int, error) {
	s.buf.Write(p)
	select {
	case s.ch <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (s *screen) String() string { return s.buf.String() }

// waitFor waits until the output holds want.
func (s *screen) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(wait)
	for !strings.Contains(s.String(), want) {
		select {
		case <-s.ch:
		case <-deadline:
			t.Fatalf("output lacks %q after %v:\n%q", want, wait, s.String())
		}
	}
}

// rig is the emulator's bed with one runtime and a Jupyter client for it
// on the emulator's clock, renewing through get_runtime.
type rig struct {
	*clienttest.Bed
	rt api.Runtime
}

func newRig(t testing.TB, o colabfake.Options) *rig {
	t.Helper()
	r := &rig{Bed: clienttest.NewBed(t, t0, o)}
	r.rt = r.MustAdd(t, "runtimes/rt-tty")
	return r
}

func (r *rig) client(t testing.TB) *jupyter.Client {
	t.Helper()
	c, err := jupyter.New(jupyter.Options{Runtime: r.rt.Name, Info: *r.rt.ConnectionInfo, Now: r.Clk.Now,
		Renew: r.Renewer(r.rt.Name)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func waitDone(t *testing.T, term *Terminal) (End, error) {
	t.Helper()
	select {
	case <-term.Done():
	case <-time.After(wait):
		t.Fatalf("the terminal did not end within %v", wait)
	}
	return term.Result()
}

func waitConnected(t *testing.T, term *Terminal) {
	t.Helper()
	select {
	case <-term.Connected():
	case <-term.Done():
		end, err := term.Result()
		t.Fatalf("ended before connecting: %v %v", end, err)
	case <-time.After(wait):
		t.Fatalf("not connected within %v", wait)
	}
}

// Input typed and a size set while connecting are sent once the socket
// is open, the size first: `stty size` answers it and the queued command
// ran. The token went in the header, never in the URL.
func TestQueuedInputAndSizeReachTheShell(t *testing.T) {
	r := newRig(t, colabfake.Options{StrictTokenPlacement: true})
	var inURL, inHeader atomic.Bool
	r.SetOnProxy(func(req *http.Request) {
		if strings.HasSuffix(req.URL.Path, "/colab/tty") {
			inURL.Store(strings.Contains(req.URL.RawQuery, "token"))
			inHeader.Store(req.Header.Get(jupyter.TokenHeader) != "")
		}
	})
	out := newScreen()
	term := Open(context.Background(), Options{Client: r.client(t), Output: out, Cols: 80, Rows: 24})
	defer term.Close()
	term.Resize(100, 30)
	if _, err := term.Write([]byte("echo queued\rstty size\r")); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, "queued\r\n"+colabfake.TTYPrompt)
	out.waitFor(t, "30 100\r\n")
	if term.Protocol() != ProtocolColab {
		t.Errorf("protocol %q", term.Protocol())
	}
	// The resize may go before the connection is up (then it is the
	// opening size) or right after the opening 80x24: either way the
	// shell gets no other size, and 100x30 last.
	if _, _, sizes := r.Srv.TTYStats(); len(sizes) == 0 || sizes[len(sizes)-1] != [2]int{100, 30} ||
		len(sizes) > 2 || len(sizes) == 2 && sizes[0] != [2]int{80, 24} {
		t.Errorf("sizes the server got: %v (want {100 30}, or {80 24} then {100 30})", sizes)
	}
	if inURL.Load() || !inHeader.Load() {
		t.Errorf("token in URL %v, in header %v", inURL.Load(), inHeader.Load())
	}
	// A resize after open reaches the shell too.
	term.Resize(132, 43)
	deadline := time.Now().Add(wait)
	for {
		_, _, sizes := r.Srv.TTYStats()
		if len(sizes) > 0 && sizes[len(sizes)-1] == [2]int{132, 43} {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the resize did not arrive: %v", sizes)
		}
		time.Sleep(5 * time.Millisecond)
	}
	_, _ = term.Write([]byte("stty size\r"))
	out.waitFor(t, "43 132\r\n")
}

// `exit` ends the remote shell: the server closes with 1000 and the
// terminal reports EndExited.
func TestExitEndsTheTerminal(t *testing.T) {
	r := newRig(t, colabfake.Options{})
	out := newScreen()
	term := Open(context.Background(), Options{Client: r.client(t), Output: out})
	waitConnected(t, term)
	_, _ = term.Write([]byte("exit\r"))
	if end, err := waitDone(t, term); end != EndExited || err != nil {
		t.Fatalf("end %v, %v; want exited", end, err)
	}
	if _, err := term.Write([]byte("x")); err == nil {
		t.Error("Write after the end succeeded")
	}
}

// Close detaches: the socket closes on both sides and the end is
// EndDetached.
func TestCloseDetaches(t *testing.T) {
	r := newRig(t, colabfake.Options{})
	out := newScreen()
	term := Open(context.Background(), Options{Client: r.client(t), Output: out})
	out.waitFor(t, colabfake.TTYPrompt)
	term.Close()
	if end, err := term.Result(); end != EndDetached || err != nil {
		t.Fatalf("end %v, %v; want detached", end, err)
	}
	deadline := time.Now().Add(wait)
	for {
		if open, _, _ := r.Srv.TTYStats(); open == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server still holds the socket")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// With the close-on-expiry emulator, the socket closes with 1008 when the
// token that opened it expires: the terminal is lost (not exited), and
// the error names the code. By default it stays open past expiry.
func TestTokenExpiryWhileOpen(t *testing.T) {
	for _, closes := range []bool{true, false} {
		name := "stays open"
		if closes {
			name = "closes"
		}
		t.Run(name, func(t *testing.T) {
			r := newRig(t, colabfake.Options{TTYCloseOnExpiry: closes})
			out := newScreen()
			term := Open(context.Background(), Options{Client: r.client(t), Output: out})
			defer term.Close()
			out.waitFor(t, colabfake.TTYPrompt)
			r.Clk.Advance(2 * colabfake.DefaultTokenTTL)
			if !closes {
				_, _ = term.Write([]byte("echo still here\r"))
				out.waitFor(t, "still here\r\n")
				return
			}
			end, err := waitDone(t, term)
			var ce *CloseError
			if end != EndLost || !errors.As(err, &ce) || ce.Code != 1008 {
				t.Fatalf("end %v, %v; want lost with 1008", end, err)
			}
			if !strings.Contains(err.Error(), "expired") {
				t.Errorf("error %q does not say the token may have expired", err)
			}
		})
	}
}

// A token with less than the renewal lead left is renewed before the
// handshake, which then uses the new token.
func TestTokenRenewedBeforeConnecting(t *testing.T) {
	r := newRig(t, colabfake.Options{})
	c := r.client(t)
	r.Clk.Advance(colabfake.DefaultTokenTTL - 2*time.Minute)
	out := newScreen()
	term := Open(context.Background(), Options{Client: c, Output: out})
	defer term.Close()
	out.waitFor(t, colabfake.TTYPrompt)
	if c.Renewals() != 1 {
		t.Errorf("renewals %d, want 1", c.Renewals())
	}
}

// A runtime that is gone never connects: EndNone with ErrRuntimeGone.
func TestGoneRuntimeDoesNotConnect(t *testing.T) {
	r := newRig(t, colabfake.Options{})
	c := r.client(t)
	r.Srv.Reclaim(r.rt.Name)
	term := Open(context.Background(), Options{Client: c, Output: newScreen()})
	end, err := waitDone(t, term)
	if end != EndNone || !errors.Is(err, jupyter.ErrRuntimeGone) {
		t.Fatalf("end %v, %v; want not connected, runtime gone", end, err)
	}
}

// A reclaimed runtime cuts the open socket: the terminal is lost.
func TestReclaimWhileOpenLosesTheConnection(t *testing.T) {
	r := newRig(t, colabfake.Options{})
	out := newScreen()
	term := Open(context.Background(), Options{Client: r.client(t), Output: out})
	out.waitFor(t, colabfake.TTYPrompt)
	r.Srv.Reclaim(r.rt.Name)
	if end, err := waitDone(t, term); end != EndLost || err == nil {
		t.Fatalf("end %v, %v; want lost", end, err)
	}
}

// Bytes that are not UTF-8 are sent as U+FFFD and said once; a character
// split between two writes arrives whole.
func TestInputUTF8(t *testing.T) {
	r := newRig(t, colabfake.Options{})
	out := newScreen()
	var said atomic.Int32
	term := Open(context.Background(), Options{Client: r.client(t), Output: out, OnInvalidInput: func() { said.Add(1) }})
	defer term.Close()
	e := []byte("é")
	_, _ = term.Write([]byte("echo a"))
	_, _ = term.Write(e[:1])
	_, _ = term.Write(e[1:])
	_, _ = term.Write([]byte{'b', 0xff, 'c', 0xfe, '\r'})
	out.waitFor(t, "aéb\uFFFDc\uFFFD\r\n")
	if said.Load() != 1 {
		t.Errorf("invalid input said %d times, want once", said.Load())
	}
}

func TestUTF8InputUnits(t *testing.T) {
	var u utf8Input
	for _, c := range []struct {
		in, want string
		bad      bool
	}{
		{"abc", "abc", false},
		{"\xe2\x82", "", false}, // held: the start of €
		{"\xac!", "€!", false},
		{"\xe2A", "\uFFFDA", true},
		{"\xc0\xaf", "\uFFFD\uFFFD", true},
	} {
		got, bad := u.feed([]byte(c.in))
		if got != c.want || bad != c.bad {
			t.Errorf("feed(%q) = %q, %v; want %q, %v", c.in, got, bad, c.want, c.bad)
		}
	}
}

func TestFramers(t *testing.T) {
	if got := string(colabFramer{}.input("ls\r")); got != `{"data":"ls\r"}` {
		t.Errorf("colab input %s", got)
	}
	if got := string(colabFramer{}.size(80, 24)); got != `{"cols":80,"rows":24}` {
		t.Errorf("colab size %s", got)
	}
	if got := string(terminadoFramer{}.input("ls\r")); got != `["stdin","ls\r"]` {
		t.Errorf("terminado input %s", got)
	}
	if got := string(terminadoFramer{}.size(80, 24)); got != `["set_size",24,80,0,0]` {
		t.Errorf("terminado size %s (rows first)", got)
	}
	for _, c := range []struct {
		f          framer
		in, data   string
		exited, ok bool
	}{
		{colabFramer{}, `{"data":"\u001b[1mhi"}`, "\x1b[1mhi", false, true},
		{colabFramer{}, `{"other":1}`, "", false, true},
		{colabFramer{}, `not json`, "", false, false},
		{terminadoFramer{}, `["setup",{}]`, "", false, true},
		{terminadoFramer{}, `["stdout","x"]`, "x", false, true},
		{terminadoFramer{}, `["disconnect",1]`, "", true, true},
		{terminadoFramer{}, `{"data":"x"}`, "", false, false},
		{terminadoFramer{}, `[]`, "", false, false},
		{terminadoFramer{}, `[1,"x"]`, "", false, false},
		{terminadoFramer{}, `["stdout"]`, "", false, false},
		{terminadoFramer{}, `["stdout",5]`, "", false, false},
	} {
		data, exited, ok := c.f.output([]byte(c.in))
		if data != c.data || exited != c.exited || ok != c.ok {
			t.Errorf("%T.output(%s) = %q %v %v", c.f, c.in, data, exited, ok)
		}
	}
}

// The emulator checks the token on /colab/tty: a wrong one that cannot be
// renewed is refused (the proxy's bare 404), never served.
func TestWrongTokenIsRefused(t *testing.T) {
	r := newRig(t, colabfake.Options{})
	ci := *r.rt.ConnectionInfo
	ci.Token = "not-the-token"
	c, err := jupyter.New(jupyter.Options{Runtime: r.rt.Name, Info: ci, Now: r.Clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	term := Open(context.Background(), Options{Client: c})
	if end, err := waitDone(t, term); end != EndNone || !errors.Is(err, jupyter.ErrRefused) {
		t.Fatalf("end %v, %v; want refused", end, err)
	}
	if open, _, _ := r.Srv.TTYStats(); open != 0 {
		t.Errorf("%d sockets open", open)
	}
}

// With TTYShell the emulator runs a real shell in a pty: it computes,
// and a resize reaches it as the pty's size.
func TestEmulatorRealShellInPTY(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no pty")
	}
	r := newRig(t, colabfake.Options{TTYShell: true})
	out := newScreen()
	term := Open(context.Background(), Options{Client: r.client(t), Output: out, Cols: 91, Rows: 29})
	defer term.Close()
	_, _ = term.Write([]byte("echo pty-$((6*7)); stty size\r"))
	out.waitFor(t, "pty-42")
	out.waitFor(t, "29 91")
	_, _ = term.Write([]byte("exit\r"))
	if end, err := waitDone(t, term); end != EndExited || err != nil {
		t.Fatalf("end %v, %v; want exited", end, err)
	}
}
