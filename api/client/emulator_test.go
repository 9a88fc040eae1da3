package client

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/colabfaketest"
	"github.com/colabdash/colabdash/api/colabfake/testkit"
	"github.com/colabdash/colabdash/api/secrettest"
)

// Integration tests: the client against the emulator (api/colabfake) over
// real loopback HTTP.

const oauthToken = "ya29.test-oauth-token"

func startEmu(t *testing.T, m serverMode, o colabfake.Options) (*colabfake.Server, string) {
	t.Helper()
	o.Stateless, o.JSONResponse = m.stateless, m.json
	if o.CreatesPerMinute == 0 {
		o.CreatesPerMinute = -1
	}
	return colabfaketest.Start(t, o)
}

func bearerClient() *http.Client {
	return oauth2.NewClient(context.Background(), oauth2.StaticTokenSource(&oauth2.Token{AccessToken: oauthToken}))
}

func emuClient(t *testing.T, ep string, mod ...func(*Options)) (*Client, *sleeps) {
	return newClient(t, ep, append([]func(*Options){func(o *Options) { o.HTTPClient = bearerClient() }}, mod...)...)
}

func cpu() api.RuntimeSpecKey {
	return api.RuntimeSpecKey{Variant: api.VariantCPU, Accelerator: api.AcceleratorNone, Shape: api.ShapeStandard}
}

func TestEmulatorEveryTool(t *testing.T) {
	for _, m := range modes {
		for _, ops := range []bool{false, true} {
			name := m.name
			if ops {
				name += "/operation-results"
			}
			t.Run(name, func(t *testing.T) {
				emu, ep := startEmu(t, m, colabfake.Options{Seed: colabfake.SeedDemo, OperationResults: ops})
				c, _ := emuClient(t, ep)
				ctx := context.Background()

				sub, err := c.GetSubscription(ctx)
				if err != nil || sub.Tier != api.TierPro {
					t.Fatalf("GetSubscription = %+v, %v", sub, err)
				}
				specs, err := c.ListRuntimeSpecs(ctx)
				if err != nil || len(specs) == 0 {
					t.Fatalf("ListRuntimeSpecs = %v, %v", specs, err)
				}
				eligible := 0
				for _, s := range specs {
					if s.Eligible {
						eligible++
					}
				}
				if eligible == 0 || eligible == len(specs) {
					t.Errorf("eligibility not decoded: %d of %d eligible on Pro", eligible, len(specs))
				}
				rts, err := c.ListRuntimes(ctx)
				if err != nil || len(rts) != 3 {
					t.Fatalf("ListRuntimes = %v, %v", rts, err)
				}
				before := rts[0].ConnectionInfo.Token
				got, err := c.GetRuntime(ctx, rts[0].Name)
				if err != nil || got.ConnectionInfo == nil || got.ConnectionInfo.Token == before || got.ExpireTime().IsZero() {
					t.Fatalf("GetRuntime did not renew the token: %+v, %v", got, err)
				}
				rt, err := c.CreateRuntime(ctx, api.CreateRuntimeRequest{Spec: api.RuntimeSpecKey{Variant: api.VariantCPU}})
				if err != nil || rt.Name == "" || rt.RuntimeSpec != cpu() {
					t.Fatalf("CreateRuntime = %+v, %v", rt, err)
				}
				if emu.RuntimesCreated() != 1 {
					t.Fatalf("created %d", emu.RuntimesCreated())
				}
				s, err := c.CreateSession(ctx, rt.Name, "dash-test")
				if err != nil || s.Name != rt.Name+"/sessions/dash-test" {
					t.Fatalf("CreateSession = %+v, %v", s, err)
				}
				ss, err := c.ListSessions(ctx, rt.Name)
				if err != nil || len(ss) != 1 {
					t.Fatalf("ListSessions = %v, %v", ss, err)
				}
				nb, err := c.ListSessions(ctx, rts[0].Name)
				if err != nil {
					t.Fatal(err)
				}
				_ = nb // the demo seed's notebooks; the count is the emulator's business
				out, err := c.ExecuteCode(ctx, api.ExecuteCodeRequest{Session: s.Name, Code: `print("hello")`})
				if err != nil || out.Stdout != "hello\n" || out.ExecutionError != nil {
					t.Fatalf("ExecuteCode = %+v, %v", out, err)
				}
				out, err = c.ExecuteCode(ctx, api.ExecuteCodeRequest{Session: s.Name, Code: `raise ValueError("boom")`})
				if err != nil || out.ExecutionError == nil || out.ExecutionError.Name == "" {
					t.Fatalf("ExecuteCode(raise) = %+v, %v (an exception is a result, not an error)", out, err)
				}
				out, err = c.ExecuteCode(ctx, api.ExecuteCodeRequest{Runtime: rt.ID(), Code: `print("x")`})
				if err != nil || out.Session == "" {
					t.Fatalf("ExecuteCode(runtime) = %+v, %v", out, err)
				}
				if err := c.DeleteSession(ctx, s.Name); err != nil {
					t.Fatal(err)
				}
				if err := c.DeleteRuntime(ctx, rt.Name); err != nil {
					t.Fatal(err)
				}
				if err := c.DeleteRuntime(ctx, rt.Name); err != nil {
					t.Fatalf("deleting a runtime already gone: %v", err)
				}
				_, err = c.GetRuntime(ctx, rt.Name)
				if e := asAPI(t, err); e.Code != api.NotFound {
					t.Fatalf("GetRuntime(deleted) = %v", e)
				}
				if n := emu.CallCount(api.ToolGetRuntime); n != 2 {
					t.Errorf("get_runtime called %d times, want 2 (NOT_FOUND is not retried)", n)
				}
			})
		}
	}
}

