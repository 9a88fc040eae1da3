package client

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/secrettest"
)

// Integration tests: the client against the emulator (api/colabfake) over
// real loopback HTTP.

type emuMode struct {
	name      string
	stateless bool
	json      bool
}

var emuModes = []emuMode{
	{"stateless+json", true, true},
	{"stateful+sse", false, false},
}

const oauthToken = "ya29.test-oauth-token"

func startEmu(t *testing.T, m emuMode, o colabfake.Options) (*colabfake.Server, string) {
	t.Helper()
	o.Stateless, o.JSONResponse = m.stateless, m.json
	if o.CreatesPerMinute == 0 {
		o.CreatesPerMinute = -1
	}
	s, ep, err := colabfake.Start(context.Background(), "127.0.0.1:0", o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, ep
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
	for _, m := range emuModes {
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
	emu, ep := startEmu(t, emuModes[0], colabfake.Options{Seed: colabfake.SeedDemo, LegacySessionIDSchema: true, NoAllowMissing: true})
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

// The connection resets after create_runtime was sent.
func TestFieldCase2CreateResetOutcomeUnknown(t *testing.T) {
	for _, m := range emuModes {
		t.Run(m.name, func(t *testing.T) {
			emu, ep := startEmu(t, m, colabfake.Options{})
			c, sl := emuClient(t, ep)
			ctx := context.Background()
			if err := c.Connect(ctx); err != nil {
				t.Fatal(err)
			}
			emu.Inject(colabfake.Fault{Kind: colabfake.FaultReset, Tool: api.ToolCreateRuntime})
			_, err := c.CreateRuntime(ctx, api.CreateRuntimeRequest{Spec: cpu()})
			e := asAPI(t, err)
			if !e.OutcomeUnknown || e.Code != api.Unknown || e.Metadata["requestId"] == "" {
				t.Fatalf("err = %v (OutcomeUnknown=%v)", e, e.OutcomeUnknown)
			}
			if strings.Contains(e.Error(), "\n") || !strings.Contains(e.Error(), "list runtimes") {
				t.Errorf("message not a one-line hint: %q", e.Error())
			}
			if n := emu.CreateCalls(); n != 1 {
				t.Fatalf("create_runtime reached the server %d times, want exactly 1", n)
			}
			if len(sl.waits()) != 0 {
				t.Fatal("a lost create was retried")
			}
			rts, err := c.ListRuntimes(ctx)
			if err != nil || len(rts) != 1 {
				t.Fatalf("after the reset: %v, %v; want exactly the one runtime", rts, err)
			}
			// The caller may re-send the identical call: same runtime.
			rt, err := c.CreateRuntime(ctx, api.CreateRuntimeRequest{Spec: cpu(), RequestID: e.Metadata["requestId"]})
			if err != nil || rt.Name != rts[0].Name || emu.RuntimesCreated() != 1 {
				t.Fatalf("identical re-send = %+v, %v; %d created", rt, err, emu.RuntimesCreated())
			}
		})
	}
}

// A reset before the server handled anything still cannot be told apart.
func TestCreateResetUnprocessedIsStillUnknown(t *testing.T) {
	emu, ep := startEmu(t, emuModes[0], colabfake.Options{})
	c, _ := emuClient(t, ep)
	emu.Inject(colabfake.Fault{Kind: colabfake.FaultReset, Tool: api.ToolCreateRuntime, Unprocessed: true})
	_, err := c.CreateRuntime(context.Background(), api.CreateRuntimeRequest{Spec: cpu()})
	if e := asAPI(t, err); !e.OutcomeUnknown {
		t.Fatalf("err = %v", e)
	}
	if emu.RuntimesCreated() != 0 {
		t.Fatal("unprocessed create created a runtime")
	}
}

// A reset on a read is retried on its own: by net/http at once when it
// hit a reused keep-alive connection (the call is marked idempotent),
// otherwise after one backoff.
func TestReadResetIsRetried(t *testing.T) {
	for _, m := range emuModes {
		t.Run(m.name, func(t *testing.T) {
			emu, ep := startEmu(t, m, colabfake.Options{Seed: colabfake.SeedDemo})
			c, sl := emuClient(t, ep)
			emu.Inject(colabfake.Fault{Kind: colabfake.FaultReset, Tool: api.ToolListRuntimes})
			rts, err := c.ListRuntimes(context.Background())
			if err != nil || len(rts) != 3 {
				t.Fatalf("ListRuntimes = %v, %v", rts, err)
			}
			if len(sl.waits()) > 1 {
				t.Fatalf("waits = %v, want at most one backoff", sl.waits())
			}
		})
	}
}

// Capacity errors of a read are retried with
// backoff and shown; create_runtime's are the caller's to re-send
// (state.CreateAnswered): the client sends it once.
func TestFieldCase3Capacity(t *testing.T) {
	t.Run("503 twice then success", func(t *testing.T) {
		emu, ep := startEmu(t, emuModes[0], colabfake.Options{Tier: api.TierProPlus, Seed: colabfake.SeedDemo})
		var events []RetryEvent
		var mu sync.Mutex
		c, sl := emuClient(t, ep, func(o *Options) {
			o.OnRetry = func(ev RetryEvent) { mu.Lock(); events = append(events, ev); mu.Unlock() }
		})
		emu.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: api.ToolListRuntimes, Times: 2, Status: 503,
			Body: `{"error":{"code":503,"status":"UNAVAILABLE","message":"No capacity"}}`})
		rts, err := c.ListRuntimes(context.Background())
		if err != nil || len(rts) == 0 {
			t.Fatalf("ListRuntimes = %+v, %v", rts, err)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(events) != 2 || events[0].Attempt != 1 || events[1].Attempt != 2 || events[0].MaxAttempts != DefaultMaxAttempts ||
			events[0].Err.Code != api.Unavailable || events[0].Err.Message != "No capacity" || events[0].Tool != api.ToolListRuntimes {
			t.Fatalf("retry events = %+v", events)
		}
		if len(sl.waits()) != 2 {
			t.Fatalf("waits %v", sl.waits())
		}
	})
	t.Run("create_runtime's 503 is returned after one send", func(t *testing.T) {
		emu, ep := startEmu(t, emuModes[0], colabfake.Options{Tier: api.TierProPlus})
		c, sl := emuClient(t, ep)
		emu.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: api.ToolCreateRuntime, Times: 2, Status: 503,
			Body: `{"error":{"code":503,"status":"UNAVAILABLE","message":"No capacity"}}`})
		req := api.CreateRuntimeRequest{Spec: api.RuntimeSpecKey{Variant: api.VariantGPU, Accelerator: "H100", Shape: api.ShapeStandard}}
		_, err := c.CreateRuntime(context.Background(), req)
		if e := asAPI(t, err); e.Code != api.Unavailable || e.Message != "No capacity" || e.OutcomeUnknown {
			t.Fatalf("err = %v", e)
		}
		if len(sl.waits()) != 0 || emu.RuntimesCreated() != 0 {
			t.Fatalf("waits %v, created %d", sl.waits(), emu.RuntimesCreated())
		}
		// The second 503 is still queued: one send consumed one fault.
		if _, err := c.CreateRuntime(context.Background(), req); asAPI(t, err).Code != api.Unavailable {
			t.Fatalf("second send: %v", err)
		}
		if rt, err := c.CreateRuntime(context.Background(), req); err != nil || rt.RuntimeSpec.Accelerator != "H100" {
			t.Fatalf("third send: %+v, %v", rt, err)
		}
	})
	t.Run("failed operation without reason is not retried", func(t *testing.T) {
		emu, ep := startEmu(t, emuModes[1], colabfake.Options{Tier: api.TierProPlus})
		c, sl := emuClient(t, ep)
		emu.Inject(colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: api.ToolCreateRuntime, Code: api.FailedPrecondition,
			Message: "H100 is not available right now"})
		_, err := c.CreateRuntime(context.Background(), api.CreateRuntimeRequest{Spec: api.RuntimeSpecKey{Variant: api.VariantGPU, Accelerator: "H100"}})
		e := asAPI(t, err)
		if e.Code != api.FailedPrecondition || e.Reason != "" || e.Message != "H100 is not available right now" || e.Tool != api.ToolCreateRuntime {
			t.Fatalf("err = %v", e)
		}
		if emu.CreateCalls() != 1 || len(sl.waits()) != 0 {
			t.Fatal("FAILED_PRECONDITION was retried")
		}
	})
}

