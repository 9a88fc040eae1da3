package kernel_test

// The client against a real kernel of the real jupyter-server, behind the
// emulator's runtime proxy (internal/jupytertest's "jupyter" backend).

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/realjupyter"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/kernel"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

func TestMain(m *testing.M) { jupytertest.Main(m) }

// ansi matches IPython's colour codes in a traceback.
var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

// realKernel starts a kernel on the shared real server and returns the
// runtime's proxy client (a Dialer) and the kernel's id.
func realKernel(t *testing.T) (*jupytertest.Env, *proxy.Client, string) {
	t.Helper()
	e := jupytertest.NewEnv(t, jupytertest.Jupyter, colabfake.Options{})
	pc, err := proxy.New(proxy.Options{Runtime: e.Rt.Name, Info: e.Info(), Renew: e.Renew, Redactor: e.Red})
	if err != nil {
		t.Fatal(err)
	}
	return e, pc, realjupyter.StartKernel(t, e.Info())
}

// testCtx bounds a test's waits generously (a kernel's cold start on a
// busy machine); nothing waits for it to pass.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func dial(t *testing.T, pc *proxy.Client, k string, o kernel.Options) *kernel.Conn {
	t.Helper()
	c, err := kernel.Dial(testCtx(t), pc, k, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func execute(t *testing.T, c *kernel.Conn, code string) *kernel.Result {
	t.Helper()
	r, err := c.Execute(testCtx(t), code)
	if err != nil {
		t.Fatalf("Execute(%q): %v", code, err)
	}
	return r
}

// What a user sees of a run: stdout and stderr apart and in order, the
// last expression's value, an exception with its traceback, state kept
// from one run to the next, input() failing at once, display text.
func TestExecuteOnARealKernel(t *testing.T) {
	_, pc, k := realKernel(t)
	c := dial(t, pc, k, kernel.Options{})
	r := execute(t, c, "import sys\nprint('out 1')\nprint('err 1', file=sys.stderr)\nprint('out 2')\nx = 20\nx + 22")
	if r.Stdout != "out 1\nout 2\n" || r.Stderr != "err 1\n" || r.Result != "42" || r.Error != nil || r.Status != "ok" {
		t.Fatalf("first run: stdout %q stderr %q result %q error %+v status %q", r.Stdout, r.Stderr, r.Result, r.Error, r.Status)
	}
	if r.ExecutionCount != 1 {
		t.Errorf("In[%d], want 1", r.ExecutionCount)
	}
	r = execute(t, c, "print(x * 2)\nraise ValueError('bad ' + str(x))")
	if r.Stdout != "40\n" {
		t.Errorf("state not kept: stdout %q", r.Stdout)
	}
	if r.Error == nil || r.Error.Name != "ValueError" || r.Error.Value != "bad 20" || r.Status != "error" {
		t.Fatalf("exception: %+v, status %q", r.Error, r.Status)
	}
	if tb := ansi.ReplaceAllString(strings.Join(r.Error.Traceback, "\n"), ""); !strings.Contains(tb, "----> 2 raise ValueError") {
		t.Errorf("traceback lacks the raising line: %q", tb)
	}
	// Right after an exception: it runs (not aborted), and input() fails at once.
	r = execute(t, c, "input('name? ')")
	if r.Error == nil || !strings.Contains(r.Error.Name, "StdinNotImplemented") {
		t.Errorf("input(): %+v, want StdinNotImplementedError at once", r.Error)
	}
	r = execute(t, c, "from IPython.display import display\ndisplay('shown')\nNone")
	if len(r.Displays) != 1 || r.Displays[0] != "'shown'" || r.Result != "" {
		t.Errorf("display: %q, result %q", r.Displays, r.Result)
	}
}

// Output past Options.MaxOutput is dropped, and the result says so; the
// kernel's state is intact afterwards.
func TestExecuteOutputIsBounded(t *testing.T) {
	_, pc, k := realKernel(t)
	c := dial(t, pc, k, kernel.Options{MaxOutput: 1000})
	r := execute(t, c, "for i in range(200):\n    print('line %03d' % i)")
	if !r.Truncated || len(r.Stdout) != 1000 || !strings.HasPrefix(r.Stdout, "line 000\n") {
		t.Fatalf("truncated %v, %d bytes kept starting %q", r.Truncated, len(r.Stdout), r.Stdout[:min(len(r.Stdout), 20)])
	}
	if r = execute(t, c, "print('after')"); r.Stdout != "after\n" || r.Truncated {
		t.Fatalf("the next run: %q truncated %v", r.Stdout, r.Truncated)
	}
}

// Watch sees what another client's cells publish (the code, its output,
// its exception, the kernel going busy and idle), and ends with the
// context.
func TestWatchSeesAnotherClientsCells(t *testing.T) {
	_, pc, k := realKernel(t)
	ctx, cancel := context.WithCancel(testCtx(t))
	msgs := make(chan kernel.Message, 256)
	watching := make(chan error, 1)
	go func() {
		watching <- kernel.Watch(ctx, pc, k, kernel.Options{}, func(m kernel.Message) error {
			msgs <- m
			return nil
		})
	}()
	other := dial(t, pc, k, kernel.Options{})
	// The watcher's socket may open after the first run: run until it
	// sees one (it announces itself with the kernel_info nudge's status).
	var sawInput, sawOut, sawErr, sawIdle bool
	deadline := time.After(90 * time.Second)
	for !(sawInput && sawOut && sawErr && sawIdle) {
		execute(t, other, "print('from elsewhere')\n1/0")
	drain:
		for {
			select {
			case m := <-msgs:
				if in, ok := m.Input(); ok && strings.Contains(in.Code, "from elsewhere") {
					sawInput = true
				}
				if s, ok := m.Stream(); ok && s.Name == "stdout" && s.Text == "from elsewhere\n" {
					sawOut = true
				}
				if e, ok := m.Exception(); ok && e.Name == "ZeroDivisionError" {
					sawErr = true
				}
				if st, ok := m.State(); ok && st == "idle" && sawInput {
					sawIdle = true
				}
				if sawInput && sawOut && sawErr && sawIdle {
					break drain
				}
			case <-time.After(2 * time.Second):
				break drain // nothing more from this run: run again
			case <-deadline:
				t.Fatalf("watch saw input %v, stdout %v, error %v, idle %v", sawInput, sawOut, sawErr, sawIdle)
			}
		}
	}
	cancel()
	select {
	case err := <-watching:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Watch ended with %v, want the context's error", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Watch did not end with its context")
	}
}

// A kernel killed (kill -9) while code runs ends the Execute with
// ErrKernelLost (the server restarts the kernel and says so) or
// ErrClosed, not a wait for ever.
func TestExecuteEndsWhenTheKernelIsKilled(t *testing.T) {
	_, pc, k := realKernel(t)
	started := make(chan struct{}, 1)
	c := dial(t, pc, k, kernel.Options{OnIOPub: func(m kernel.Message) {
		if s, ok := m.Stream(); ok && s.Text == "started\n" {
			started <- struct{}{}
		}
	}})
	r := execute(t, c, "import os\nos.getpid()")
	pid, err := strconv.Atoi(r.Result)
	if err != nil || pid <= 1 {
		t.Fatalf("the kernel's pid: %q", r.Result)
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.Execute(testCtx(t), "import time\nprint('started', flush=True)\ntime.sleep(600)")
		done <- err
	}()
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("the run ended before it printed: %v", err)
	case <-time.After(90 * time.Second):
		t.Fatal("the code never started")
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, kernel.ErrClosed) && !errors.Is(err, kernel.ErrKernelLost) {
			t.Fatalf("Execute on a killed kernel: %v", err)
		}
	case <-time.After(90 * time.Second):
		t.Fatal("Execute went on after its kernel was killed")
	}
}

// Dial through a proxy token that has expired renews it first (as every
// proxy request does); an id that cannot be a path segment is refused
// without a request.
func TestDialRenewsAndRefusesBadIDs(t *testing.T) {
	e, pc, k := realKernel(t)
	e.Srv.ExpireToken(e.Rt.Name, jupytertest.T0.Add(-time.Minute))
	c := dial(t, pc, k, kernel.Options{})
	if r := execute(t, c, "'renewed'"); r.Result != "'renewed'" {
		t.Fatalf("after a renewal: %+v", r)
	}
	if pc.Renewals() == 0 {
		t.Error("the expired token was not renewed")
	}
	for _, bad := range []string{"", "..", "a/b", "k?x=1", strings.Repeat("a", 200)} {
		if _, err := kernel.Dial(testCtx(t), pc, bad, kernel.Options{}); !errors.Is(err, kernel.ErrBadKernelID) {
			t.Errorf("Dial(%q): %v, want ErrBadKernelID", bad, err)
		}
	}
}