func TestEmulatorSchemaVariants(t *testing.T) {
	emu, ep := startEmu(t, modes[0], colabfake.Options{Seed: colabfake.SeedDemo, LegacySessionIDSchema: true, NoAllowMissing: true})
	c, _ := emuClient(t, ep)
	ctx := context.Background()
	rts, _ := c.ListRuntimes(ctx)
	s, err := c.CreateSession(ctx, rts[0].Name, "legacy-id")
	if err != nil || s.ID() != "legacy-id" {
		t.Fatalf("CreateSession with a session_id schema = %+v, %v", s, err)
	}
	// Without allowMissing in the schema, a gone runtime is still deleted.
	if err := c.DeleteRuntime(ctx, "runtimes/never-was"); err != nil {
		t.Fatalf("DeleteRuntime = %v", err)
	}
	if emu.CallCount(api.ToolDeleteRuntime) != 1 {
		t.Fatal("delete_runtime retried")
	}
}

func TestMalformedReplies(t *testing.T) {
	emu, ep := startEmu(t, modes[0], colabfake.Options{Seed: colabfake.SeedDemo})
	c, _ := emuClient(t, ep)
	ctx := context.Background()
	for _, tc := range []struct{ out, want string }{
		{`{"runtimes":"oops"}`, "malformed reply from list_runtimes: runtimes is a JSON string"},
		{`{"runtimes":[{"name":"runtimes/a","connectionInfo":{"expireTime":"soon"}},{"runtimeSpec":{"variant":"VARIANT_GPU"}},{"name":"runtimes/b","runtimeSpec":{"variant":"VARIANT_QPU","accelerator":"Q1","shape":"SHAPE_WIDE"},"newField":1}]}`, ""},
	} {
		emu.Inject(colabfake.Fault{Kind: colabfake.FaultOutput, Tool: api.ToolListRuntimes, Output: json.RawMessage(tc.out)})
		rts, err := c.ListRuntimes(ctx)
		if tc.want != "" {
			e := asAPI(t, err)
			if e.Code != api.Internal || !strings.Contains(e.Error(), tc.want) {
				t.Fatalf("err = %v", e)
			}
			continue
		}
		if err != nil || len(rts) != 2 || !rts[0].ExpireTime().IsZero() || rts[1].RuntimeSpec.Variant != "VARIANT_QPU" || rts[1].ConnectionInfo != nil {
			t.Fatalf("lenient decode = %+v, %v", rts, err)
		}
	}
	// get_runtime with a reply that has no name.
	emu.Inject(colabfake.Fault{Kind: colabfake.FaultOutput, Tool: api.ToolGetRuntime, Output: json.RawMessage(`{}`)})
	_, err := c.GetRuntime(ctx, "runtimes/x")
	if e := asAPI(t, err); e.Code != api.Internal || !strings.Contains(e.Message, "malformed reply from get_runtime") {
		t.Fatalf("err = %v", e)
	}
	// A reply that is not JSON-RPC at all: reads retry and recover.
	emu.Inject(colabfake.Fault{Kind: colabfake.FaultMalformed, Tool: api.ToolListRuntimes})
	if rts, err := c.ListRuntimes(ctx); err != nil || len(rts) != 3 {
		t.Fatalf("after a malformed reply: %v, %v", rts, err)
	}
	// A truncated reply, every time: a clear error, no panic, no hang.
	emu.Inject(colabfake.Fault{Kind: colabfake.FaultTruncated, Tool: api.ToolListRuntimes, Times: -1})
	_, err = c.ListRuntimes(ctx)
	e := asAPI(t, err)
	if e.Tool != api.ToolListRuntimes || strings.Contains(e.Error(), "\n") {
		t.Fatalf("truncated: %v", e)
	}
	emu.ClearFaults()
	// Text-only reply whose text is not JSON.
	emu.Inject(colabfake.Fault{Kind: colabfake.FaultOutput, Tool: api.ToolGetSubscription, Output: json.RawMessage(`"just words"`)})
	_, err = c.GetSubscription(ctx)
	if e := asAPI(t, err); e.Code != api.Internal {
		t.Fatalf("err = %v", e)
	}
}

