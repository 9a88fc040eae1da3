//go:build unix

package shell

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/client"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/testkit"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/ops/opstest"
)

const wait = 20 * time.Second

var t0 = time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)

// ptyTerm is a pty pair: the shell runs on tty, the test types on and reads
// from ptmx, as a person at a terminal would.
type ptyTerm struct {
	t    *testing.T
	ptmx *os.File
	tty  *os.File
	out  testkit.SyncBuffer
	// initial is the terminal's mode before Run took it over.
	initial uint32
}

func newTerm(t *testing.T) *ptyTerm {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pty: " + err.Error())
	}
	_ = pty.Setsize(ptmx, &pty.Winsize{Cols: 80, Rows: 24})
	tm := &ptyTerm{t: t, ptmx: ptmx, tty: tty}
	tm.initial = tm.lflag()
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			tm.out.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { tty.Close(); ptmx.Close() })
	return tm
}

func (tm *ptyTerm) screen() string { return tm.out.String() }

func (tm *ptyTerm) waitFor(want string) {
	tm.t.Helper()
	tm.waitCount(want, 1)
}

// waitCount waits until want is on screen n times.
func (tm *ptyTerm) waitCount(want string, n int) {
	tm.t.Helper()
	deadline := time.Now().Add(wait)
	for strings.Count(tm.screen(), want) < n {
		if time.Now().After(deadline) {
			tm.t.Fatalf("screen lacks %q (×%d):\n%q", want, n, tm.screen())
		}
		time.Sleep(5 * time.Millisecond) // a poll of the screen
	}
}

func (tm *ptyTerm) typ(s string) {
	tm.t.Helper()
	if _, err := tm.ptmx.WriteString(s); err != nil {
		tm.t.Fatal(err)
	}
}

func (tm *ptyTerm) lflag() uint32 {
	tm.t.Helper()
	tio, err := unix.IoctlGetTermios(int(tm.tty.Fd()), unix.TCGETS)
	if err != nil {
		tm.t.Fatal(err)
	}
	return tio.Lflag
}

// restored fails the test when the terminal is not back in its initial
// mode; when says at which point of the test.
func (tm *ptyTerm) restored(when string) {
	tm.t.Helper()
	if got := tm.lflag(); got != tm.initial {
		tm.t.Errorf("terminal mode %#x %s, %#x before", got, when, tm.initial)
	}
}

// exit types exit at the remote shell and waits for Run to end Exited.
func (tm *ptyTerm) exit(ch chan result) {
	tm.t.Helper()
	tm.typ("exit\r")
	awaitOutcome(tm.t, ch, Exited)
}

// rig is an emulator with one runtime.
type rig struct {
	srv *colabfake.Server
	clk *colabfake.Clock
	svc api.Service
	rt  api.Runtime
}

func newRig(t *testing.T, o colabfake.Options) *rig {
	t.Helper()
	r := &rig{clk: colabfake.NewClock(t0)}
	o.Now = r.clk.Now
	r.srv, r.svc = opstest.Emulator(t, o, client.Options{})
	var err error
	if r.rt, err = r.srv.AddRuntime(api.Runtime{Name: "runtimes/rt-sh", ConnectionInfo: &api.ConnectionInfo{}}); err != nil {
		t.Fatal(err)
	}
	return r
}

// expire moves the emulator's clock past the proxy token's expiry: with
// TTYCloseOnExpiry the proxy then closes the shell's socket.
func (r *rig) expire() { r.clk.Advance(2 * colabfake.DefaultTokenTTL) }

// expireAtPrompt waits for the remote shell's prompt on tm, then expires
// the token.
func (r *rig) expireAtPrompt(tm *ptyTerm) {
	tm.t.Helper()
	tm.waitFor(colabfake.TTYPrompt)
	r.expire()
}

