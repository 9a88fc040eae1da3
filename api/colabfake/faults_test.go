package colabfake

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/colabdash/colabdash/api"
)

func TestFaultLatency(t *testing.T) {
	s, cs, _ := startConnect(t, Options{})
	s.Inject(Fault{Kind: FaultLatency, Tool: "list_runtimes", Delay: 150 * time.Millisecond})
	begin := time.Now()
	call(t, cs, "list_runtimes", nil)
	if d := time.Since(begin); d < 150*time.Millisecond {
		t.Errorf("list_runtimes took %v with 150ms injected latency", d)
	}
	if s.PendingFaults() != 0 {
		t.Error("fault not used up")
	}
	// A short client deadline gives up during the delay.
	s.Inject(Fault{Kind: FaultLatency, Tool: "get_subscription", Delay: 2 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_subscription", Arguments: map[string]any{}}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("call under injected latency: %v", err)
	}
}

func TestOptionsLatency(t *testing.T) {
	_, cs, _ := startConnect(t, Options{Latency: 60 * time.Millisecond})
	begin := time.Now()
	call(t, cs, "get_subscription", nil)
	if d := time.Since(begin); d < 60*time.Millisecond {
		t.Errorf("tools/call took %v with Options.Latency 60ms", d)
	}
}

func TestFaultHTTPStatus(t *testing.T) {
	cases := []struct {
		name        string
		f           Fault
		wantCT      string
		wantCode    api.Code
		wantDelay   time.Duration
		wantMessage string
	}{
		{"google 503", Fault{Status: 503, Body: `{"error":{"code":503,"status":"UNAVAILABLE","message":"No capacity"}}`},
			"application/json", api.Unavailable, 0, "No capacity"},
		{"429 retry-after", Fault{Status: 429, RetryAfter: "30", Body: `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"slow down"}}`},
			"application/json", api.ResourceExhausted, 30 * time.Second, "slow down"},
		{"html 500", Fault{Status: 500, Body: "<!DOCTYPE html><html lang=en><title>Error 500</title>"},
			"text/html", api.Internal, 0, "Server error (HTTP 500)"},
		{"empty 502", Fault{Status: 502}, "", api.Unavailable, 0, "Bad gateway (HTTP 502)"},
		{"403 scope", Fault{Status: 403, Body: GoogleErrorText(api.PermissionDenied, "insufficient scopes", api.ReasonScopeInsufficient, 0)},
			"application/json", api.PermissionDenied, 0, "insufficient scopes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, ep2, _ := start(t, Options{Stateless: true, JSONResponse: true})
			f := c.f
			f.Kind, f.Tool = FaultHTTPStatus, "create_runtime"
			srv.Inject(f)
			resp, body, err := rawPost(t, ep2, toolsCall("create_runtime", `{"runtime":{"runtimeSpec":{"variant":"VARIANT_GPU","accelerator":"H100","shape":"SHAPE_STANDARD"}}}`), false, nil)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != c.f.Status || !strings.HasPrefix(resp.Header.Get("Content-Type"), c.wantCT) || string(body) != c.f.Body {
				t.Fatalf("HTTP %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			e := api.ParseHTTPError(resp.StatusCode, resp.Header.Get("Retry-After"), body)
			if e.Code != c.wantCode || e.RetryDelay != c.wantDelay || e.Message != c.wantMessage {
				t.Errorf("decoded %v (delay %v)", e, e.RetryDelay)
			}
			if len(srv.Runtimes()) != 0 {
				t.Error("a refused request created a runtime")
			}
			// The next call is served normally.
			if resp, _, _ := rawPost(t, ep2, toolsCall("get_subscription", ""), false, nil); resp.StatusCode != 200 {
				t.Errorf("after the fault: HTTP %d", resp.StatusCode)
			}
		})
	}
}

func TestFaultHTTPStatusThroughClient(t *testing.T) {
	s, cs, _ := startConnect(t, Options{})
	s.Inject(Fault{Kind: FaultHTTPStatus, Tool: "list_runtimes", Status: 503, Times: 2})
	for range 2 {
		if _, err := callErr(cs, "list_runtimes", nil); err == nil || !strings.Contains(err.Error(), "Service Unavailable") {
			t.Fatalf("want a 503 transport error, got %v", err)
		}
	}
	call(t, cs, "list_runtimes", nil) // Times: 2 used up; session still usable
}

func TestFaultJSONRPCError(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			s, cs, _ := startConnect(t, Options{Stateless: m.stateless, JSONResponse: m.jsonr})
			s.Inject(Fault{Kind: FaultJSONRPCError, Tool: "get_runtime", RPCCode: -32603, Message: "FAILED_PRECONDITION: backend unavailable",
				Data: json.RawMessage(`{"reason":"TOO_MANY_ACTIVE_RUNTIMES"}`)})
			_, err := callErr(cs, "get_runtime", map[string]any{"name": "runtimes/x"})
			var we *jsonrpc.Error
			if !errors.As(err, &we) || we.Code != -32603 || we.Message != "FAILED_PRECONDITION: backend unavailable" || !strings.Contains(string(we.Data), "TOO_MANY") {
				t.Fatalf("got %v (%+v)", err, we)
			}
			if e := api.ErrorFromText(we.Message); e.Code != api.FailedPrecondition {
				t.Errorf("decoded %v", e)
			}
		})
	}
}