// Usage limits are not retried; the reason is kept.
func TestFieldCase4UsageLimit(t *testing.T) {
	gpu := api.CreateRuntimeRequest{Spec: api.RuntimeSpecKey{Variant: api.VariantGPU, Accelerator: "T4"}}
	cases := []struct {
		name   string
		fault  colabfake.Fault
		reason string
	}{
		{"operation code 8", colabfake.Fault{Kind: colabfake.FaultOperationError, Code: api.ResourceExhausted,
			Message: "usage limit", Reason: api.ReasonQuotaExceededUsageTime}, api.ReasonQuotaExceededUsageTime},
		{"operation code 9", colabfake.Fault{Kind: colabfake.FaultOperationError, Code: api.FailedPrecondition,
			Message: "usage limit", Reason: api.ReasonQuotaExceededUsageTime}, api.ReasonQuotaExceededUsageTime},
		{"HTTP 429 envelope", colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Status: 429,
			Body: colabfake.GoogleErrorText(api.ResourceExhausted, "usage limit", api.ReasonQuotaExceededUsageTime, 0)}, api.ReasonQuotaExceededUsageTime},
		{"denylisted", colabfake.Fault{Kind: colabfake.FaultOperationError, Code: api.FailedPrecondition,
			Message: "blocked", Reason: api.ReasonDenylisted}, api.ReasonDenylisted},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			emu, ep := startEmu(t, emuModes[0], colabfake.Options{})
			c, sl := emuClient(t, ep)
			f := tc.fault
			f.Tool = api.ToolCreateRuntime
			emu.Inject(f)
			_, err := c.CreateRuntime(context.Background(), gpu)
			e := asAPI(t, err)
			if e.Reason != tc.reason || !e.IsQuota() || e.Retryable() {
				t.Fatalf("err = %v (quota %v)", e, e.IsQuota())
			}
			if len(sl.waits()) != 0 || emu.RuntimesCreated() != 0 {
				t.Fatalf("a usage limit was retried (%v) or created", sl.waits())
			}
		})
	}
}