// A malformed reply to create_runtime is an unknown outcome, not a retry.
func TestCreateMalformedReplyIsUnknown(t *testing.T) {
	emu, ep := startEmu(t, modes[0], colabfake.Options{})
	c, _ := emuClient(t, ep)
	emu.Inject(colabfake.Fault{Kind: colabfake.FaultMalformed, Tool: api.ToolCreateRuntime})
	_, err := c.CreateRuntime(context.Background(), api.CreateRuntimeRequest{Spec: cpu()})
	if e := asAPI(t, err); !e.OutcomeUnknown {
		t.Fatalf("err = %v", e)
	}
	if emu.CreateCalls() != 1 || emu.RuntimesCreated() != 1 {
		t.Fatalf("create calls %d, created %d", emu.CreateCalls(), emu.RuntimesCreated())
	}
}

func TestJSONRPCErrors(t *testing.T) {
	emu, ep := startEmu(t, modes[0], colabfake.Options{})
	c, sl := emuClient(t, ep)
	ctx := context.Background()
	emu.Inject(colabfake.Fault{Kind: colabfake.FaultJSONRPCError, Tool: api.ToolGetRuntime, RPCCode: -32000,
		Message: "FAILED_PRECONDITION: the runtime is being deleted"})
	_, err := c.GetRuntime(ctx, "r-1")
	if e := asAPI(t, err); e.Code != api.FailedPrecondition || !strings.Contains(e.Message, "being deleted") {
		t.Fatalf("err = %v", e)
	}
	emu.Inject(colabfake.Fault{Kind: colabfake.FaultJSONRPCError, Tool: api.ToolGetRuntime, RPCCode: -32000, Message: "request failed",
		Data: json.RawMessage(colabfake.GoogleErrorText(api.PermissionDenied, "Caller lacks permission", api.ReasonUserProjectDenied, 0))})
	_, err = c.GetRuntime(ctx, "r-1")
	if e := asAPI(t, err); e.Code != api.PermissionDenied || e.Reason != api.ReasonUserProjectDenied {
		t.Fatalf("err = %v", e)
	}
	emu.Inject(colabfake.Fault{Kind: colabfake.FaultJSONRPCError, Tool: api.ToolGetRuntime, RPCCode: -32603, Message: "boom"})
	emu.Inject(colabfake.Fault{Kind: colabfake.FaultJSONRPCError, Tool: api.ToolGetRuntime, RPCCode: -32603, Message: "boom"})
	_, err = c.GetRuntime(ctx, "r-1")
	if e := asAPI(t, err); e.Code != api.NotFound {
		t.Fatalf("after two INTERNAL JSON-RPC errors the retry should reach the tool: %v", e)
	}
	if len(sl.waits()) != 2 {
		t.Fatalf("waits = %v", sl.waits())
	}
}