func TestFaultToolErrorText(t *testing.T) {
	s, cs, _ := startConnect(t, Options{Seed: SeedDemo})
	s.Inject(Fault{Kind: FaultToolError, Tool: "get_runtime", Text: "Runtime not found"})
	res := call(t, cs, "get_runtime", map[string]any{"name": "runtimes/rt-t4demo7k2p"})
	if !res.IsError || text(res) != "Runtime not found" || res.StructuredContent != nil {
		t.Fatalf("got isError=%v %q", res.IsError, text(res))
	}
	s.Inject(Fault{Kind: FaultToolError, Text: GoogleErrorText(api.Unavailable, "try later", "", 2*time.Second)})
	e := toolError(t, call(t, cs, "list_runtimes", nil))
	if e.Code != api.Unavailable || e.RetryDelay != 2*time.Second {
		t.Errorf("envelope fault decoded as %v", e)
	}
}

func TestFaultOperationError(t *testing.T) {
	s, cs, _ := startConnect(t, Options{})
	s.Inject(Fault{Kind: FaultOperationError, Tool: "create_runtime", Code: api.ResourceExhausted, Message: "usage limit", Reason: api.ReasonQuotaExceededUsageTime})
	s.Inject(Fault{Kind: FaultOperationError, Tool: "create_runtime"}) // plain FAILED_PRECONDITION, no reason
	args := createArgs("VARIANT_GPU", "T4", "SHAPE_STANDARD", "")
	res := call(t, cs, "create_runtime", args)
	var raw map[string]any
	decode(t, res, &raw)
	errObj, _ := raw["error"].(map[string]any)
	if raw["done"] != true || errObj["code"] != float64(8) {
		t.Fatalf("operation %v", raw)
	}
	if e := operationError(t, res); e.Code != api.ResourceExhausted || e.Reason != api.ReasonQuotaExceededUsageTime || !e.IsQuota() {
		t.Errorf("decoded %v", e)
	}
	if e := operationError(t, call(t, cs, "create_runtime", args)); e.Code != api.FailedPrecondition || e.Reason != "" {
		t.Errorf("second: %v", e)
	}
	// QuotaFailure without RetryInfo: a quota, not a rate limit.
	s.Inject(Fault{Kind: FaultOperationError, Tool: "create_runtime", Code: api.ResourceExhausted, QuotaFailure: true})
	if e := operationError(t, call(t, cs, "create_runtime", args)); !e.QuotaFailure || !e.IsQuota() || e.Retryable() {
		t.Errorf("quota failure: %+v", e)
	}
	if len(s.Runtimes()) != 0 {
		t.Error("a failed operation created a runtime")
	}
}

func TestFaultResetAfterBodyCreatesRuntime(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			s, cs, _ := startConnect(t, Options{Stateless: m.stateless, JSONResponse: m.jsonr})
			s.Inject(Fault{Kind: FaultReset, Tool: "create_runtime"})
			_, err := callErr(cs, "create_runtime", createArgs("VARIANT_GPU", "T4", "SHAPE_STANDARD", uuid.NewString()))
			if err == nil {
				t.Fatal("create_runtime succeeded through a reset connection")
			}
			// The runtime exists server-side anyway.
			if rts := s.Runtimes(); len(rts) != 1 || rts[0].RuntimeSpec.Accelerator != "T4" {
				t.Fatalf("runtimes after the reset: %v", rts)
			}
		})
	}
	// Raw: the reply never arrives.
	s, ep, _ := start(t, Options{Stateless: true, JSONResponse: true})
	s.Inject(Fault{Kind: FaultReset, Tool: "create_runtime"})
	if _, _, err := rawPost(t, ep, toolsCall("create_runtime", `{"runtime":{"runtimeSpec":{"variant":"VARIANT_CPU","accelerator":"NONE","shape":"SHAPE_STANDARD"}}}`), false, nil); err == nil {
		t.Error("raw POST got a reply through a reset")
	}
	if len(s.Runtimes()) != 1 {
		t.Errorf("%d runtimes", len(s.Runtimes()))
	}
	// Unprocessed: reset without creating.
	s.Inject(Fault{Kind: FaultReset, Tool: "create_runtime", Unprocessed: true})
	_, _, _ = rawPost(t, ep, toolsCall("create_runtime", `{"runtime":{"runtimeSpec":{"variant":"VARIANT_CPU","accelerator":"NONE","shape":"SHAPE_STANDARD"}}}`), false, nil)
	if len(s.Runtimes()) != 1 {
		t.Errorf("unprocessed reset created a runtime: %d", len(s.Runtimes()))
	}
}