// TOO_MANY_ACTIVE_RUNTIMES in a detail without @type;
// absent and empty lists.
func TestFieldCase5TooManyAndEmptyLists(t *testing.T) {
	emu, ep := startEmu(t, emuModes[1], colabfake.Options{})
	c, sl := emuClient(t, ep)
	ctx := context.Background()
	emu.Inject(colabfake.Fault{Kind: colabfake.FaultOutput, Tool: api.ToolCreateRuntime,
		Output: json.RawMessage(`{"name":"operations/1","done":true,"error":{"code":9,"message":"Too many active runtimes.","details":[{"reason":"TOO_MANY_ACTIVE_RUNTIMES"}]}}`)})
	_, err := c.CreateRuntime(ctx, api.CreateRuntimeRequest{Spec: cpu()})
	e := asAPI(t, err)
	if e.Code != api.FailedPrecondition || e.Reason != api.ReasonTooManyActiveRuntimes || len(sl.waits()) != 0 {
		t.Fatalf("err = %v, waits %v", e, sl.waits())
	}
	for _, body := range []string{`{}`, `{"runtimes":[]}`, `{"runtimes":null}`} {
		emu.Inject(colabfake.Fault{Kind: colabfake.FaultOutput, Tool: api.ToolListRuntimes, Output: json.RawMessage(body)})
		rts, err := c.ListRuntimes(ctx)
		if err != nil || rts == nil || len(rts) != 0 {
			t.Fatalf("%s: %#v, %v", body, rts, err)
		}
	}
}

