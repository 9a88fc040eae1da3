package colabfake

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/colabdash/colabdash/api"
)

func TestCreateRuntimeRequestIDIdempotent(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			s, cs, _ := startConnect(t, Options{Stateless: m.stateless, JSONResponse: m.jsonr, CreateDelay: 150 * time.Millisecond})
			args := createArgs("VARIANT_GPU", "T4", "SHAPE_STANDARD", uuid.NewString())
			// Two identical calls in flight at once, then a third after.
			// The goroutines only call; the results are decoded here (decode
			// may t.Fatal, which must not run off the test's goroutine).
			var wg sync.WaitGroup
			names := make([]string, 3)
			results := make([]*mcp.CallToolResult, 2)
			errs := make([]error, 2)
			for i := range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					results[i], errs[i] = callErr(cs, "create_runtime", args)
				}()
			}
			wg.Wait()
			for i := range 2 {
				if errs[i] != nil {
					t.Fatalf("concurrent create_runtime %d: %v", i, errs[i])
				}
				var rt api.Runtime
				decode(t, results[i], &rt)
				names[i] = rt.Name
			}
			var rt api.Runtime
			decode(t, call(t, cs, "create_runtime", args), &rt)
			names[2] = rt.Name
			if names[0] == "" || names[0] != names[1] || names[1] != names[2] {
				t.Fatalf("same requestId gave runtimes %v", names)
			}
			if got := len(s.Runtimes()); got != 1 || s.RuntimesCreated() != 1 || s.CreateCalls() != 3 {
				t.Fatalf("runtimes=%d created=%d calls=%d; want 1, 1, 3", got, s.RuntimesCreated(), s.CreateCalls())
			}
			// Same requestId with a different body is refused, not a second runtime.
			other := createArgs("VARIANT_CPU", "NONE", "SHAPE_STANDARD", args["requestId"].(string))
			if e := toolError(t, call(t, cs, "create_runtime", other)); e.Code != api.InvalidArgument {
				t.Errorf("reused requestId with another body: %v", e)
			}
			// Without requestId every call creates.
			call(t, cs, "create_runtime", createArgs("VARIANT_CPU", "NONE", "SHAPE_STANDARD", ""))
			call(t, cs, "create_runtime", createArgs("VARIANT_CPU", "NONE", "SHAPE_STANDARD", ""))
			if got := len(s.Runtimes()); got != 3 {
				t.Errorf("%d runtimes after two un-keyed creates, want 3", got)
			}
		})
	}
}

func TestCreateRuntimeValidation(t *testing.T) {
	_, cs, _ := startConnect(t, Options{})
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"requestId not UUID", createArgs("VARIANT_CPU", "NONE", "SHAPE_STANDARD", "req-1")},
		{"requestId UUID1", createArgs("VARIANT_CPU", "NONE", "SHAPE_STANDARD", uuid.Must(uuid.NewUUID()).String())},
		{"runtimeId upper case", func() map[string]any {
			a := createArgs("VARIANT_CPU", "NONE", "SHAPE_STANDARD", "")
			a["runtimeId"] = "My-Runtime"
			return a
		}()},
		{"runtimeId ends with hyphen", func() map[string]any {
			a := createArgs("VARIANT_CPU", "NONE", "SHAPE_STANDARD", "")
			a["runtimeId"] = "rt-"
			return a
		}()},
		{"unknown spec", createArgs("VARIANT_GPU", "NONE", "SHAPE_STANDARD", "")},
		{"empty variant", createArgs("", "T4", "SHAPE_STANDARD", "")},
	} {
		e := toolError(t, call(t, cs, "create_runtime", c.args))
		if e.Code != api.InvalidArgument || e.HTTPStatus != 400 {
			t.Errorf("%s: %v, want INVALID_ARGUMENT (HTTP 400)", c.name, e)
		}
	}
}

func TestCreateRuntimeAlreadyExists(t *testing.T) {
	s, cs, _ := startConnect(t, Options{})
	a := createArgs("VARIANT_CPU", "NONE", "SHAPE_STANDARD", uuid.NewString())
	a["runtimeId"] = "mine"
	call(t, cs, "create_runtime", a)
	a["requestId"] = uuid.NewString()
	e := operationError(t, call(t, cs, "create_runtime", a))
	if e.Code != api.AlreadyExists {
		t.Fatalf("taken runtimeId: %v, want ALREADY_EXISTS", e)
	}
	if len(s.Runtimes()) != 1 {
		t.Errorf("%d runtimes", len(s.Runtimes()))
	}
}

