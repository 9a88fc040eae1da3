package proxy

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
)

// A redirect to another host is refused: the token header never reaches
// it.
func TestRedirectToOtherHostRefused(t *testing.T) {
	var leaked atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(TokenHeader) != "" || r.URL.Query().Get(TokenQuery) != "" {
			leaked.Add(1)
		}
		w.Write([]byte(`{"name":"x","type":"file"}`))
	}))
	defer other.Close()
	same := 0
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.Contains(r.URL.Path, "same"):
			same++
			if same == 1 {
				http.Redirect(w, r, srv.URL+"/api/contents/content/final", http.StatusFound)
				return
			}
		case strings.Contains(r.URL.Path, "final"):
			w.Write([]byte(`{"name":"final","path":"content/final","type":"file","size":1}`))
			return
		}
		http.Redirect(w, r, other.URL+"/steal", http.StatusFound)
	}))
	defer srv.Close()
	c, err := New(Options{Runtime: "runtimes/rt-x", Info: api.ConnectionInfo{URL: srv.URL + "/", Token: "secret-proxy-token"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Stat(context.Background(), "content/a")
	if !errors.Is(err, ErrRedirect) || leaked.Load() != 0 {
		t.Fatalf("cross-host redirect: %v (leaked %d), want ErrRedirect and nothing sent", err, leaked.Load())
	}
	if m, err := c.Stat(context.Background(), "content/same"); err != nil || m.Name != "final" {
		t.Fatalf("same-origin redirect: %+v %v, want it followed", m, err)
	}
}

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