func TestMalformedReplies(t *testing.T) {
	emu, ep := startEmu(t, emuModes[0], colabfake.Options{Seed: colabfake.SeedDemo})
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
	emu, ep := startEmu(t, emuModes[0], colabfake.Options{})
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

// The server drops the session.
func TestFieldCase14SessionDropped(t *testing.T) {
	var sawSessionHeader atomic.Bool
	emu, ep := startEmu(t, emuModes[1], colabfake.Options{Seed: colabfake.SeedDemo})
	c, _ := emuClient(t, ep)
	ctx := context.Background()
	if _, err := c.ListRuntimes(ctx); err != nil {
		t.Fatal(err)
	}
	emu.Inject(colabfake.Fault{Kind: colabfake.FaultDropSession, Tool: api.ToolListRuntimes})
	if rts, err := c.ListRuntimes(ctx); err != nil || len(rts) != 3 {
		t.Fatalf("after a dropped session: %v, %v", rts, err)
	}
	info, _ := c.ServerInfo(ctx)
	if !info.Stateful {
		t.Fatal("expected a stateful session")
	}
	// The server drops it again on the fresh session: an error, no loop.
	emu.Inject(colabfake.Fault{Kind: colabfake.FaultDropSession, Tool: api.ToolListRuntimes, Times: 2})
	_, err := c.ListRuntimes(ctx)
	e := asAPI(t, err)
	if e.Code != api.Unavailable || e.HTTPStatus != 404 || !strings.Contains(e.Message, "session") {
		t.Fatalf("err = %v", e)
	}
	if emu.PendingFaults() != 0 {
		t.Fatal("the second drop was not reached")
	}
	// It recovers on the next call.
	if _, err := c.ListRuntimes(ctx); err != nil {
		t.Fatal(err)
	}

	// Stateless: the client never invents an Mcp-Session-Id.
	_, ep2 := startEmu(t, emuModes[0], colabfake.Options{OnRequest: func(r *http.Request) {
		if r.Header.Get("Mcp-Session-Id") != "" {
			sawSessionHeader.Store(true)
		}
	}})
	c2, _ := emuClient(t, ep2)
	for i := 0; i < 3; i++ {
		if _, err := c2.ListRuntimes(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if sawSessionHeader.Load() {
		t.Fatal("an Mcp-Session-Id was sent to a stateless server")
	}
}

// A server that holds GET open or answers 405.
func TestFieldCase15NoStandaloneSSE(t *testing.T) {
	for _, hold := range []bool{true, false} {
		emu := colabfake.New(colabfake.Options{Seed: colabfake.SeedDemo})
		t.Cleanup(func() { _ = emu.Close() })
		var gets atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				gets.Add(1)
				if hold {
					w.Header().Set("Content-Type", "text/event-stream")
					w.WriteHeader(200)
					w.(http.Flusher).Flush()
					<-r.Context().Done()
					return
				}
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
			emu.Handler().ServeHTTP(w, r)
		}))
		t.Cleanup(srv.Close)
		c, _ := emuClient(t, srv.URL)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		rts, err := c.ListRuntimes(ctx)
		cancel()
		if err != nil || len(rts) != 3 {
			t.Fatalf("hold=%v: %v, %v", hold, rts, err)
		}
		if gets.Load() != 0 {
			t.Errorf("hold=%v: the client opened %d standalone GET streams", hold, gets.Load())
		}
	}
}

// HTML and empty bodies, isError text.
func TestFieldCase17ErrorFormats(t *testing.T) {
	html := `<!DOCTYPE html><html lang=en><meta charset=utf-8><title>Error 500 (Server Error)!!1</title><p><b>500.</b> <ins>That’s an error.</ins>`
	cases := []struct {
		name    string
		fault   colabfake.Fault
		want    string
		code    api.Code
		retried bool
	}{
		{"html 500", colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Status: 500, Body: html, ContentType: "text/html"}, "Server error (HTTP 500)", api.Internal, true},
		{"empty 502", colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Status: 502}, "Bad gateway (HTTP 502)", api.Unavailable, true},
		{"isError text", colabfake.Fault{Kind: colabfake.FaultToolError, Text: "Runtime not found"}, "Runtime not found", api.NotFound, false},
	}
	for _, tc := range cases {
		for _, m := range emuModes {
			t.Run(tc.name+"/"+m.name, func(t *testing.T) {
				emu, ep := startEmu(t, m, colabfake.Options{Seed: colabfake.SeedDemo})
				logBuf := &syncBuffer{}
				c, sl := emuClient(t, ep, func(o *Options) {
					o.Logger = slog.New(slog.NewTextHandler(logBuf, &slog.HandlerOptions{Level: slog.LevelDebug}))
				})
				f := tc.fault
				f.Tool, f.Times = api.ToolGetRuntime, -1
				emu.Inject(f)
				_, err := c.GetRuntime(context.Background(), "runtimes/x")
				e := asAPI(t, err)
				if e.Message != tc.want || e.Code != tc.code {
					t.Fatalf("err = %q (code %s)", e.Error(), e.Code)
				}
				if s := e.Error(); strings.ContainsAny(s, "<>\n") || strings.Contains(strings.ToLower(s), "doctype") {
					t.Fatalf("HTML or newlines reached Error(): %q", s)
				}
				wantWaits := 0
				if tc.retried {
					wantWaits = DefaultMaxAttempts - 1
				}
				if len(sl.waits()) != wantWaits {
					t.Fatalf("waits = %v, want %d", sl.waits(), wantWaits)
				}
				if tc.name == "html 500" && !strings.Contains(logBuf.String(), "Error 500") {
					t.Error("the raw HTML body is not in the debug log")
				}
			})
		}
	}
}

