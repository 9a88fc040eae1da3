package client

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
)

// Tests of what a caller sees when a tool call is cut short: a context
// already done, a context ended during a retry's wait or during the wait
// for the initialized notification, and a lost reply to an execution that
// must not be run twice.

// A call made with a context already done sends nothing and says
// CANCELLED.
func TestCallWithDoneContextSendsNothing(t *testing.T) {
	emu, ep := startEmu(t, modes[0], colabfake.Options{Seed: colabfake.SeedDemo})
	c, sl := emuClient(t, ep)
	if err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.ListRuntimes(ctx)
	e := asAPI(t, err)
	if e.Code != api.Cancelled || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want CANCELLED", e)
	}
	if n := emu.CallCount(api.ToolListRuntimes); n != 0 || len(sl.waits()) != 0 {
		t.Fatalf("%d calls served, waits %v; want none", n, sl.waits())
	}
}

// Ctrl-C while the client waits to retry an HTTP 503: the call ends at
// once with CANCELLED, named after its tool.
func TestCancelDuringRetryWait(t *testing.T) {
	emu, ep := startEmu(t, modes[0], colabfake.Options{Seed: colabfake.SeedDemo})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var waits []time.Duration
	c, _ := emuClient(t, ep, func(o *Options) {
		o.Sleep = func(ctx context.Context, d time.Duration) error {
			waits = append(waits, d)
			cancel() // the user gives up while the client waits
			return ctx.Err()
		}
	})
	emu.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: api.ToolListRuntimes, Status: http.StatusServiceUnavailable, Times: -1})
	_, err := c.ListRuntimes(ctx)
	e := asAPI(t, err)
	if e.Code != api.Cancelled || e.Tool != api.ToolListRuntimes || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v (tool %q), want CANCELLED from list_runtimes", e, e.Tool)
	}
	if len(waits) != 1 {
		t.Fatalf("waits %v; want the one wait the user cut short", waits)
	}
}

// execute_code on a runtime target (no executionId to reattach with) that
// gets no reply within its timeout is reported as OutcomeUnknown: the code
// may be running, and is not run a second time.
func TestExecuteRuntimeTargetTimeoutIsUnknown(t *testing.T) {
	emu, ep := startEmu(t, modes[0], colabfake.Options{Seed: colabfake.SeedDemo})
	c, sl := emuClient(t, ep, func(o *Options) { o.ExecuteCodeTimeout = 200 * time.Millisecond })
	rts, err := c.ListRuntimes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	hold := make(chan struct{}) // the execution answers only after the test
	defer close(hold)
	emu.Inject(colabfake.Fault{Kind: colabfake.FaultLatency, Tool: api.ToolExecuteCode, Hold: hold})
	_, err = c.ExecuteCode(context.Background(), api.ExecuteCodeRequest{Runtime: rts[0].Name, Code: "x = 1"})
	e := asAPI(t, err)
	if !e.OutcomeUnknown || e.Tool != api.ToolExecuteCode || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want OutcomeUnknown caused by the deadline", e)
	}
	if n := emu.CallCount(api.ToolExecuteCode); n > 1 || len(sl.waits()) != 0 {
		t.Fatalf("%d calls served, waits %v; want the one call, no retry", n, sl.waits())
	}
}

// Ctrl-C while a call refused before the initialized notification waits
// for that notification (which a stuck server never answers): the call
// ends with CANCELLED instead of hanging.
func TestCancelWhileWaitingForInitialized(t *testing.T) {
	emu, _ := startEmu(t, modes[1], colabfake.Options{Seed: colabfake.SeedDemo})
	stuck := make(chan struct{}) // the notification is answered only after the test
	defer close(stuck)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec := &recorder{next: emu.Handler()}
	rec.setHook(func(method string, w http.ResponseWriter, r *http.Request) bool {
		switch method {
		case "notifications/initialized":
			<-stuck
		case "tools/call":
			// The refusal reaches the client, which then waits for the
			// notification; the user gives up meanwhile.
			time.AfterFunc(50*time.Millisecond, cancel)
			replyStatus(w, http.StatusBadRequest, "application/json", `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Received request before initialization was complete"}}`)
			return true
		}
		return false
	})
	c, sl := emuClient(t, serve(t, rec))
	_, err := c.ListRuntimes(ctx)
	e := asAPI(t, err)
	if e.Code != api.Cancelled || e.Tool != api.ToolListRuntimes {
		t.Fatalf("err = %v (tool %q), want CANCELLED from list_runtimes", e, e.Tool)
	}
	if len(sl.waits()) != 0 {
		t.Errorf("backed off %v instead of waiting for the notification", sl.waits())
	}
}

// A tool the server does not implement (HTTP 501) is asked once: the same
// request gets the same answer, so no retry waits for it.
func TestNotImplementedIsNotRetried(t *testing.T) {
	emu, ep := startEmu(t, modes[0], colabfake.Options{Seed: colabfake.SeedDemo})
	var waits []time.Duration
	c, _ := emuClient(t, ep, func(o *Options) {
		o.Sleep = func(ctx context.Context, d time.Duration) error {
			waits = append(waits, d)
			return nil
		}
	})
	emu.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: api.ToolListRuntimes, Status: http.StatusNotImplemented, Times: -1})
	_, err := c.ListRuntimes(context.Background())
	if e := asAPI(t, err); e.Code != api.Unimplemented || len(waits) != 0 {
		t.Fatalf("err %v, waits %v; want UNIMPLEMENTED, no retry", e, waits)
	}
}