// A refused connection: a read is retried by the client, create_runtime
// is returned to its caller after one try; neither is an unknown outcome.
func TestConnectionRefused(t *testing.T) {
	ep := "http://" + refusedAddr(t) + "/mcp"
	c, sl := emuClient(t, ep)
	_, err := c.ListRuntimes(context.Background())
	e := asAPI(t, err)
	var oe *net.OpError
	if e.Code != api.Unavailable || e.OutcomeUnknown || !errors.As(err, &oe) || !strings.Contains(e.Message, "cannot reach") {
		t.Fatalf("err = %v (%T)", e, e.Err)
	}
	if len(sl.waits()) != DefaultMaxAttempts-1 {
		t.Fatalf("waits = %v", sl.waits())
	}
	_, err = c.CreateRuntime(context.Background(), api.CreateRuntimeRequest{Spec: cpu()})
	if e := asAPI(t, err); e.Code != api.Unavailable || e.OutcomeUnknown || len(sl.waits()) != DefaultMaxAttempts-1 {
		t.Fatalf("create: err = %v, waits %v", e, sl.waits())
	}
}

func TestCancelAndTimeout(t *testing.T) {
	emu, ep := startEmu(t, modes[1], colabfake.Options{Seed: colabfake.SeedDemo})
	c, sl := emuClient(t, ep, func(o *Options) { o.ReadTimeout = 100 * time.Millisecond })
	if err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	hold := make(chan struct{}) // list_runtimes answers only after the test
	defer close(hold)
	emu.Inject(colabfake.Fault{Kind: colabfake.FaultLatency, Tool: api.ToolListRuntimes, Hold: hold})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := c.ListRuntimes(ctx)
	e := asAPI(t, err)
	if !errors.Is(err, context.Canceled) || e.Code != api.Cancelled {
		t.Fatalf("cancel: %v", e)
	}
	emu.Inject(colabfake.Fault{Kind: colabfake.FaultLatency, Tool: api.ToolListRuntimes, Hold: hold})
	_, err = c.ListRuntimes(context.Background())
	e = asAPI(t, err)
	if e.Code != api.DeadlineExceeded || len(sl.waits()) != 0 {
		t.Fatalf("timeout: %v, waits %v", e, sl.waits())
	}
	// The session is still usable.
	if _, err := c.ListRuntimes(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// Tokens never reach the debug log.
func TestLogsHaveNoSecrets(t *testing.T) {
	for _, m := range modes {
		emu, ep := startEmu(t, m, colabfake.Options{Seed: colabfake.SeedDemo})
		buf := &testkit.SyncBuffer{}
		c, _ := emuClient(t, ep, func(o *Options) {
			o.Logger = testkit.DebugLogger(buf)
		})
		ctx := context.Background()
		rts, err := c.ListRuntimes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		rt, err := c.GetRuntime(ctx, rts[0].Name)
		if err != nil {
			t.Fatal(err)
		}
		emu.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: api.ToolGetRuntime, Status: 400,
			Body: `{"error":{"code":400,"message":"bad","status":"INVALID_ARGUMENT"},"echo":{"token":"` + rt.ConnectionInfo.Token + `","auth":"Bearer ` + oauthToken + `"}}`})
		_, _ = c.GetRuntime(ctx, rts[0].Name)
		log := buf.String()
		if !strings.Contains(log, "mcp call") {
			t.Fatal("nothing was logged at debug level")
		}
		secrettest.Check(t, m.name+" debug log", log, rt.ConnectionInfo.Token, rts[0].ConnectionInfo.Token, oauthToken)
	}
}