// RetryInfo and Retry-After are honoured; a
// QuotaFailure without RetryInfo is not retried.
func TestFieldCase18RateLimits(t *testing.T) {
	rate := `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"Quota exceeded for requests per minute per user.","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"53s"}]}}`
	t.Run("RetryInfo 53s", func(t *testing.T) {
		emu, ep := startEmu(t, emuModes[0], colabfake.Options{})
		var ev []RetryEvent
		now := time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC)
		c, sl := emuClient(t, ep, func(o *Options) {
			o.OnRetry = func(e RetryEvent) { ev = append(ev, e) }
			o.Now = func() time.Time { return now }
		})
		emu.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: api.ToolListRuntimes, Status: 429, Body: rate})
		if _, err := c.ListRuntimes(context.Background()); err != nil {
			t.Fatal(err)
		}
		w := sl.waits()
		if len(w) != 1 || w[0] < 53*time.Second {
			t.Fatalf("waits = %v, want one of at least 53s", w)
		}
		if len(ev) != 1 || ev[0].Wait < 53*time.Second || !ev[0].At.Equal(now.Add(ev[0].Wait)) || ev[0].Err.RetryDelay != 53*time.Second {
			t.Fatalf("events = %+v", ev)
		}
		// create_runtime: the delay is the caller's to wait out.
		emu.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: api.ToolCreateRuntime, Status: 429, Body: rate})
		_, err := c.CreateRuntime(context.Background(), api.CreateRuntimeRequest{Spec: cpu()})
		if e := asAPI(t, err); e.Code != api.ResourceExhausted || e.RetryDelay != 53*time.Second || len(sl.waits()) != 1 || emu.RuntimesCreated() != 0 {
			t.Fatalf("create: err %v, waits %v, created %d", e, sl.waits(), emu.RuntimesCreated())
		}
	})
	t.Run("Retry-After 30", func(t *testing.T) {
		emu, ep := startEmu(t, emuModes[1], colabfake.Options{Seed: colabfake.SeedDemo})
		c, sl := emuClient(t, ep)
		emu.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: api.ToolListRuntimes, Status: 429, RetryAfter: "30",
			Body: `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"Quota exceeded for requests per minute per user."}}`})
		if _, err := c.ListRuntimes(context.Background()); err != nil {
			t.Fatal(err)
		}
		if w := sl.waits(); len(w) != 1 || w[0] < 30*time.Second {
			t.Fatalf("waits = %v", w)
		}
	})
	t.Run("QuotaFailure no RetryInfo", func(t *testing.T) {
		emu, ep := startEmu(t, emuModes[0], colabfake.Options{})
		c, sl := emuClient(t, ep)
		emu.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: api.ToolCreateRuntime, Status: 429, Times: -1,
			Body: `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"Quota exceeded.","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"subject":"user"}]}]}}`})
		_, err := c.CreateRuntime(context.Background(), api.CreateRuntimeRequest{Spec: cpu()})
		e := asAPI(t, err)
		if e.Code != api.ResourceExhausted || !e.IsQuota() || len(sl.waits()) != 0 {
			t.Fatalf("err = %v, waits %v", e, sl.waits())
		}
	})
	t.Run("server delay beyond MaxRetryDelay", func(t *testing.T) {
		emu, ep := startEmu(t, emuModes[0], colabfake.Options{})
		c, sl := emuClient(t, ep, func(o *Options) { o.MaxRetryDelay = 10 * time.Second })
		emu.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: api.ToolListRuntimes, Status: 429, Body: rate})
		_, err := c.ListRuntimes(context.Background())
		if e := asAPI(t, err); e.RetryDelay != 53*time.Second || len(sl.waits()) != 0 {
			t.Fatalf("err = %v, waits %v", e, sl.waits())
		}
	})
}

