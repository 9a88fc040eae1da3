package ops

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
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
	// The watcher may attach after the first cell is sent: run cells until
	// one shows, each printing a marker of its own.
	var got strings.Builder
	var stderr []string
	note := ""
	for i := 0; i < 30 && !strings.Contains(got.String(), "hello-from-elsewhere"); i++ {
		code := "import sys\nprint('hello-from-elsewhere')\nprint('oops', file=sys.stderr)\n1/0"
		if _, err := svc.ExecuteCode(ctx, api.ExecuteCodeRequest{Session: sess.Name, Code: code}); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && !strings.Contains(got.String(), "ZeroDivisionError"); {
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
	}
	out := got.String()
	in := strings.Index(out, "In [")
	hello := strings.Index(out, "hello-from-elsewhere\n")
	if in < 0 || hello < in || !strings.Contains(out[in:], "print('hello-from-elsewhere')") {
		t.Fatalf("the cell's start and output, in order, are not in the kernel's log:\n%s", out)
	}
	if !strings.Contains(out, "ZeroDivisionError") {
		t.Errorf("the exception's traceback is missing:\n%s", out)
	}
	joined := strings.Join(stderr, "")
	if !strings.Contains(joined, "oops\n") || !strings.Contains(joined, "ZeroDivisionError") || strings.Contains(joined, "hello-from-elsewhere\n") {
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