// Many goroutines share one client, across a session drop.
func TestConcurrentCalls(t *testing.T) {
	forEachMode(t, func(t *testing.T, m serverMode) {
		emu, ep := startEmu(t, m, colabfake.Options{Seed: colabfake.SeedDemo})
		c, _ := emuClient(t, ep)
		ctx := context.Background()
		rts, err := c.ListRuntimes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !m.stateless {
			emu.Inject(colabfake.Fault{Kind: colabfake.FaultDropSession, Tool: api.ToolGetRuntime})
		}
		var wg sync.WaitGroup
		errs := make(chan error, 200)
		for i := 0; i < 40; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				var err error
				switch i % 5 {
				case 0:
					_, err = c.ListRuntimes(ctx)
				case 1:
					_, err = c.GetRuntime(ctx, rts[i%len(rts)].Name)
				case 2:
					_, err = c.GetSubscription(ctx)
				case 3:
					_, err = c.ListSessions(ctx, rts[0].Name)
				case 4:
					_, err = c.ListRuntimeSpecs(ctx)
				}
				if err != nil {
					errs <- err
				}
			}(i)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("concurrent call: %v", err)
		}
	})
}

// The list tools send only documented, required arguments, so they do not
// wait for tools/list: status and the first dashboard frame cost one round
// trip less. Tools whose arguments follow the live schema do wait, and a
// failed tools/list fails them and makes the next call list again.
func TestListsDoNotWaitForToolsList(t *testing.T) {
	forEachMode(t, func(t *testing.T, m serverMode) {
		emu, ep := startEmu(t, m, colabfake.Options{Seed: colabfake.SeedDemo})
		c, _ := emuClient(t, ep)
		hold := make(chan struct{}) // tools/list answers only after the test
		defer close(hold)
		emu.Inject(colabfake.Fault{Kind: colabfake.FaultLatency, Method: "tools/list", Hold: hold})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		rts, err := c.ListRuntimes(ctx)
		if err != nil || len(rts) != 3 {
			t.Fatalf("ListRuntimes while tools/list is slow: %v, %d runtimes", err, len(rts))
		}
		if _, err := c.ListSessions(ctx, rts[0].Name); err != nil {
			t.Fatalf("ListSessions while tools/list is slow: %v", err)
		}
		short, stop := context.WithTimeout(ctx, 200*time.Millisecond)
		defer stop()
		if _, err := c.CreateSession(short, rts[0].Name, "s1"); err == nil {
			t.Fatal("CreateSession did not wait for the schema")
		}
	})
}

func TestFailedToolsListIsRetriedOnNextCall(t *testing.T) {
	emu, ep := startEmu(t, modes[0], colabfake.Options{Seed: colabfake.SeedDemo})
	c, _ := emuClient(t, ep, func(o *Options) { o.MaxAttempts = 1 })
	emu.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Method: "tools/list", Status: 503})
	rt := "runtimes/rt-t4demo7k2p"
	if _, err := c.CreateSession(context.Background(), rt, "s1"); asAPI(t, err).Code != api.Unavailable {
		t.Fatalf("first CreateSession: %v", err)
	}
	if s, err := c.CreateSession(context.Background(), rt, "s1"); err != nil || s.ID() != "s1" {
		t.Fatalf("second CreateSession: %v %v", s, err)
	}
}

// The background tools/list belongs to the connection, not to the call
// that opened it: that caller giving up must not turn a later tools/list
// failure into CANCELLED for everyone (which is never retried).
func TestToolsListOutlivesFirstCaller(t *testing.T) {
	emu, ep := startEmu(t, modes[0], colabfake.Options{Seed: colabfake.SeedDemo})
	c, _ := emuClient(t, ep, func(o *Options) { o.MaxAttempts = 2 })
	emu.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Method: "tools/list", Status: 503, Delay: 200 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := c.ListRuntimes(ctx); err != nil { // opens the connection; tools/list still under way
		t.Fatal(err)
	}
	cancel()
	if _, err := c.CreateSession(context.Background(), "runtimes/rt-t4demo7k2p", "s1"); err != nil {
		t.Fatalf("CreateSession after the first caller left: %v", err)
	}
}