// The emulator's own per-minute quota (isError RESOURCE_EXHAUSTED with
// RetryInfo) reaches the caller with its delay, which the caller waits out.
func TestEmulatorCreateQuotaRetryInfo(t *testing.T) {
	emu, ep := startEmu(t, emuModes[0], colabfake.Options{CreatesPerMinute: 1, RuntimeLimit: -1})
	clock := colabfake.NewClock(time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC))
	emu.SetNow(clock.Now)
	c, _ := emuClient(t, ep, func(o *Options) {
		o.Sleep = func(ctx context.Context, d time.Duration) error { clock.Advance(d); return nil }
	})
	ctx := context.Background()
	if _, err := c.CreateRuntime(ctx, api.CreateRuntimeRequest{Spec: cpu()}); err != nil {
		t.Fatal(err)
	}
	_, err := c.CreateRuntime(ctx, api.CreateRuntimeRequest{Spec: cpu()})
	e := asAPI(t, err)
	if e.Code != api.ResourceExhausted || e.RetryDelay <= 0 || emu.RuntimesCreated() != 1 {
		t.Fatalf("second create within the minute: %v, %d created", e, emu.RuntimesCreated())
	}
	clock.Advance(e.RetryDelay)
	if _, err := c.CreateRuntime(ctx, api.CreateRuntimeRequest{Spec: cpu()}); err != nil {
		t.Fatalf("second create after the quota wait: %v", err)
	}
	if emu.RuntimesCreated() != 2 {
		t.Fatalf("created %d", emu.RuntimesCreated())
	}
}

func TestUnauthenticatedRefreshOnce(t *testing.T) {
	body := colabfake.GoogleErrorText(api.Unauthenticated, "Request had invalid authentication credentials.", "", 0)
	for _, times := range []int{1, -1} {
		emu, ep := startEmu(t, emuModes[0], colabfake.Options{Seed: colabfake.SeedDemo})
		var refreshes atomic.Int32
		c, sl := emuClient(t, ep, func(o *Options) {
			o.OnUnauthenticated = func(ctx context.Context) bool { refreshes.Add(1); return true }
		})
		emu.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: api.ToolListRuntimes, Status: 401, Body: body, Times: times})
		_, err := c.ListRuntimes(context.Background())
		if refreshes.Load() != 1 || len(sl.waits()) != 0 {
			t.Fatalf("times=%d: refreshes %d, waits %v", times, refreshes.Load(), sl.waits())
		}
		if times == 1 && err != nil {
			t.Fatalf("after one refresh: %v", err)
		}
		if times == -1 {
			e := asAPI(t, err)
			if e.Code != api.Unauthenticated || e.HTTPStatus != 401 || !e.IsAuth() {
				t.Fatalf("err = %v", e)
			}
		}
	}
}

func TestNoBearerIs401(t *testing.T) {
	_, ep := startEmu(t, emuModes[1], colabfake.Options{})
	c, sl := newClient(t, ep) // no auth headers
	_, err := c.GetSubscription(context.Background())
	e := asAPI(t, err)
	if e.Code != api.Unauthenticated || e.HTTPStatus != 401 || len(sl.waits()) != 0 {
		t.Fatalf("err = %v", e)
	}
}

// A scope error is PERMISSION_DENIED with its reason, never
// retried or refreshed.
func TestScopeInsufficient(t *testing.T) {
	emu, ep := startEmu(t, emuModes[0], colabfake.Options{})
	var refreshes atomic.Int32
	c, sl := emuClient(t, ep, func(o *Options) {
		o.OnUnauthenticated = func(context.Context) bool { refreshes.Add(1); return true }
	})
	// Listed OK but calls denied, the pattern other Google MCP servers show.
	emu.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Method: "tools/call", Status: 403, Times: -1,
		Body: colabfake.GoogleErrorText(api.PermissionDenied, "Request had insufficient authentication scopes.", api.ReasonScopeInsufficient, 0)})
	_, err := c.ListRuntimes(context.Background())
	e := asAPI(t, err)
	if e.Code != api.PermissionDenied || e.Reason != api.ReasonScopeInsufficient || refreshes.Load() != 0 || len(sl.waits()) != 0 {
		t.Fatalf("err = %v, refreshes %d, waits %v", e, refreshes.Load(), sl.waits())
	}
}

