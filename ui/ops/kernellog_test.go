package ops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/colabfaketest"
)

// Against a real kernel behind the emulator: a cell run by another
// client (execute_code through MCP) shows in the kernel's output as a
// terminal would show it, in order, its stderr marked, after the note that
// earlier output is not available; Close ends the source.
func TestKernelLogShowsAnotherClientsCell(t *testing.T) {
	srv, svc := emulator(t, colabfaketest.RealJupyterOptions(t))
	rt, err := srv.AddRuntime(api.Runtime{Name: "runtimes/rt-klog", ConnectionInfo: &api.ConnectionInfo{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sess, err := svc.CreateSession(ctx, rt.Name, "watched")
	if err != nil {
		t.Fatal(err)
	}
	jc, _, err := OpenJupyter(ctx, svc, rt.Name, JupyterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	src, err := KernelLog(ctx, jc, sess.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	// The server forwards a new socket's iopub only once its own check of
	// the channel is done, so the first cell may be seen in part: run
	// cells, each with a marker of its own, until one is seen whole.
	var got strings.Builder
	var stderr []string
	note, out, marker, whole := "", "", "", false
	for i := 0; i < 30 && !whole; i++ {
		marker = fmt.Sprintf("hello-from-elsewhere-%d", i)
		code := "import sys\nprint('" + marker + "')\nprint('oops', file=sys.stderr)\n1/0"
		if _, err := svc.ExecuteCode(ctx, api.ExecuteCodeRequest{Session: sess.Name, Code: code}); err != nil {
			t.Fatal(err)
		}
		got.Reset()
		stderr = stderr[:0]
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && !strings.Contains(got.String(), "ZeroDivisionError: "); {
			c, err := src.Next(ctx)
			if err != nil {
				t.Fatalf("Next: %v", err)
			}
			if note == "" {
				note = c.Note
			}
			got.Write(c.Data)
			for _, r := range c.Stderr {
				stderr = append(stderr, string(c.Data[r.Off-c.Off:r.Off-c.Off+r.Len]))
			}
		}
		out = got.String()
		in := strings.Index(out, "In [")
		whole = in >= 0 && strings.Contains(out[in:], "print('"+marker+"')") && strings.Index(out, marker+"\n") > in
	}
	if !whole {
		t.Fatalf("no cell's start and output, in order, in the kernel's log:\n%s", out)
	}
	if !strings.Contains(out, "ZeroDivisionError") {
		t.Errorf("the exception's traceback is missing:\n%s", out)
	}
	joined := strings.Join(stderr, "")
	if !strings.Contains(joined, "oops\n") || !strings.Contains(joined, "ZeroDivisionError") || slices.Contains(stderr, marker+"\n") {
		t.Errorf("stderr pieces %q: want the stderr print and the traceback, not stdout", stderr)
	}
	if note != KernelNoteBefore {
		t.Errorf("first note %q, want %q", note, KernelNoteBefore)
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Next(ctx); !errors.Is(err, io.EOF) {
		t.Errorf("Next after Close: %v, want io.EOF", err)
	}
}

// On the emulator too (the demo), a session's kernel output shows a cell
// another client ran in it: its input and what it printed, stderr apart.
func TestKernelLogShowsAnotherClientsCellOnTheEmulator(t *testing.T) {
	srv, svc := emulator(t, colabfake.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rt := "runtimes/" + colabfake.DemoJobsRuntime
	sess, err := svc.CreateSession(ctx, rt, "watched")
	if err != nil {
		t.Fatal(err)
	}
	jc, _, err := OpenJupyter(ctx, svc, rt, JupyterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	src, err := KernelLog(ctx, jc, sess.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	for srv.KernelConnections(sess.Name) == 0 { // the socket is open once the server counts it
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := svc.ExecuteCode(ctx, api.ExecuteCodeRequest{Session: sess.Name, Code: "print('from elsewhere')"}); err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for !strings.Contains(got.String(), "from elsewhere\n") {
		c, err := src.Next(ctx)
		if err != nil {
			t.Fatalf("Next: %v (so far %q)", err, got.String())
		}
		got.Write(c.Data)
	}
	if !strings.Contains(got.String(), "In [1]: print('from elsewhere')\n") {
		t.Errorf("the cell's input is missing:\n%s", got.String())
	}
}