func TestFaultDropSession(t *testing.T) {
	s, ep, _ := start(t, Options{})
	cs := connect(t, ep)
	if cs.ID() == "" {
		t.Fatal("stateful mode gave no session id")
	}
	s.Inject(Fault{Kind: FaultDropSession})
	// First the JSON-RPC "Session not found" body a dropped session
	// was seen to answer with (go-sdk
	// surfaces it as a *jsonrpc.Error), then go-sdk's own 404 for the
	// unknown id (mcp.ErrSessionMissing).
	_, err := callErr(cs, "list_runtimes", nil)
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != -32001 {
		t.Fatalf("call on a dropped session: %v, want JSON-RPC -32001", err)
	}
	if _, err := callErr(cs, "list_runtimes", nil); !errors.Is(err, mcp.ErrSessionMissing) {
		t.Fatalf("next call: %v, want ErrSessionMissing", err)
	}
	// With a plain-text body the client sees ErrSessionMissing at once.
	cs1 := connect(t, ep)
	s.Inject(Fault{Kind: FaultDropSession, Body: "session not found"})
	if _, err := callErr(cs1, "get_subscription", nil); !errors.Is(err, mcp.ErrSessionMissing) {
		t.Fatalf("plain 404: %v, want ErrSessionMissing", err)
	}
	// A new session works (the client's re-initialize path).
	cs2 := connect(t, ep)
	call(t, cs2, "list_runtimes", nil)
	if cs2.ID() == cs.ID() {
		t.Error("new session reused the dropped id")
	}
}

func TestFaultDropSessionRaw(t *testing.T) {
	s, ep, _ := start(t, Options{JSONResponse: true})
	cs := connect(t, ep)
	s.Inject(Fault{Kind: FaultDropSession})
	hdr := map[string]string{"Mcp-Session-Id": cs.ID()}
	resp, body, err := rawPost(t, ep, toolsCall("list_runtimes", ""), false, hdr)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 404 || !strings.Contains(string(body), `"code":-32001`) || !strings.Contains(string(body), `"id":7`) {
		t.Fatalf("HTTP %d %s", resp.StatusCode, body)
	}
	// The session stays gone.
	if resp, _, _ := rawPost(t, ep, toolsCall("list_runtimes", ""), false, hdr); resp.StatusCode != 404 {
		t.Errorf("dropped session answered HTTP %d", resp.StatusCode)
	}
}

func TestFaultMalformedTruncatedOversized(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			s, ep, _ := start(t, Options{Seed: SeedDemo, Stateless: true, JSONResponse: m.jsonr})
			normal := func() []byte {
				_, b, err := rawPost(t, ep, toolsCall("list_runtimes", ""), false, nil)
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			full := normal()

			s.Inject(Fault{Kind: FaultMalformed, Tool: "list_runtimes"})
			if b := normal(); string(b) != "this is not JSON" {
				t.Errorf("malformed: %q", b)
			}
			s.Inject(Fault{Kind: FaultMalformed, Tool: "list_runtimes", Body: `{"jsonrpc":"2.0","id":7,"result":`})
			if b := normal(); json.Valid(b) {
				t.Errorf("custom malformed body is valid JSON: %q", b)
			}

			s.Inject(Fault{Kind: FaultTruncated, Tool: "list_runtimes"})
			b := normal()
			if len(b) == 0 || len(b) >= len(full) || !strings.HasPrefix(string(full), string(b[:len(b)/2])) {
				t.Errorf("truncated: %d of %d bytes", len(b), len(full))
			}

			s.Inject(Fault{Kind: FaultOversized, Tool: "list_runtimes", Size: 3 << 20})
			b = normal()
			var rpc struct {
				Result mcp.CallToolResult `json:"result"`
			}
			if len(b) < 3<<20 || json.Unmarshal(b, &rpc) != nil {
				t.Errorf("oversized reply: %d bytes, valid=%v", len(b), json.Valid(b))
			}
		})
	}
	// Through the go-sdk client a malformed reply is an error, not a result.
	s, cs, _ := startConnect(t, Options{JSONResponse: true})
	s.Inject(Fault{Kind: FaultMalformed, Tool: "list_runtimes"})
	if _, err := callErr(cs, "list_runtimes", nil); err == nil {
		t.Error("malformed reply decoded as a result")
	}
}