// A revoked refresh token (invalid_grant) is UNAUTHENTICATED
// with a re-login hint; the token endpoint is hit once per call.
func TestInvalidGrant(t *testing.T) {
	_, ep := startEmu(t, emuModes[0], colabfake.Options{})
	var hits atomic.Int32
	tokSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(400)
		_, _ = w.Write([]byte(`{"error":"invalid_grant","error_description":"reauth related error (invalid_rapt)","error_subtype":"invalid_rapt"}`))
	}))
	defer tokSrv.Close()
	conf := &oauth2.Config{ClientID: "cid", ClientSecret: "s", Endpoint: oauth2.Endpoint{TokenURL: tokSrv.URL, AuthStyle: oauth2.AuthStyleInParams}}
	hc := conf.Client(context.Background(), &oauth2.Token{RefreshToken: "1//r", Expiry: time.Now().Add(-time.Hour)})
	c, sl := newClient(t, ep, func(o *Options) { o.HTTPClient = hc })
	_, err := c.ListRuntimes(context.Background())
	e := asAPI(t, err)
	var re *oauth2.RetrieveError
	if e.Code != api.Unauthenticated || !errors.As(err, &re) || re.ErrorCode != "invalid_grant" || !strings.Contains(e.Message, "login") {
		t.Fatalf("err = %v", e)
	}
	if hits.Load() != 1 || len(sl.waits()) != 0 {
		t.Fatalf("token endpoint hit %d times, waits %v", hits.Load(), sl.waits())
	}
}

func TestJSONRPCErrors(t *testing.T) {
	emu, ep := startEmu(t, emuModes[0], colabfake.Options{})
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

// create_runtime: DEADLINE_EXCEEDED is returned after one send; the
// caller's identical re-sends (same requestId) wait for the one runtime.
func TestCreateDeadlineResendsIdentical(t *testing.T) {
	for _, m := range emuModes {
		t.Run(m.name, func(t *testing.T) {
			emu, ep := startEmu(t, m, colabfake.Options{})
			c, sl := emuClient(t, ep)
			emu.Inject(colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: api.ToolCreateRuntime, Times: 2})
			req := api.CreateRuntimeRequest{Spec: cpu(), RequestID: "3f1c2b9e-8d4a-4c1e-9b7a-2e5f6a7b8c9d"}
			var (
				rt  api.Runtime
				err error
			)
			for sends := 1; sends <= 3; sends++ {
				rt, err = c.CreateRuntime(context.Background(), req)
				if emu.CreateCalls() != sends || len(sl.waits()) != 0 {
					t.Fatalf("send %d: the emulator saw %d calls, the client waited %v", sends, emu.CreateCalls(), sl.waits())
				}
				var e *api.Error
				if sends < 3 && (!errors.As(err, &e) || e.Code != api.DeadlineExceeded) {
					t.Fatalf("send %d: %v", sends, err)
				}
			}
			if err != nil || rt.Name == "" {
				t.Fatalf("CreateRuntime = %+v, %v", rt, err)
			}
			// The emulator refuses a reused requestId with a different body and
			// creates per new requestId: 3 calls and 1 runtime mean the calls
			// were identical.
			if emu.CreateCalls() != 3 || emu.RuntimesCreated() != 1 {
				t.Fatalf("calls %d, created %d; want 3 identical calls, 1 runtime", emu.CreateCalls(), emu.RuntimesCreated())
			}
		})
	}
}

