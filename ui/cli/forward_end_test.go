package cli

// Forward beyond loopback (--address) and its warning,
// and forward's end when its HTTP server fails.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// forwardEnv is a verb environment with one runtime, rt-fwd, whose
// Jupyter server the emulator serves.
func forwardEnv(t *testing.T) *verbEnv {
	t.Helper()
	e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedEmpty})
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
	var out, errb lockedBuffer
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