func TestFaultOutputAndOddState(t *testing.T) {
	s, cs, _ := startConnect(t, Options{Seed: SeedDemo})
	// list_runtimes answering {} (runtimes absent).
	s.Inject(Fault{Kind: FaultOutput, Tool: "list_runtimes", Output: json.RawMessage(`{}`)})
	res := call(t, cs, "list_runtimes", nil)
	if text(res) != "{}" || res.IsError {
		t.Fatalf("output fault: %q", text(res))
	}
	// A runtime with unknown enums and without connectionInfo, even after get_runtime.
	odd := mustAdd(t, s, api.Runtime{Name: "runtimes/odd", RuntimeSpec: api.RuntimeSpecKey{Variant: "VARIANT_QPU", Accelerator: "Q1", Shape: "SHAPE_TINY"}})
	var got api.Runtime
	decode(t, call(t, cs, "get_runtime", map[string]any{"name": odd.Name}), &got)
	if got.ConnectionInfo != nil || got.RuntimeSpec.Variant != "VARIANT_QPU" || got.RuntimeSpec.Shape != "SHAPE_TINY" {
		t.Errorf("odd runtime: %+v", got)
	}
	s.SetTier("SUBSCRIPTION_TIER_ULTRA")
	var sub api.Subscription
	decode(t, call(t, cs, "get_subscription", nil), &sub)
	if sub.Tier != "SUBSCRIPTION_TIER_ULTRA" {
		t.Errorf("tier %s", sub.Tier)
	}
	// Wrong types in an output also get through (bypassing the schema).
	s.Inject(Fault{Kind: FaultOutput, Tool: "get_runtime", Output: json.RawMessage(`{"name":"runtimes/odd","connectionInfo":{"expireTime":"soon"}}`)})
	decode(t, call(t, cs, "get_runtime", map[string]any{"name": odd.Name}), &got)
	if got.ConnectionInfo == nil || !got.ExpireTime().IsZero() {
		t.Errorf("bad expireTime: %+v", got.ConnectionInfo)
	}
}

func TestReclaimAndExpireToken(t *testing.T) {
	s, cs, clk := startConnect(t, Options{Seed: SeedDemo})
	gpu := "runtimes/rt-t4demo7k2p"
	if !s.ExpireToken(gpu, clk.Now().Add(-time.Minute)) {
		t.Fatal("ExpireToken")
	}
	var rt api.Runtime
	decode(t, call(t, cs, "get_runtime", map[string]any{"name": gpu}), &rt)
	if !rt.ExpireTime().After(clk.Now()) {
		t.Error("get_runtime did not renew an expired token")
	}
	if !s.Reclaim(gpu) || s.Reclaim(gpu) {
		t.Fatal("Reclaim")
	}
	var list struct {
		Runtimes []api.Runtime `json:"runtimes"`
	}
	decode(t, call(t, cs, "list_runtimes", nil), &list)
	for _, r := range list.Runtimes {
		if r.Name == gpu {
			t.Error("reclaimed runtime still listed")
		}
	}
	if e := toolError(t, call(t, cs, "get_runtime", map[string]any{"name": gpu})); e.Code != api.NotFound || e.HTTPStatus != 404 {
		t.Errorf("get after reclaim: %v", e)
	}
	if s.Sessions(gpu) != nil {
		t.Error("reclaimed runtime kept sessions")
	}
}

func TestFaultMatching(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	s.Inject(Fault{Kind: FaultToolError, Tool: "get_runtime", Times: 2})
	s.Inject(Fault{Kind: FaultLatency, Method: "initialize"})
	s.Inject(Fault{Kind: FaultToolError, Times: -1})
	if f := s.takeFault(levelTool, "tools/call", "list_runtimes", true, false); f == nil || f.Tool != "" {
		t.Errorf("catch-all tool fault not taken: %+v", f)
	}
	for range 2 {
		if f := s.takeFault(levelTool, "tools/call", "get_runtime", true, false); f == nil || f.Tool != "get_runtime" {
			t.Fatalf("get_runtime fault: %+v", f)
		}
	}
	if f := s.takeFault(levelHTTP, "tools/call", "get_runtime", true, false); f != nil {
		t.Errorf("method-scoped fault matched tools/call: %+v", f)
	}
	if f := s.takeFault(levelHTTP, "initialize", "", true, false); f == nil || f.Kind != FaultLatency {
		t.Errorf("initialize fault: %+v", f)
	}
	if s.PendingFaults() != 1 {
		t.Errorf("%d pending, want the forever fault only", s.PendingFaults())
	}
	s.ClearFaults()
	if s.takeFault(levelTool, "tools/call", "x", true, false) != nil {
		t.Error("ClearFaults left a fault")
	}
}
