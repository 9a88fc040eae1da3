package proxy

// Interrupting a session's kernel through the proxy.

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
)

// Interrupt: /api/sessions → kernel id → /api/kernels/{id}/interrupt.
func TestInterruptSession(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client()
	ctx := context.Background()
	ss, err := e.Svc.CreateSession(ctx, e.Rt.Name, "")
	if err != nil {
		t.Fatal(err)
	}
	// Code that runs for a minute, interrupted through the proxy.
	type result struct {
		res api.ExecuteCodeResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := e.Svc.ExecuteCode(ctx, api.ExecuteCodeRequest{Session: ss.Name, Code: "import time\ntime.sleep(60)"})
		done <- result{res, err}
	}()
	for deadline := time.Now().Add(30 * time.Second); e.Srv.RunningCode(ss.Name) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the code never started")
		}
		time.Sleep(5 * time.Millisecond)
	}
	k, err := c.InterruptSession(ctx, ss.Name)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r.err != nil || r.res.ExecutionError == nil || r.res.ExecutionError.Name != "KeyboardInterrupt" {
			t.Fatalf("the interrupted run answered %+v, %v; want a KeyboardInterrupt", r.res, r.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the interrupt did not stop the running code")
	}
	if k == "" || k != e.Srv.KernelID(ss.Name) || e.Srv.Interrupts(k) != 1 {
		t.Fatalf("interrupted kernel %q; emulator kernel %q has %d interrupts", k, e.Srv.KernelID(ss.Name), e.Srv.Interrupts(k))
	}
	if _, err := c.InterruptSession(ctx, e.Rt.Name+"/sessions/not-open"); !errors.Is(err, ErrNoKernel) {
		t.Fatalf("unknown session: %v, want ErrNoKernel", err)
	}
}

// A kernel id from /api/sessions is one path segment of the interrupt's
// URL: "/" and "?" are escaped, and "." or ".." is refused before any
// request leaves.
func TestInterruptKernelIDIsOneSegment(t *testing.T) {
	var mu sync.Mutex
	var got []string
	c := serve(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.EscapedPath()+"?"+r.URL.RawQuery)
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	ctx := context.Background()
	for _, id := range []string{"..", "."} {
		err := c.Interrupt(ctx, id)
		var e *Error
		if !errors.As(err, &e) || e.Kind != ErrUnsafeName {
			t.Errorf("kernel %q: %v, want ErrUnsafeName", id, err)
		}
	}
	if err := c.Interrupt(ctx, "../../api/contents/x?y#z"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0] != "/api/kernels/..%2F..%2Fapi%2Fcontents%2Fx%3Fy%23z/interrupt?" {
		t.Errorf("requests: %q", got)
	}
}
