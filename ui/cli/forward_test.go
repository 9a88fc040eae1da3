package cli

// `colabdash forward`: what it prints, where it listens, and how it ends.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/cli/kit/kittest"
)

// runForward runs forward with args until its URL is printed and a
// request through it succeeds, then interrupts it; it returns the exit
// code, stdout and stderr.
func runForward(t *testing.T, e *verbEnv, args ...string) (int, string, string) {
	t.Helper()
	var out, errb kittest.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- runStreamsContext(ctx, append(append([]string{"forward"}, args...), e.flags...), &kit.Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	}()
	url := regexp.MustCompile(`http://\S+/\?token=\S+`)
	deadline := time.Now().Add(60 * time.Second)
	for !url.MatchString(out.String()) {
		select {
		case code := <-done:
			t.Fatalf("forward %v ended: exit %d %q %q", args, code, out.String(), errb.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("forward %v printed no URL within 60 s: %q %q", args, out.String(), errb.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	u := url.FindString(out.String())
	resp, err := http.Get(strings.Replace(u, "/?token=", "/api/contents/content?token=", 1))
	if err != nil {
		t.Fatalf("the printed URL %q does not answer: %v", u, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("through the printed URL: HTTP %d", resp.StatusCode)
	}
	cancel()
	select {
	case code := <-done:
		return code, out.String(), errb.String()
	case <-time.After(60 * time.Second):
		t.Fatal("forward did not end within 60 s of the interrupt")
	}
	return 0, "", ""
}

// Guards forward's output (golden, port and token masked) and the host
// it prints: the address asked for (--address 127.0.0.2, a loopback
// address that is not 127.0.0.1), where it listens, with no warning, and
// exit 0 on ctrl+c.
func TestForwardOutputGolden(t *testing.T) {
	e := emptyVerbEnv(t)
	if _, err := e.srv.AddRuntime(api.Runtime{Name: "runtimes/rt-fwd", ConnectionInfo: &api.ConnectionInfo{},
		RuntimeSpec: api.RuntimeSpecKey{Variant: api.VariantCPU, Accelerator: api.AcceleratorNone, Shape: api.ShapeStandard}}); err != nil {
		t.Fatal(err)
	}
	mask := func(s string) []byte {
		s = regexp.MustCompile(`token=[A-Za-z0-9_-]+`).ReplaceAllString(s, "token=TOKEN")
		s = regexp.MustCompile(`:\d{2,5}\b`).ReplaceAllString(s, ":PORT")
		return []byte(s)
	}
	for _, tc := range []struct{ name, address, host string }{
		{"default", "", "127.0.0.1"},
		{"address_127.0.0.2", "127.0.0.2", "127.0.0.2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"rt-fwd", "--port", "0"}
			if tc.address != "" {
				args = append(args, "--address", tc.address)
			}
			code, out, errs := runForward(t, e, args...)
			if code != kit.ExitInterrupted { // as forward --help says
				t.Fatalf("forward ended by ctrl+c: exit %d, want 130 (%q)", code, errs)
			}
			if !strings.HasPrefix(out, "http://"+tc.host+":") {
				t.Errorf("printed URL %q, want host %s (where it listens)", out, tc.host)
			}
			if strings.Contains(errs, "WARNING") {
				t.Errorf("a loopback address printed the warning: %q", errs)
			}
			golden.RequireEqual(t, mask("stdout:\n"+out+"stderr:\n"+errs))
		})
	}
}

// Forward beyond loopback (--address) and its warning,
// and forward's end when its HTTP server fails.

// forwardEnv is a verb environment with one runtime, rt-fwd, whose
// Jupyter server the emulator serves.
func forwardEnv(t *testing.T) *verbEnv {
	t.Helper()
	e := emptyVerbEnv(t)
	if _, err := e.srv.AddRuntime(api.Runtime{Name: "runtimes/rt-fwd", ConnectionInfo: &api.ConnectionInfo{},
		RuntimeSpec: api.RuntimeSpecKey{Variant: api.VariantCPU, Accelerator: api.AcceleratorNone, Shape: api.ShapeStandard}}); err != nil {
		t.Fatal(err)
	}
	return e
}

// netnsEnv is set in the test binary re-run inside a network namespace
// of its own (inOwnNetns).
const netnsEnv = "COLABDASH_TEST_NETNS"

// wideAddress is the address beyond loopback the namespace's lo carries:
// not a loopback address, reachable only inside the namespace.
const wideAddress = "10.200.0.1"

// inOwnNetns re-runs the calling test in a new network namespace (unshare
// -n) whose lo is up and also carries wideAddress, so what it listens on
// beyond loopback is reachable from nowhere else; it fails when the test
// fails there, and skips when unshare -n is not available.
func inOwnNetns(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"unshare", "ip"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("forward beyond loopback runs only in a network namespace of its own: %s is not installed", tool)
		}
	}
	if out, err := exec.Command("unshare", "-n", "true").CombinedOutput(); err != nil {
		why := fmt.Sprintf("forward beyond loopback runs only in a network namespace of its own: unshare -n fails here (it needs root or user namespaces): %v %s", err, out)
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set, and CI runs as root, but %s", why)
		}
		t.Skip(why)
	}
	cmd := exec.Command("unshare", "-n", "sh", "-c", `ip link set lo up && ip addr add `+wideAddress+`/32 dev lo && exec "$0" "$@"`,
		os.Args[0], "-test.run", "^"+t.Name()+"$", "-test.count=1", "-test.v")
	for _, kv := range os.Environ() {
		// No proxy: a request to wideAddress must go to the forward.
		if k, _, _ := strings.Cut(kv, "="); !strings.EqualFold(k, "http_proxy") && !strings.EqualFold(k, "https_proxy") && !strings.EqualFold(k, "all_proxy") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, netnsEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("in its own network namespace: %v\n%s", err, out)
	}
}

// Guards --address beyond loopback: forward listens there, prints the URL
// on the address asked for (loopback for "any", 0.0.0.0), warns on stderr
// that anyone who reaches the port and learns the token can run code on
// the runtime, and still forwards with the token. It runs in a network
// namespace of its own, so nothing outside can reach what it opens.
func TestForwardBeyondLoopbackWarns(t *testing.T) {
	if os.Getenv(netnsEnv) == "" {
		inOwnNetns(t)
		return
	}
	e := forwardEnv(t)
	for _, tc := range []struct{ address, host string }{
		{wideAddress, wideAddress},
		{"0.0.0.0", "127.0.0.1"},
	} {
		code, out, errs := runForward(t, e, "rt-fwd", "--port", "0", "--address", tc.address)
		if code != kit.ExitInterrupted {
			t.Fatalf("--address %s: ctrl+c ended it with exit %d, want 130 (%q)", tc.address, code, errs)
		}
		if !strings.HasPrefix(out, "http://"+tc.host+":") {
			t.Errorf("--address %s: printed URL %q, want host %s", tc.address, out, tc.host)
		}
		warning := "colabdash: WARNING: listening on " + tc.address + ", beyond this machine: anyone who can reach port "
		if !strings.HasPrefix(errs, warning) || !strings.Contains(errs, "can run code on runtime rt-fwd and read its files") ||
			!strings.Contains(errs, "Prefer the default, localhost.") {
			t.Errorf("--address %s: stderr does not start with the warning %q:\n%s", tc.address, warning, errs)
		}
	}
	// A loopback address other than 127.0.0.1 is no reason to warn.
	if _, _, errs := runForward(t, e, "rt-fwd", "--port", "0", "--address", "127.0.0.2"); strings.Contains(errs, "WARNING") {
		t.Errorf("--address 127.0.0.2 warned: %q", errs)
	}
}

// brokenListener is a listener whose Accept fails for good, as a real one
// does when its socket is taken away: http.Server.Serve returns the error.
type brokenListener struct{ net.Listener }

func (brokenListener) Accept() (net.Conn, error) {
	return nil, errors.New("accept tcp: the listening socket is gone")
}

// Guards forward's end on a Serve error: it does not wait for ctrl+c but
// ends at once with exit code 1 and one line that says why.
func TestForwardEndsWhenServeFails(t *testing.T) {
	e := forwardEnv(t)
	var out, errb kittest.Buffer
	s := &kit.Streams{In: strings.NewReader(""), Out: &out, Err: &errb,
		Listen: func(network, address string) (net.Listener, error) {
			ln, err := net.Listen(network, address)
			if err != nil {
				return nil, err
			}
			return brokenListener{ln}, nil
		}}
	done := make(chan int, 1)
	go func() {
		done <- runStreamsContext(context.Background(), append([]string{"forward", "rt-fwd", "--port", "0"}, e.flags...), s)
	}()
	var code int
	select {
	case code = <-done:
	case <-time.After(60 * time.Second):
		t.Fatalf("forward still runs 60 s after its server failed: %q %q", out.String(), errb.String())
	}
	if code != kit.ExitFailure {
		t.Errorf("exit %d, want %d", code, kit.ExitFailure)
	}
	lines := strings.Split(strings.TrimSuffix(errb.String(), "\n"), "\n")
	if want := "colabdash: forward stopped: accept tcp: the listening socket is gone"; lines[len(lines)-1] != want {
		t.Errorf("last line of stderr %q, want %q (all: %q)", lines[len(lines)-1], want, errb.String())
	}
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "Forwarding runtime rt-fwd's Jupyter server on localhost:") {
		t.Errorf("stderr is not the forwarding line and the one line why it stopped: %q", errb.String())
	}
}

// forward's end when its runtime is deleted, and where it listens for
// "localhost".

// runningForward is a forward started by startForwardVerb.
type runningForward struct {
	url      string // the printed URL: http://HOST:PORT/?token=…
	port     int
	token    string
	done     chan int
	out, err *kittest.Buffer
}

// startForwardVerb runs forward with args until it prints its URL; ctx's
// end interrupts it.
func startForwardVerb(t *testing.T, ctx context.Context, e *verbEnv, args ...string) *runningForward {
	t.Helper()
	r := &runningForward{done: make(chan int, 1), out: &kittest.Buffer{}, err: &kittest.Buffer{}}
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