func TestCreateRuntimeIneligibleSpec(t *testing.T) {
	s, cs, _ := startConnect(t, Options{Tier: api.TierFree})
	e := operationError(t, call(t, cs, "create_runtime", createArgs("VARIANT_GPU", "A100", "SHAPE_STANDARD", "")))
	if e.Code != api.FailedPrecondition || e.Reason != "" {
		t.Fatalf("A100 on Free: %v, want FAILED_PRECONDITION", e)
	}
	s.SetTier(api.TierPro)
	var rt api.Runtime
	decode(t, call(t, cs, "create_runtime", createArgs("VARIANT_GPU", "A100", "SHAPE_STANDARD", "")), &rt)
	if rt.RuntimeSpec.Accelerator != "A100" {
		t.Errorf("created %+v", rt)
	}
}

func TestCreateRuntimeTooManyActive(t *testing.T) {
	s, cs, _ := startConnect(t, Options{RuntimeLimit: 2})
	call(t, cs, "create_runtime", createArgs("VARIANT_CPU", "NONE", "SHAPE_STANDARD", ""))
	call(t, cs, "create_runtime", createArgs("VARIANT_CPU", "NONE", "SHAPE_STANDARD", ""))
	res := call(t, cs, "create_runtime", createArgs("VARIANT_GPU", "T4", "SHAPE_STANDARD", ""))
	if res.IsError {
		t.Fatal("precondition failure came as isError, want a finished Operation")
	}
	e := operationError(t, res)
	if e.Code != api.FailedPrecondition || e.Reason != api.ReasonTooManyActiveRuntimes {
		t.Fatalf("third runtime: %v", e)
	}
	if len(s.Runtimes()) != 2 {
		t.Fatalf("%d runtimes", len(s.Runtimes()))
	}
	// Freeing one lets the next create through.
	call(t, cs, "delete_runtime", map[string]any{"name": s.Runtimes()[0].Name})
	if res := call(t, cs, "create_runtime", createArgs("VARIANT_GPU", "T4", "SHAPE_STANDARD", "")); res.IsError {
		t.Fatal(text(res))
	}
}

func TestCreateRuntimeRateQuota(t *testing.T) {
	s, cs, clk := startConnect(t, Options{CreatesPerMinute: 2, RuntimeLimit: -1})
	call(t, cs, "create_runtime", createArgs("VARIANT_CPU", "NONE", "SHAPE_STANDARD", ""))
	clk.Advance(7 * time.Second)
	call(t, cs, "create_runtime", createArgs("VARIANT_CPU", "NONE", "SHAPE_STANDARD", ""))
	e := toolError(t, call(t, cs, "create_runtime", createArgs("VARIANT_CPU", "NONE", "SHAPE_STANDARD", "")))
	if e.Code != api.ResourceExhausted || e.HTTPStatus != 429 || e.RetryDelay != 53*time.Second {
		t.Fatalf("third create in a minute: %v (retryDelay %v), want RESOURCE_EXHAUSTED with retryDelay 53s", e, e.RetryDelay)
	}
	if len(s.Runtimes()) != 2 {
		t.Fatalf("rate-limited create made a runtime: %d", len(s.Runtimes()))
	}
	clk.Advance(54 * time.Second)
	if res := call(t, cs, "create_runtime", createArgs("VARIANT_CPU", "NONE", "SHAPE_STANDARD", "")); res.IsError {
		t.Fatalf("after the window: %s", text(res))
	}
}

// A quota window that ends in under half a second still asks the client
// to wait a whole second, never 0 s (which would read as "retry at once").
func TestCreateRuntimeRateQuotaWaitsAtLeastASecond(t *testing.T) {
	_, cs, clk := startConnect(t, Options{CreatesPerMinute: 1, RuntimeLimit: -1})
	call(t, cs, "create_runtime", createArgs("VARIANT_CPU", "NONE", "SHAPE_STANDARD", ""))
	clk.Advance(time.Minute - 300*time.Millisecond)
	e := toolError(t, call(t, cs, "create_runtime", createArgs("VARIANT_CPU", "NONE", "SHAPE_STANDARD", "")))
	if e.Code != api.ResourceExhausted || e.RetryDelay != time.Second {
		t.Fatalf("second create 0.3 s before the window ends: %v (retryDelay %v), want RESOURCE_EXHAUSTED with retryDelay 1s", e, e.RetryDelay)
	}
}