func (r *rig) options(t *testing.T, tm *ptyTerm) Options {
	c, err := ops.Jupyter(r.svc, r.rt.Name, *r.rt.ConnectionInfo, ops.JupyterOptions{Now: r.clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	return Options{Runtime: "rt-sh", Client: c, In: tm.tty, Out: tm.tty,
		Listed: func(ctx context.Context) (bool, error) {
			rts, err := r.svc.ListRuntimes(ctx)
			for _, rt := range rts {
				if rt.Name == r.rt.Name {
					return true, err
				}
			}
			return false, err
		}}
}

type result struct {
	out Outcome
	err error
}

func start(ctx context.Context, o Options) chan result {
	ch := make(chan result, 1)
	go func() {
		out, err := Run(ctx, o)
		ch <- result{out, err}
	}()
	return ch
}

// newShell is a new terminal and a new emulator (made with co) and the
// options Run needs to open a shell on the emulator's runtime from that
// terminal.
func newShell(t *testing.T, co colabfake.Options) (*ptyTerm, *rig, Options) {
	t.Helper()
	tm := newTerm(t)
	r := newRig(t, co)
	return tm, r, r.options(t, tm)
}

// awaitOutcome waits for Run's result and fails the test unless it ended
// with want.
func awaitOutcome(t *testing.T, ch chan result, want Outcome) result {
	t.Helper()
	res := await(t, ch)
	if res.out != want {
		t.Fatalf("%v %v, want %v", res.out, res.err, want)
	}
	return res
}

// awaitClean is awaitOutcome for an end that is no failure: Run must
// also return no error.
func awaitClean(t *testing.T, ch chan result, want Outcome) {
	t.Helper()
	if res := awaitOutcome(t, ch, want); res.err != nil {
		t.Fatalf("%v with %v, want no error", want, res.err)
	}
}

func await(t *testing.T, ch chan result) result {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(wait):
		t.Fatal("Run did not return")
	}
	return result{}
}

// The banner names the detach sequence; typed input reaches the remote
// shell and its output comes back; exit ends Run with Exited and the
// local terminal is back in its own mode.
func TestShellRunsAndRestoresTheTerminal(t *testing.T) {
	tm, _, o := newShell(t, colabfake.Options{})
	ch := start(context.Background(), o)
	tm.waitFor("~. detaches")
	tm.waitFor(colabfake.TTYPrompt)
	if tm.lflag()&unix.ICANON != 0 {
		t.Error("the local terminal is not in raw mode")
	}
	tm.typ("echo hello-shell\r")
	tm.waitFor("hello-shell\r\n")
	tm.typ("exit\r")
	awaitClean(t, ch, Exited)
	tm.waitFor("exited")
	tm.restored("after")
}

// "~." after a newline detaches; mid-line it is sent as typed, and "~~"
// at a line start sends one "~".
func TestDetachSequence(t *testing.T) {
	tm, _, o := newShell(t, colabfake.Options{})
	ch := start(context.Background(), o)
	tm.waitFor(colabfake.TTYPrompt)
	tm.typ("echo a~.b\r")
	tm.waitFor("a~.b\r\n")
	tm.typ("~~x\r")
	tm.waitFor("would run: ~x")
	tm.typ("~.")
	awaitClean(t, ch, Detached)
	tm.waitFor("detached from rt-sh")
}

// The socket closed by the proxy (the token's expiry, in the emulator's
// close-on-expiry mode) while the runtime is still listed: Run says so
// and offers a reconnect; r opens a new shell with a fresh token.
func TestReconnectOffer(t *testing.T) {
	tm, r, o := newShell(t, colabfake.Options{TTYCloseOnExpiry: true})
	ch := start(context.Background(), o)
	r.expireAtPrompt(tm)
	tm.waitFor("the runtime is still running")
	tm.waitFor("r reconnects")
	if !strings.Contains(tm.screen(), "1008") {
		t.Errorf("the close code is not said:\n%q", tm.screen())
	}
	tm.typ("r")
	tm.waitCount(colabfake.TTYPrompt, 2)
	tm.exit(ch)

	// Any other key at the offer ends Run with Lost.
	tm2 := newTerm(t)
	ch = start(context.Background(), r.options(t, tm2))
	r.expireAtPrompt(tm2)
	tm2.waitFor("r reconnects")
	tm2.typ("q")
	if res := awaitOutcome(t, ch, Lost); res.err == nil {
		t.Fatal("lost without an error")
	}
}

// A runtime reclaimed under the shell: Run says it is gone.
func TestReclaimedRuntime(t *testing.T) {
	tm, r, o := newShell(t, colabfake.Options{})
	ch := start(context.Background(), o)
	tm.waitFor(colabfake.TTYPrompt)
	r.srv.Reclaim(r.rt.Name)
	awaitOutcome(t, ch, Reclaimed)
	tm.waitFor("gone (reclaimed)")
}

// SIGWINCH sends the new size.
func TestResizeOnSIGWINCH(t *testing.T) {
	tm, r, o := newShell(t, colabfake.Options{})
	ch := start(context.Background(), o)
	defer func() { tm.typ("exit\r"); await(t, ch) }()
	tm.waitFor(colabfake.TTYPrompt)
	tm.typ("stty size\r")
	tm.waitFor("24 80\r\n")
	_ = pty.Setsize(tm.ptmx, &pty.Winsize{Cols: 123, Rows: 45})
	_ = syscall.Kill(os.Getpid(), syscall.SIGWINCH)
	deadline := time.Now().Add(wait)
	for {
		if _, _, sizes := r.srv.TTYStats(); len(sizes) > 0 && sizes[len(sizes)-1] == [2]int{123, 45} {
			break
		}
		if time.Now().After(deadline) {
			_, _, sizes := r.srv.TTYStats()
			t.Fatalf("sizes %v", sizes)
		}
		time.Sleep(5 * time.Millisecond)
	}
	tm.typ("stty size\r")
	tm.waitFor("45 123\r\n")
}

// The end of the context (a signal) restores the terminal too.
func TestInterruptRestoresTheTerminal(t *testing.T) {
	tm, _, o := newShell(t, colabfake.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	ch := start(ctx, o)
	tm.waitFor(colabfake.TTYPrompt)
	cancel()
	awaitOutcome(t, ch, Interrupted)
	tm.restored("after")
}

func TestNotATerminal(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	if _, err := Run(context.Background(), Options{In: pr, Out: pw}); !errors.Is(err, ErrNotTerminal) {
		t.Fatalf("err %v", err)
	}
}

func TestDetacher(t *testing.T) {
	for _, c := range []struct {
		in, want string
		detach   bool
	}{
		{"~.", "", true},
		{"ls\r~.", "ls\r", true},
		{"a~.", "a~.", false},
		{"~~", "~", false},
		{"~x", "~x", false},
		{"\n~.rest", "\n", true},
	} {
		var d detacher
		got, det := d.feed([]byte(c.in))
		if string(got) != c.want || det != c.detach {
			t.Errorf("feed(%q) = %q %v, want %q %v", c.in, got, det, c.want, c.detach)
		}
	}
	// Split over two reads.
	var d detacher
	if got, det := d.feed([]byte("\r~")); string(got) != "\r" || det {
		t.Fatalf("%q %v", got, det)
	}
	if _, det := d.feed([]byte(".")); !det {
		t.Error("~ then . in two reads did not detach")
	}
}

// A panic inside Run (here in the Listed callback, after the proxy
// closed the socket) still restores the local terminal before it goes
// on up.
func TestPanicRestoresTheTerminal(t *testing.T) {
	tm, r, o := newShell(t, colabfake.Options{TTYCloseOnExpiry: true})
	o.Listed = func(context.Context) (bool, error) { panic("boom") }
	got := make(chan any, 1)
	go func() {
		defer func() { got <- recover() }()
		_, _ = Run(context.Background(), o)
	}()
	r.expireAtPrompt(tm)
	select {
	case p := <-got:
		if p != "boom" {
			t.Fatalf("recovered %v", p)
		}
	case <-time.After(wait):
		t.Fatal("Run did not panic")
	}
	tm.restored("after the panic")
}

// The proxy refusing even a freshly renewed token (its bare 404 twice):
// Run ends with Refused, which the verb exits 3 for, and says so.
func TestRefusedToken(t *testing.T) {
	tm, r, o := newShell(t, colabfake.Options{})
	r.srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, PathPrefix: "colab/tty", Status: 404, Times: -1})
	if res := awaitOutcome(t, start(context.Background(), o), Refused); !errors.Is(res.err, jupyter.ErrRefused) {
		t.Fatalf("refused with %v, want %v", res.err, jupyter.ErrRefused)
	}
	tm.waitFor("refused the proxy token")
}