// execute_code with an executionId: DEADLINE_EXCEEDED, UNAVAILABLE and a
// lost reply (UNAVAILABLE) are returned after one send; the caller's
// identical call reattaches and the code runs once.
func TestExecuteReattach(t *testing.T) {
	for _, f := range []colabfake.Fault{
		{Kind: colabfake.FaultDeadline, Tool: api.ToolExecuteCode, Code: api.DeadlineExceeded},
		{Kind: colabfake.FaultDeadline, Tool: api.ToolExecuteCode, Code: api.Unavailable},
		{Kind: colabfake.FaultReset, Tool: api.ToolExecuteCode},
	} {
		emu, ep := startEmu(t, emuModes[1], colabfake.Options{Seed: colabfake.SeedDemo})
		c, sl := emuClient(t, ep)
		ctx := context.Background()
		rts, _ := c.ListRuntimes(ctx)
		s, err := c.CreateSession(ctx, rts[0].Name, "job")
		if err != nil {
			t.Fatal(err)
		}
		emu.Inject(f)
		req := api.ExecuteCodeRequest{Session: s.Name, Code: `print("long")`, ExecutionID: "0d6f4c1e-2b7a-4c1e-9b7a-2e5f6a7b8c9d"}
		_, err = c.ExecuteCode(ctx, req)
		e := asAPI(t, err)
		lost := f.Kind == colabfake.FaultReset
		if emu.CallCount(api.ToolExecuteCode) != 1 || len(sl.waits()) != 0 || e.OutcomeUnknown ||
			lost && e.Code != api.Unavailable || !lost && e.Code != f.Code {
			t.Fatalf("%v %s: %v, calls %d, waits %v; want one send returned as it came", f.Kind, f.Code, e, emu.CallCount(api.ToolExecuteCode), sl.waits())
		}
		out, err := c.ExecuteCode(ctx, req)
		if err != nil || out.Stdout != "long\n" {
			t.Fatalf("%v %s: %+v, %v", f.Kind, f.Code, out, err)
		}
		// (After a reply lost once the server had answered, Colab runs
		// the code again for the same executionId: only the calls count.)
		if emu.CallCount(api.ToolExecuteCode) != 2 || !lost && out.ExecutionCount != 1 {
			t.Fatalf("%v %s: calls %d, executionCount %d; want a reattach, one execution", f.Kind, f.Code, emu.CallCount(api.ToolExecuteCode), out.ExecutionCount)
		}
	}
}

// execute_code on a runtime target whose reply was lost is not re-run.
func TestExecuteRuntimeTargetLostIsUnknown(t *testing.T) {
	emu, ep := startEmu(t, emuModes[0], colabfake.Options{Seed: colabfake.SeedDemo})
	c, _ := emuClient(t, ep)
	rts, _ := c.ListRuntimes(context.Background())
	emu.Inject(colabfake.Fault{Kind: colabfake.FaultReset, Tool: api.ToolExecuteCode})
	_, err := c.ExecuteCode(context.Background(), api.ExecuteCodeRequest{Runtime: rts[0].Name, Code: "x = 1"})
	if e := asAPI(t, err); !e.OutcomeUnknown || emu.CallCount(api.ToolExecuteCode) != 1 {
		t.Fatalf("err = %v, calls %d", e, emu.CallCount(api.ToolExecuteCode))
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
	emu, ep := startEmu(t, emuModes[1], colabfake.Options{Seed: colabfake.SeedDemo})
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
	for _, m := range emuModes {
		emu, ep := startEmu(t, m, colabfake.Options{Seed: colabfake.SeedDemo})
		buf := &syncBuffer{}
		c, _ := emuClient(t, ep, func(o *Options) {
			o.Logger = slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
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
	for _, m := range emuModes {
		t.Run(m.name, func(t *testing.T) {
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
}

// The list tools send only documented, required arguments, so they do not
// wait for tools/list: status and the first dashboard frame cost one round
// trip less. Tools whose arguments follow the live schema do wait, and a
// failed tools/list fails them and makes the next call list again.
func TestListsDoNotWaitForToolsList(t *testing.T) {
	for _, m := range emuModes {
		t.Run(m.name, func(t *testing.T) {
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
}

func TestFailedToolsListIsRetriedOnNextCall(t *testing.T) {
	emu, ep := startEmu(t, emuModes[0], colabfake.Options{Seed: colabfake.SeedDemo})
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
	emu, ep := startEmu(t, emuModes[0], colabfake.Options{Seed: colabfake.SeedDemo})
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
