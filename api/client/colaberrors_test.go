// The client against the emulator: Colab's error replies (capacity, usage
// limit, too many runtimes, rate limits, each error format) become api.Errors.

package client

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/testkit"
)

// Capacity errors of a read are retried with
// backoff and shown; create_runtime's are the caller's to re-send
// (state.CreateAnswered): the client sends it once.
func TestFieldCase3Capacity(t *testing.T) {
	t.Run("503 twice then success", func(t *testing.T) {
		emu, ep := startEmu(t, modes[0], colabfake.Options{Tier: api.TierProPlus, Seed: colabfake.SeedDemo})
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
		emu, ep := startEmu(t, modes[0], colabfake.Options{Tier: api.TierProPlus})
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
		emu, ep := startEmu(t, modes[1], colabfake.Options{Tier: api.TierProPlus})
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
			emu, ep := startEmu(t, modes[0], colabfake.Options{})
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
	emu, ep := startEmu(t, modes[1], colabfake.Options{})
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
		for _, m := range modes {
			t.Run(tc.name+"/"+m.name, func(t *testing.T) {
				emu, ep := startEmu(t, m, colabfake.Options{Seed: colabfake.SeedDemo})
				logBuf := &testkit.SyncBuffer{}
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
		emu, ep := startEmu(t, modes[0], colabfake.Options{})
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
		emu, ep := startEmu(t, modes[1], colabfake.Options{Seed: colabfake.SeedDemo})
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
		emu, ep := startEmu(t, modes[0], colabfake.Options{})
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
		emu, ep := startEmu(t, modes[0], colabfake.Options{})
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
	emu, ep := startEmu(t, modes[0], colabfake.Options{CreatesPerMinute: 1, RuntimeLimit: -1})
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
