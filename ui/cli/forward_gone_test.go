package cli

// forward's end when its runtime is deleted, and where it listens for
// "localhost".

import (
	"context"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/ui/cli/kit"
)

// runningForward is a forward started by startForwardVerb.
type runningForward struct {
	url      string // the printed URL: http://HOST:PORT/?token=…
	port     int
	token    string
	done     chan int
	out, err *lockedBuffer
}

// startForwardVerb runs forward with args until it prints its URL; ctx's
// end interrupts it.
func startForwardVerb(t *testing.T, ctx context.Context, e *verbEnv, args ...string) *runningForward {
	t.Helper()
	r := &runningForward{done: make(chan int, 1), out: &lockedBuffer{}, err: &lockedBuffer{}}
	go func() {
		r.done <- runStreamsContext(ctx, append(append([]string{"forward"}, args...), e.flags...), &kit.Streams{In: strings.NewReader(""), Out: r.out, Err: r.err})
	}()
	re := regexp.MustCompile(`http://\S+:(\d+)/\?token=(\S+)`)
	deadline := time.Now().Add(60 * time.Second)
	for !re.MatchString(r.out.String()) {
		select {
		case code := <-r.done:
			t.Fatalf("forward %v ended: exit %d %q %q", args, code, r.out.String(), r.err.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("forward %v printed no URL within 60 s: %q %q", args, r.out.String(), r.err.String())
		}
		time.Sleep(5 * time.Millisecond) // a poll of what it printed
	}
	m := re.FindStringSubmatch(r.out.String())
	r.url, r.token = m[0], m[2]
	r.port, _ = strconv.Atoi(m[1])
	return r
}

// get GETs the runtime's contents through the forward at host (an IP
// literal, bracketed for IPv6, or "localhost") and returns the status and
// body.
func (r *runningForward) get(t *testing.T, host string) (int, string) {
	t.Helper()
	resp, err := http.Get("http://" + host + ":" + strconv.Itoa(r.port) + "/api/contents/content?token=" + r.token)
	if err != nil {
		t.Fatalf("GET through %s: %v", host, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A runtime deleted under a forward cannot come back under its id: the
// request that finds out gets its 502 with the reason, and forward ends
// with exit 6 and one line on stderr, so a script running it in the
// background learns of it.
func TestForwardStopsWhenTheRuntimeIsDeleted(t *testing.T) {
	e := forwardEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := startForwardVerb(t, ctx, e, "rt-fwd", "--port", "0")
	if status, body := r.get(t, "127.0.0.1"); status != http.StatusOK {
		t.Fatalf("before the delete: %d %q", status, body)
	}
	if code, _, errs := e.run("delete", "rt-fwd", "--yes"); code != 0 {
		t.Fatalf("delete: exit %d %q", code, errs)
	}
	if status, body := r.get(t, "127.0.0.1"); status != http.StatusBadGateway || !strings.Contains(body, "no longer exists") {
		t.Errorf("after the delete: %d %q, want 502 with the reason", status, body)
	}
	select {
	case code := <-r.done:
		want := "colabdash: runtime rt-fwd is gone (deleted or reclaimed); forward stops\n"
		if code != kit.ExitNotFound || !strings.HasSuffix(r.err.String(), want) {
			t.Errorf("exit %d, stderr %q; want 6 and %q", code, r.err.String(), want)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("forward still runs 60 s after its runtime was deleted: %q", r.err.String())
	}
}

// hasIPv6Loopback reports whether this machine can listen on [::1].
func hasIPv6Loopback() bool {
	ln, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		return false
	}
	ln.Close()
	return true
}

// With the default address (localhost), forward listens on ::1 as well
// as 127.0.0.1, so a client that resolves localhost to ::1 first (and
// does not fall back) reaches it; --address 127.0.0.1 listens there only.
// Only loopback is dialled.
func TestForwardLocalhostListensOnIPv6Loopback(t *testing.T) {
	if !hasIPv6Loopback() {
		t.Skip("this machine has no IPv6 loopback ([::1] cannot be listened on): only 127.0.0.1 can be checked, and is by the other forward tests")
	}
	e := forwardEnv(t)
	for _, args := range [][]string{{"rt-fwd", "--port", "0"}, {"rt-fwd", "--port", "0", "--address", "localhost"}} {
		ctx, cancel := context.WithCancel(context.Background())
		r := startForwardVerb(t, ctx, e, args...)
		if !strings.HasPrefix(r.url, "http://127.0.0.1:") {
			t.Errorf("%v: printed URL %q, want 127.0.0.1 (it always works)", args, r.url)
		}
		for _, host := range []string{"127.0.0.1", "[::1]"} {
			if status, body := r.get(t, host); status != http.StatusOK {
				t.Errorf("%v: through %s: %d %q", args, host, status, body)
			}
		}
		if !strings.Contains(r.err.String(), "Jupyter server on localhost:"+strconv.Itoa(r.port)+";") {
			t.Errorf("%v: stderr %q does not name localhost:%d", args, r.err.String(), r.port)
		}
		cancel()
		if code := <-r.done; code != kit.ExitInterrupted {
			t.Errorf("%v: exit %d after ctrl+c, want 130", args, code)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := startForwardVerb(t, ctx, e, "rt-fwd", "--port", "0", "--address", "127.0.0.1")
	if status, _ := r.get(t, "127.0.0.1"); status != http.StatusOK {
		t.Errorf("--address 127.0.0.1: %d", status)
	}
	if c, err := net.DialTimeout("tcp6", "[::1]:"+strconv.Itoa(r.port), 10*time.Second); err == nil {
		c.Close()
		t.Errorf("--address 127.0.0.1 also listens on [::1]:%d", r.port)
	}
}