// SIGTERM (kill's default) and SIGHUP (the terminal hung up) end the
// session and give the terminal back in its own mode, as the end of the
// context does. The test subscribes to both signals too, so a Run that
// does not answer them leaves the process alive to report it.
func TestHangupSignalsRestoreTheTerminal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			guard := make(chan os.Signal, 1)
			signal.Notify(guard, sig)
			defer signal.Stop(guard)
			tm, _, o := newShell(t, colabfake.Options{})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ch := start(ctx, o)
			tm.waitFor(colabfake.TTYPrompt) // Run listens for signals before it connects
			if err := syscall.Kill(os.Getpid(), sig); err != nil {
				t.Fatal(err)
			}
			select {
			case res := <-ch:
				if res.out != Interrupted || res.err != nil {
					t.Errorf("%v %v, want interrupted", res.out, res.err)
				}
			case <-time.After(wait):
				cancel()
				<-ch
				t.Fatalf("%v did not end the shell", sig)
			}
			tm.restored("after " + sig.String())
			tm.waitFor("interrupted: disconnected from rt-sh")
		})
	}
}

// With FilterOSC, a clipboard sequence the remote never terminates is
// dropped; it ends with the connection: after a reconnect the new
// shell's prompt and output appear (they hold no ESC that would end it).
func TestUnterminatedDroppedOSCEndsWithItsConnection(t *testing.T) {
	tm, r, o := newShell(t, colabfake.Options{TTYCloseOnExpiry: true})
	o.FilterOSC = true
	ch := start(context.Background(), o)
	tm.waitFor(colabfake.TTYPrompt)
	tm.typ(`printf 'be\tfore\e]52;c;AAAA'` + "\r")
	tm.waitFor("be\tfore") // its output; the prompt after it is inside the OSC
	if strings.Contains(tm.screen(), "\x1b]52") {
		t.Fatalf("the clipboard sequence reached the terminal:\n%q", tm.screen())
	}
	r.expire()
	tm.waitFor("r reconnects")
	tm.typ("r")
	tm.waitCount(colabfake.TTYPrompt, 2)
	tm.typ("echo after-the-reconnect\r")
	tm.waitCount("after-the-reconnect\r\n", 2) // the echo of the line, then its output
	tm.exit(ch)
}

