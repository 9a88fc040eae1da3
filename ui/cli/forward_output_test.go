package cli

// What `colabdash forward` prints.

import (
	"bytes"
	"context"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// lockedBuffer is a bytes.Buffer safe to read while the command writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// runForward runs forward with args until its URL is printed and a
// request through it succeeds, then interrupts it; it returns the exit
// code, stdout and stderr.
func runForward(t *testing.T, e *verbEnv, args ...string) (int, string, string) {
	t.Helper()
	var out, errb lockedBuffer
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
	e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedEmpty})
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