func TestCreateRuntimeDeadlineThenWait(t *testing.T) {
	hold := make(chan struct{})
	s, cs, _ := startConnect(t, Options{CreateHold: hold, CreateDeadline: 20 * time.Millisecond})
	args := createArgs("VARIANT_GPU", "T4", "SHAPE_STANDARD", uuid.NewString())
	e := toolError(t, call(t, cs, "create_runtime", args))
	if e.Code != api.DeadlineExceeded || e.HTTPStatus != 504 {
		t.Fatalf("slow create: %v, want DEADLINE_EXCEEDED", e)
	}
	if e := toolError(t, call(t, cs, "create_runtime", args)); e.Code != api.DeadlineExceeded || s.RuntimesCreated() != 0 {
		t.Fatalf("repeated while still creating: %v, %d created", e, s.RuntimesCreated())
	}
	// Repeat until it is ready: every retry waits for the same creation.
	close(hold)
	var rt api.Runtime
	for deadline := time.Now().Add(10 * time.Second); rt.Name == "" && time.Now().Before(deadline); {
		res := call(t, cs, "create_runtime", args)
		if !res.IsError {
			decode(t, res, &rt)
		}
	}
	if rt.Name == "" || s.RuntimesCreated() != 1 || len(s.Runtimes()) != 1 {
		t.Fatalf("runtime %q, created %d", rt.Name, s.RuntimesCreated())
	}
}

func TestCreateRuntimeOperationResults(t *testing.T) {
	_, cs, _ := startConnect(t, Options{OperationResults: true})
	var op api.Operation
	decode(t, call(t, cs, "create_runtime", createArgs("VARIANT_CPU", "NONE", "SHAPE_STANDARD", "")), &op)
	var rt api.Runtime
	if !op.Done || op.Error != nil || json.Unmarshal(op.Response, &rt) != nil || rt.ConnectionInfo == nil {
		t.Fatalf("operation %+v", op)
	}
}

func TestCreateRuntimeGoesOnWhenClientGivesUp(t *testing.T) {
	for _, m := range modes[:2] {
		t.Run(m.name, func(t *testing.T) {
			// The client gives up once the emulator has the call (the
			// creation admitted), and the creation is held until then: on
			// a busy machine a short deadline could fire before the
			// request arrived, and no creation would start at all.
			hold := make(chan struct{})
			s, cs, _ := startConnect(t, Options{Stateless: m.stateless, JSONResponse: m.jsonr, CreateHold: hold})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			errc := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_runtime", Arguments: createArgs("VARIANT_CPU", "NONE", "SHAPE_STANDARD", "")})
				errc <- err
			}()
			for deadline := time.Now().Add(time.Minute); s.CallCount("create_runtime") == 0 && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
			}
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Fatalf("want the client's cancellation, got %v", err)
			}
			close(hold)
			for deadline := time.Now().Add(time.Minute); len(s.Runtimes()) == 0 && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
			}
			if len(s.Runtimes()) != 1 {
				t.Fatal("the creation stopped when the client gave up")
			}
		})
	}
}

// Close ends a creation waiting out Options.CreateDelay, or held by
// Options.CreateHold, without producing its runtime.
func TestCloseEndsPendingCreation(t *testing.T) {
	for name, o := range map[string]Options{"delay": {CreateDelay: time.Hour}, "hold": {CreateHold: make(chan struct{})}} {
		t.Run(name, func(t *testing.T) { closeEndsPendingCreation(t, o) })
	}
}

func closeEndsPendingCreation(t *testing.T, o Options) {
	s, cs, _ := startConnect(t, o)
	go func() { _, _ = callErr(cs, "create_runtime", createArgs("VARIANT_CPU", "NONE", "SHAPE_STANDARD", "")) }()
	// Wait for the creation to be pending; a creation that never started
	// would make the check below pass for nothing.
	for deadline := time.Now().Add(30 * time.Second); s.CreateCalls() == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("create_runtime never reached the emulator within 30 s")
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if len(s.Runtimes()) != 0 {
		t.Error("a creation cut short by Close produced a runtime")
	}
}