// A sequence the shell passed on and never finished (a link's OSC 8) is
// closed when its connection ends, before colabdash's own line: the
// terminal would otherwise read that line as part of the link.
func TestOpenSequenceClosedBeforeColabdashSpeaks(t *testing.T) {
	tm, r, o := newShell(t, colabfake.Options{TTYCloseOnExpiry: true})
	o.FilterOSC = true
	ch := start(context.Background(), o)
	tm.waitFor(colabfake.TTYPrompt)
	const link = "\x1b]8;;https://example.com/"
	tm.typ(`printf 'see\e]8;;https://example.com/'` + "\r")
	tm.waitFor(link)
	r.expire()
	tm.waitFor("r reconnects")
	scr := tm.screen()
	i := strings.Index(scr, link)
	j := strings.Index(scr[i:], "[colabdash]")
	if j < 0 || !strings.Contains(scr[i:i+j], st) {
		t.Errorf("colabdash spoke inside the link the shell left open:\n%q", scr)
	}
	tm.typ("r")
	// The first prompt, the one printed after the link, then the new shell's.
	tm.waitCount(colabfake.TTYPrompt, 3)
	tm.exit(ch)
}

// Until the terminal is connected (the runtime's proxy is slow to
// answer), ctrl+c gives up: Run ends Interrupted at once, says so, and
// restores the terminal; the keys are never sent to a shell. "~." there
// gives up the same way.
func TestCtrlCWhileConnectingAborts(t *testing.T) {
	for name, keys := range map[string]string{"ctrl+c": "ls\r\x03", "~.": "~."} {
		t.Run(name, func(t *testing.T) {
			tm, _, o := newShell(t, colabfake.Options{ProxyLatency: time.Hour})
			ch := start(context.Background(), o)
			tm.waitFor("~. detaches")
			tm.typ(keys)
			awaitClean(t, ch, Interrupted)
			tm.waitFor("interrupted while connecting to rt-sh")
			tm.restored("after")
		})
	}
}
