package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/state/config"
)

// The fault matrix: the whole stack (dashboard model → MCP client →
// emulator on loopback) against every fault the emulator can inject. Each
// row asserts what the user sees on the dashboard and that nothing was
// lost: the runtimes stay listed (marked stale, never "gone" because of a
// failed call), no runtime is created or deleted, and the dashboard
// recovers once the fault clears. Rows name the field cases they cover:
// the failures seen against the real Colab, each with a number and a
// one-line title in testdata/field-cases-headings.txt (for example "18.
// 429 RESOURCE_EXHAUSTED: honour RetryInfo, and tell rate limits from
// quota"); TestFieldCasesHaveRows checks every case has a row.

const (
	googleBody = "google"
	htmlBody   = "html"
	emptyBody  = "empty"
)

func httpFaultBody(kind string, status int) string {
	switch kind {
	case googleBody:
		return colabfake.GoogleErrorText(api.CodeFromHTTP(status), fmt.Sprintf("emulated %d from Google", status), "", 0)
	case htmlBody:
		return `<!DOCTYPE html><html lang=en><meta charset=utf-8><title>Error ` + fmt.Sprint(status) + ` (Server Error)!!1</title><p><b>` + fmt.Sprint(status) + `.</b> <ins>That’s an error.</ins></html>`
	}
	return ""
}

// refreshRow is one fault hitting the automatic list_runtimes refresh of a
// loaded dashboard.
type refreshRow struct {
	name   string
	cases  []int // field cases covered
	faults []colabfake.Fault
	want   []string // on the screen while failing
	// healthy: the fault is absorbed (retry, reconnect) and the dashboard
	// stays connected.
	healthy bool
	calls   int // with callTimeout: the per-call timeout
	timeout time.Duration
}

func refreshRows(stateless bool) []refreshRow {
	var rows []refreshRow
	for _, status := range []int{401, 403, 404, 429, 500, 502, 503} {
		for _, body := range []string{googleBody, htmlBody, emptyBody} {
			code := api.CodeFromHTTP(status)
			want := []string{"STALE", string(code), fmt.Sprintf("HTTP %d", status)}
			switch {
			case status == 404 && !stateless:
				// An HTTP 404 from a stateful MCP endpoint means the MCP
				// session is gone: the client reconnects
				// once, then reports it; the body is not Colab's.
				want = []string{"STALE", "HTTP 404", "dropped the session"}
			case status == 404:
				// A stateless endpoint answering 404 is the wrong URL: say
				// so, with what the server said when it said something.
				want = []string{"STALE", "NOT_FOUND", "answered HTTP 404", "check the endpoint URL"}
				if body == googleBody {
					want = append(want, "emulated 404 from Google")
				}
			case body == googleBody:
				want = append(want, fmt.Sprintf("emulated %d from Google", status))
			default:
				want = append(want, api.DefaultMessage(code, status))
			}
			if status == 401 || status == 403 {
				want = append(want, "check your Google credentials")
			}
			rows = append(rows, refreshRow{
				name:   fmt.Sprintf("HTTP %d %s body", status, body),
				cases:  []int{17, 28},
				faults: []colabfake.Fault{{Kind: colabfake.FaultHTTPStatus, Tool: "list_runtimes", Status: status, Body: httpFaultBody(body, status), Times: -1}},
				want:   want,
			})
		}
	}
	rows = append(rows,
		refreshRow{name: "403 USER_PROJECT_DENIED", cases: []int{8},
			faults: []colabfake.Fault{{Kind: colabfake.FaultHTTPStatus, Tool: "list_runtimes", Status: 403, Times: -1,
				Body: `{"error":{"code":403,"status":"PERMISSION_DENIED","message":"Caller does not have required permission to use project other-proj.","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"USER_PROJECT_DENIED","domain":"googleapis.com","metadata":{"consumer":"projects/other-proj"}}]}}`}},
			want: []string{"PERMISSION_DENIED (HTTP 403, USER_PROJECT_DENIED)", "other-proj", "check your Google credentials"}},
		refreshRow{name: "403 SERVICE_DISABLED", cases: []int{8},
			faults: []colabfake.Fault{{Kind: colabfake.FaultHTTPStatus, Tool: "list_runtimes", Status: 403, Times: -1,
				Body: colabfake.GoogleErrorText(api.PermissionDenied, "requires a quota project", api.ReasonServiceDisabled, 0)}},
			want: []string{"SERVICE_DISABLED", "requires a quota project"}},
		refreshRow{name: "403 ACCESS_TOKEN_SCOPE_INSUFFICIENT", cases: []int{9},
			faults: []colabfake.Fault{{Kind: colabfake.FaultHTTPStatus, Tool: "list_runtimes", Status: 403, Times: -1,
				Body: colabfake.GoogleErrorText(api.PermissionDenied, "Request had insufficient authentication scopes.", api.ReasonScopeInsufficient, 0)}},
			want: []string{"ACCESS_TOKEN_SCOPE_INSUFFICIENT", "insufficient authentication scopes"}},
		refreshRow{name: "401 invalid_token with a valid local token", cases: []int{11, 12},
			faults: []colabfake.Fault{{Kind: colabfake.FaultHTTPStatus, Tool: "list_runtimes", Status: 401, Times: -1,
				Body: colabfake.GoogleErrorText(api.Unauthenticated, "Request had invalid authentication credentials.", "", 0)}},
			want: []string{"UNAUTHENTICATED (HTTP 401)", "check your Google credentials"}},
		refreshRow{name: "429 RetryInfo 53s", cases: []int{18},
			faults: []colabfake.Fault{{Kind: colabfake.FaultHTTPStatus, Tool: "list_runtimes", Status: 429, Times: -1,
				Body: `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"Quota exceeded for requests per minute per user.","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"53s"}]}}`}},
			want: []string{"RESOURCE_EXHAUSTED (HTTP 429)", "Quota exceeded for requests per minute"}},
		refreshRow{name: "429 Retry-After 30", cases: []int{18},
			faults: []colabfake.Fault{{Kind: colabfake.FaultHTTPStatus, Tool: "list_runtimes", Status: 429, RetryAfter: "30", Times: -1}},
			want:   []string{"RESOURCE_EXHAUSTED", "Too many requests (HTTP 429)"}},
		refreshRow{name: "429 QuotaFailure", cases: []int{18},
			faults: []colabfake.Fault{{Kind: colabfake.FaultHTTPStatus, Tool: "list_runtimes", Status: 429, Times: -1,
				Body: `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"Quota exceeded.","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"subject":"project:p"}]}]}}`}},
			want: []string{"RESOURCE_EXHAUSTED (HTTP 429)", "Quota exceeded."}},
		refreshRow{name: "JSON-RPC internal error", cases: []int{17},
			faults: []colabfake.Fault{{Kind: colabfake.FaultJSONRPCError, Tool: "list_runtimes", RPCCode: -32603, Message: "backend exploded", Times: -1}},
			want:   []string{"STALE", "backend exploded"}},
		refreshRow{name: "JSON-RPC error carrying a Google envelope", cases: []int{17},
			faults: []colabfake.Fault{{Kind: colabfake.FaultJSONRPCError, Tool: "list_runtimes", RPCCode: -32603, Times: -1,
				Message: colabfake.GoogleErrorText(api.Unavailable, "backend unavailable", "", 0)}},
			want: []string{"STALE", "UNAVAILABLE", "backend unavailable"}},
		refreshRow{name: "JSON-RPC invalid params", cases: []int{17},
			faults: []colabfake.Fault{{Kind: colabfake.FaultJSONRPCError, Tool: "list_runtimes", RPCCode: -32602, Message: "unexpected argument", Times: -1}},
			want:   []string{"STALE", "INVALID_ARGUMENT", "unexpected argument"}},
		refreshRow{name: "isError plain text", cases: []int{17},
			faults: []colabfake.Fault{{Kind: colabfake.FaultToolError, Tool: "list_runtimes", Text: "Backend is being rebooted", Times: -1}},
			want:   []string{"STALE", "Backend is being rebooted"}},
		refreshRow{name: "isError Google envelope", cases: []int{17},
			faults: []colabfake.Fault{{Kind: colabfake.FaultToolError, Tool: "list_runtimes", Times: -1,
				Text: colabfake.GoogleErrorText(api.FailedPrecondition, "Precondition check failed.", "", 0)}},
			want: []string{"STALE", "FAILED_PRECONDITION", "Precondition check failed."}},
		refreshRow{name: "isError HTML page", cases: []int{17},
			faults: []colabfake.Fault{{Kind: colabfake.FaultToolError, Tool: "list_runtimes", Times: -1, Text: httpFaultBody(htmlBody, 500)}},
			want:   []string{"STALE", "the server answered with an HTML page"}},
		refreshRow{name: "reset after the request was read, every attempt", cases: []int{2},
			faults: []colabfake.Fault{{Kind: colabfake.FaultReset, Tool: "list_runtimes", Times: -1}},
			want:   []string{"STALE", "list_runtimes"}},
		refreshRow{name: "reset once, then retried", cases: []int{2},
			faults:  []colabfake.Fault{{Kind: colabfake.FaultReset, Tool: "list_runtimes"}},
			healthy: true},
		refreshRow{name: "latency past the call deadline", cases: []int{15, 28},
			// The reply would take an hour (the emulator's wait ends with
			// the request), so the call times out however busy the machine
			// is; the short timeout applies only while the fault lasts, so
			// loading and recovery never race it.
			faults:  []colabfake.Fault{{Kind: colabfake.FaultLatency, Tool: "list_runtimes", Delay: time.Hour, Times: -1}},
			timeout: 300 * time.Millisecond,
			want:    []string{"STALE", "DEADLINE_EXCEEDED"}},
		refreshRow{name: "latency within the deadline", cases: []int{15},
			faults:  []colabfake.Fault{{Kind: colabfake.FaultLatency, Tool: "list_runtimes", Delay: 50 * time.Millisecond, Times: -1}},
			healthy: true},
		refreshRow{name: "malformed reply", cases: []int{17},
			faults: []colabfake.Fault{{Kind: colabfake.FaultMalformed, Tool: "list_runtimes", Times: -1}},
			want:   []string{"STALE", "list_runtimes"}},
		refreshRow{name: "malformed HTML reply with 200", cases: []int{17},
			faults: []colabfake.Fault{{Kind: colabfake.FaultMalformed, Tool: "list_runtimes", Body: httpFaultBody(htmlBody, 200), Times: -1}},
			want:   []string{"STALE", "list_runtimes"}},
		refreshRow{name: "truncated reply", cases: []int{17},
			faults: []colabfake.Fault{{Kind: colabfake.FaultTruncated, Tool: "list_runtimes", Times: -1}},
			want:   []string{"STALE", "list_runtimes"}},
		refreshRow{name: "oversized reply", cases: []int{17},
			faults: []colabfake.Fault{{Kind: colabfake.FaultOversized, Tool: "list_runtimes", Size: 9 << 20, Times: -1}},
			want:   []string{"STALE", "list_runtimes"}},
		refreshRow{name: "list_runtimes structuredContent of the wrong type", cases: []int{5},
			faults: []colabfake.Fault{{Kind: colabfake.FaultOutput, Tool: "list_runtimes", Output: json.RawMessage(`{"runtimes":"none"}`), Times: -1}},
			want:   []string{"STALE", "malformed reply from list_runtimes"}},
		refreshRow{name: "MCP session dropped", cases: []int{14},
			faults:  []colabfake.Fault{{Kind: colabfake.FaultDropSession}},
			healthy: true},
		refreshRow{name: "deadline from the tool", cases: []int{28},
			faults: []colabfake.Fault{{Kind: colabfake.FaultDeadline, Tool: "list_runtimes", Times: -1}},
			want:   []string{"STALE", "DEADLINE_EXCEEDED"}},
	)
	return rows
}

// loaded starts a stack with two runtimes (one with a notebook session) and
// loads the dashboard.
func loaded(t *testing.T, o stackOpts) *stack {
	t.Helper()
	s := newStack(t, o)
	s.srv.SetTier(api.TierPro)
	s.addRuntime(t, "r-alpha", stackT4)
	s.addRuntime(t, "r-bravo", stackCPU)
	if _, err := s.srv.AddNotebookSession("r-alpha", "notebook-1"); err != nil {
		t.Fatal(err)
	}
	s.start()
	v := s.view()
	for _, want := range []string{"tier Pro", "r-alpha", "r-bravo", "GPU/T4/STANDARD", "● connected"} {
		if !strings.Contains(v, want) {
			t.Fatalf("first dashboard lacks %q:\n%s", want, v)
		}
	}
	return s
}

// checkNothingLost asserts the runtimes are still listed and not gone, no
// runtime was created or deleted, and no secret or HTML is on screen.
func checkNothingLost(t *testing.T, s *stack, v string) {
	t.Helper()
	for _, name := range []string{"runtimes/r-alpha", "runtimes/r-bravo"} {
		r := s.m.Snapshot().Runtime(name)
		if r == nil || r.Gone() {
			t.Errorf("%s lost or marked gone after a failed call", name)
		}
	}
	if !strings.Contains(v, "r-alpha") || !strings.Contains(v, "r-bravo") {
		t.Errorf("runtimes missing from the screen:\n%s", v)
	}
	if n := len(s.srv.Runtimes()); n != 2 || s.srv.RuntimesCreated() != 0 {
		t.Errorf("emulator has %d runtimes, %d created: want the 2 seeded, none created", n, s.srv.RuntimesCreated())
	}
	if n := s.srv.CallCount("delete_runtime") + s.srv.CallCount("create_runtime") + s.srv.CallCount("delete_session"); n != 0 {
		t.Errorf("%d create/delete calls reached the emulator", n)
	}
	checkScreenWidth(t, v, s.width)
}

func checkScreenClean(t *testing.T, v string) { checkScreenWidth(t, v, 250) }

func checkScreenWidth(t *testing.T, v string, width int) {
	t.Helper()
	low := strings.ToLower(v)
	for _, bad := range []string{"<html", "<!doctype", "<title", "proxy-secret", strings.ToLower(stackOAuthToken), "\x1b"} {
		if strings.Contains(low, bad) {
			t.Errorf("screen shows %q:\n%s", bad, v)
		}
	}
	for i, line := range strings.Split(v, "\n") {
		if w := len([]rune(line)); w > width {
			t.Errorf("line %d is %d cells wide", i, w)
		}
	}
}

// TestFaultMatrixRefresh runs every refresh row against both server modes:
// stateful SSE (Mcp-Session-Id, initialize handshake) and stateless JSON.
// In each mode one dashboard lives through every row in turn: each fault
// shows, loses nothing, and once it clears the dashboard recovers fit for
// the next row (none of the row's words still on screen before its fault).
func TestFaultMatrixRefresh(t *testing.T) {
	for _, mode := range []struct {
		name string
		emu  colabfake.Options
	}{{"stateful", colabfake.Options{}}, {"stateless", colabfake.Options{Stateless: true, JSONResponse: true}}} {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			faultMatrixRefresh(t, mode.emu, mode.emu.Stateless)
		})
	}
}

func faultMatrixRefresh(t *testing.T, emu colabfake.Options, stateless bool) {
	s := loaded(t, stackOpts{width: 250, emu: emu})
	for _, row := range refreshRows(stateless) {
		t.Run(row.name, func(t *testing.T) {
			before := s.view()
			for _, want := range row.want {
				if strings.Contains(before, want) {
					t.Fatalf("%q on screen before the fault:\n%s", want, before)
				}
			}
			for _, f := range row.faults {
				s.srv.Inject(f)
			}
			if row.timeout > 0 {
				s.m.opts.CallTimeout = row.timeout
			}
			s.tick(config.DefaultRefreshInterval + time.Second)
			s.m.opts.CallTimeout = DefaultCallTimeout
			v := s.view()
			if row.healthy {
				if !strings.Contains(v, "● connected") || strings.Contains(v, "STALE") {
					t.Errorf("the dashboard did not absorb the fault:\n%s", v)
				}
			} else {
				for _, want := range row.want {
					if !strings.Contains(v, want) {
						t.Errorf("screen lacks %q:\n%s", want, v)
					}
				}
				if !s.m.Snapshot().RuntimesFresh.Stale() {
					t.Errorf("runtimes not marked stale")
				}
			}
			checkNothingLost(t, s, v)
			// The fault clears: the next refresh (after the backoff)
			// brings the dashboard back.
			s.srv.ClearFaults()
			s.tick(MaxBackoff + time.Second)
			v = s.view()
			if !strings.Contains(v, "● connected") || strings.Contains(v, "STALE") || strings.Contains(v, "refresh failing") {
				t.Fatalf("no recovery after the fault cleared:\n%s", v)
			}
			checkNothingLost(t, s, v)
		})
	}
}

// TestFaultMatrixBackoffHonoursServer: the client waits at least the
// server's RetryInfo / Retry-After before retrying and does not retry a
// QuotaFailure without RetryInfo (a quota, not a rate limit); the dashboard's
// next refresh is no sooner than the server asked. One dashboard meets
// each fault in turn and recovers before the next.
func TestFaultMatrixBackoffHonoursServer(t *testing.T) {
	s := loaded(t, stackOpts{})
	for _, c := range []struct {
		name      string
		f         colabfake.Fault
		wantWait  time.Duration
		wantWaits int // retries (the attempts are one more)
	}{
		{"RetryInfo 53s", colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: "list_runtimes", Status: 429, Times: -1,
			Body: `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"rate","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"53s"}]}}`}, 53 * time.Second, 2},
		{"Retry-After 30", colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: "list_runtimes", Status: 429, RetryAfter: "30", Times: -1}, 30 * time.Second, 2},
		{"QuotaFailure", colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: "list_runtimes", Status: 429, Times: -1,
			Body: `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"quota","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"subject":"p"}]}]}}`}, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			s.mu.Lock()
			s.sleeps = nil
			s.mu.Unlock()
			s.srv.Inject(c.f)
			s.tick(config.DefaultRefreshInterval + time.Second)
			s.mu.Lock()
			sleeps := append([]time.Duration(nil), s.sleeps...)
			s.mu.Unlock()
			if len(sleeps) != c.wantWaits {
				t.Errorf("%d retries of list_runtimes (waits %v), want %d", len(sleeps), sleeps, c.wantWaits)
			}
			for _, d := range sleeps {
				if d < c.wantWait {
					t.Errorf("client waited %v, less than the server's %v", d, c.wantWait)
				}
			}
			if c.wantWait > 0 && len(sleeps) == 0 {
				t.Errorf("no retry wait")
			}
			if next := s.m.calls.nextRefresh.Sub(s.clk.Now()); next < c.wantWait {
				t.Errorf("next dashboard refresh in %v, sooner than the server's %v", next, c.wantWait)
			}
			s.srv.ClearFaults()
			s.tick(MaxBackoff + time.Second)
			if v := s.view(); !strings.Contains(v, "● connected") || strings.Contains(v, "STALE") {
				t.Fatalf("no recovery after the fault cleared:\n%s", v)
			}
		})
	}
}

// TestFaultMatrixData: replies that are well-formed but odd (absent fields,
// unknown enum values, expireTime forms) render without loss. One
// dashboard meets each reply in turn through a manual refresh (which asks
// for the tier too), then a second one past the gone runtimes' retention,
// so that only the row's reply is listed; each row's words are absent
// before its reply and both refreshes are checked to have reached the
// server, so no row passes on what the row before it left.
func TestFaultMatrixData(t *testing.T) {
	s := newStack(t, stackOpts{})
	s.addRuntime(t, "r-alpha", stackT4)
	s.addRuntime(t, "r-bravo", stackCPU)
	s.start()
	for _, c := range []struct {
		name   string
		cases  []int
		tool   string
		output string
		want   []string
		rows   int
	}{
		{"empty list", []int{5}, "list_runtimes", `{"runtimes":[]}`, []string{"no runtimes"}, 0},
		{"unknown enum values", nil, "list_runtimes",
			`{"runtimes":[{"name":"runtimes/r-q","runtimeSpec":{"variant":"VARIANT_QPU","accelerator":"Q7","shape":"SHAPE_HUGE"},"connectionInfo":{"url":"https://x","token":"PROXY-SECRET-q","expireTime":"EXPIRE"}}]}`,
			[]string{"r-q", "QPU/Q7/HUGE", "1h OK"}, 1},
		{"absent list", []int{5}, "list_runtimes", `{}`, []string{"no runtimes"}, 0},
		{"absent connectionInfo and runtimeSpec", []int{7}, "list_runtimes", `{"runtimes":[{"name":"runtimes/r-bare"}]}`, []string{"r-bare", "UNKNOWN"}, 1},
		{"nameless entry dropped", nil, "list_runtimes", `{"runtimes":[{"runtimeSpec":{"variant":"VARIANT_GPU"}},{"name":"runtimes/r-ok"}]}`, []string{"r-ok"}, 1},
		{"unknown tier", nil, "get_subscription", `{"tier":"SUBSCRIPTION_TIER_ULTRA"}`, []string{"tier SUBSCRIPTION_TIER_ULTRA"}, 2},
		{"absent tier", nil, "get_subscription", `{}`, []string{"tier unknown"}, 2},
	} {
		before := s.view()
		for _, want := range c.want {
			if strings.Contains(before, want) {
				t.Fatalf("%s: %q on screen before its reply:\n%s", c.name, want, before)
			}
		}
		// A manual refresh brings the reply (and makes what the row before
		// listed gone); a tick past the retention drops those, and its
		// refresh lists the reply again.
		for _, manual := range []bool{true, false} {
			s.srv.ClearFaults()
			out := strings.Replace(c.output, "EXPIRE", s.clk.Now().Add(state.DefaultGoneRetention+2*time.Second+time.Hour).Format(time.RFC3339), 1)
			s.srv.Inject(colabfake.Fault{Kind: colabfake.FaultOutput, Tool: c.tool, Output: json.RawMessage(out), Times: -1})
			calls := s.srv.CallCount("list_runtimes")
			if manual {
				calls = s.srv.CallCount(c.tool)
				s.clk.Advance(time.Second)
				s.press("r")
				if s.srv.CallCount(c.tool) == calls {
					t.Fatalf("%s: the refresh did not call %s", c.name, c.tool)
				}
			} else {
				s.tick(state.DefaultGoneRetention + time.Second)
				if s.srv.CallCount("list_runtimes") == calls {
					t.Fatalf("%s: the tick did not call list_runtimes", c.name)
				}
			}
		}
		v := s.view()
		for _, want := range c.want {
			if !strings.Contains(v, want) {
				t.Errorf("%s: screen lacks %q:\n%s", c.name, want, v)
			}
		}
		if n := s.m.Snapshot().Len(); n != c.rows {
			t.Errorf("%s: %d runtimes in the snapshot, want %d", c.name, n, c.rows)
		}
		if strings.Contains(v, "STALE") || strings.Contains(v, "0001") {
			t.Errorf("%s: odd but valid data shown as a failure:\n%s", c.name, v)
		}
		checkScreenClean(t, v)
	}
}

// TestFaultMatrixExpireTimeForms: the forms expireTime comes in (offsets,
// fractions past nanoseconds, lower-case t and z, a space for the T)
// through the whole stack:
// equal instants give equal countdowns; invalid or absent values show
// unknown, never year 1 or a negative number.
func TestFaultMatrixExpireTimeForms(t *testing.T) {
	forms := []struct {
		value string // JSON value, or "" for the field absent
		want  string
	}{
		{`"2026-11-29T18:00:00Z"`, "1h OK"},
		{`"2026-11-29T18:00:00+00:00"`, "1h OK"},
		{`"2026-11-29T23:30:00.5+05:30"`, "1h OK"}, // half a second later: rounded up, to the second
		{`"2026-11-29T23:45:00+05:45"`, "1h OK"},
		{`"2026-11-29T18:00:00.123456789Z"`, "1h OK"},
		{`"2026-11-29T18:00:00.1234567891Z"`, "1h OK"},
		{`"2026-11-29t18:00:00z"`, "1h OK"},
		{`"2026-11-29 18:00:00Z"`, "1h OK"},
		{`""`, "– UNKNOWN"},
		{``, "– UNKNOWN"},
		{`"soon"`, "– UNKNOWN"},
		{`12345`, "– UNKNOWN"},
	}
	var list []string
	for i, f := range forms {
		ci := `"url":"https://x","token":"PROXY-SECRET"`
		if f.value != "" {
			ci += `,"expireTime":` + f.value
		}
		list = append(list, fmt.Sprintf(`{"name":"runtimes/r-%02d","runtimeSpec":{"variant":"VARIANT_CPU","accelerator":"NONE","shape":"SHAPE_STANDARD"},"connectionInfo":{%s}}`, i, ci))
	}
	s := newStack(t, stackOpts{})
	s.srv.Inject(colabfake.Fault{Kind: colabfake.FaultOutput, Tool: "list_runtimes", Output: json.RawMessage(`{"runtimes":[` + strings.Join(list, ",") + `]}`), Times: -1})
	s.start()
	v := s.view()
	lines := strings.Split(v, "\n")
	for i, f := range forms {
		id := fmt.Sprintf("r-%02d", i)
		var row string
		for _, l := range lines {
			if strings.Contains(l, id) && strings.Contains(l, "CPU/STANDARD") {
				row = l
			}
		}
		if !strings.HasSuffix(strings.TrimRight(row, " "), f.want) {
			t.Errorf("expireTime %s: row %q lacks %q", f.value, row, f.want)
		}
	}
	if strings.Contains(v, "0001") || strings.Contains(v, "-") && strings.Contains(v, "-59") {
		t.Errorf("a year-1 or negative countdown on screen:\n%s", v)
	}
	checkScreenClean(t, v)
}

// TestFaultMatrixLifecycle: token expiry is renewed, not taken for a dead
// runtime; a runtime reclaimed for idleness or maximum duration becomes
// gone only when the server confirms it; a failed renewal keeps the row.
// One loaded dashboard meets each in turn (the reclaim last), recovering
// from each fault before the next.
func TestFaultMatrixLifecycle(t *testing.T) {
	s := loaded(t, stackOpts{})
	t.Run("expired token renewed", func(t *testing.T) {
		renewals := s.srv.CallCount("get_runtime")
		s.srv.ExpireToken("r-alpha", s.clk.Now().Add(-30*time.Second))
		s.tick(config.DefaultRefreshInterval + time.Second) // list shows the expired token
		s.tick(time.Second)                                 // renewal
		st, left := s.m.Snapshot().TokenStatus(s.clk.Now(), "runtimes/r-alpha")
		if st != 0 && left < 59*time.Minute {
			t.Errorf("token after renewal: %v, %v left; want about 60:00", st, left)
		}
		if n := s.srv.CallCount("get_runtime") - renewals; n != 1 {
			t.Errorf("%d get_runtime calls, want exactly 1 renewal", n)
		}
		checkNothingLost(t, s, s.view())
	})
	t.Run("sessions fail, runtime stays", func(t *testing.T) {
		s.srv.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: "list_sessions", Status: 503, Times: -1})
		s.tick(config.DefaultRefreshInterval + time.Second)
		r := s.m.Snapshot().Runtime("runtimes/r-alpha")
		if r == nil || r.Gone() || len(r.Sessions) != 1 || !r.SessionsFresh.Stale() {
			t.Fatalf("runtime after failed list_sessions: %+v; want the old session kept, marked stale", r)
		}
		checkNothingLost(t, s, s.view())
		s.srv.ClearFaults()
		s.tick(MaxBackoff + time.Second)
		if r := s.m.Snapshot().Runtime("runtimes/r-alpha"); r == nil || r.SessionsFresh.Stale() {
			t.Fatalf("sessions still stale after the fault cleared: %+v", r)
		}
	})
	t.Run("renewal fails on the network", func(t *testing.T) {
		if r := s.m.Snapshot().Runtime("runtimes/r-alpha"); r == nil || r.RenewErr != nil {
			t.Fatalf("r-alpha before the fault: %+v; want listed without a renewal error", r)
		}
		s.srv.ExpireToken("r-alpha", s.clk.Now().Add(-30*time.Second))
		s.srv.Inject(colabfake.Fault{Kind: colabfake.FaultReset, Tool: "get_runtime", Times: -1})
		s.tick(config.DefaultRefreshInterval + time.Second)
		s.tick(time.Second)
		r := s.m.Snapshot().Runtime("runtimes/r-alpha")
		if r == nil || r.Gone() || r.RenewErr == nil {
			t.Fatalf("runtime after a failed renewal: %+v; want listed, not gone, with the renewal error", r)
		}
		checkNothingLost(t, s, s.view())
		s.srv.ClearFaults()
	})
	t.Run("reclaimed", func(t *testing.T) {
		s.srv.Reclaim("r-bravo")
		s.tick(config.DefaultRefreshInterval + time.Second)
		r := s.m.Snapshot().Runtime("runtimes/r-bravo")
		if r == nil || !r.Gone() {
			t.Fatalf("reclaimed runtime not marked gone: %+v", r)
		}
		if a := s.m.Snapshot().Runtime("runtimes/r-alpha"); a == nil || a.Gone() {
			t.Errorf("the other runtime was lost")
		}
		if !strings.Contains(s.view(), "r-bravo") {
			t.Errorf("gone runtime not kept on screen:\n%s", s.view())
		}
	})
}

// TestFaultMatrixCreate: create_runtime through the client under every
// failure form: a reset after the request was read gives
// OUTCOME UNKNOWN and exactly one runtime, and the identical retry does
// not make a second; capacity, usage-limit and too-many-runtimes
// refusals carry
// their reason, are never retried blindly and create nothing.
func TestFaultMatrixCreate(t *testing.T) {
	ctx := context.Background()
	t.Run("reset after the request was read", func(t *testing.T) {
		s := newStack(t, stackOpts{})
		s.srv.Inject(colabfake.Fault{Kind: colabfake.FaultReset, Tool: "create_runtime"})
		req := api.CreateRuntimeRequest{Spec: stackT4, RequestID: "6f1c2e1a-4b7d-4c1e-9a63-0c8f2d9e4b71"}
		_, err := s.cli.CreateRuntime(ctx, req)
		var ae *api.Error
		if !errors.As(err, &ae) || !ae.OutcomeUnknown {
			t.Fatalf("err = %v; want an outcome-unknown *api.Error", err)
		}
		if s.srv.CreateCalls() != 1 || s.srv.RuntimesCreated() != 1 {
			t.Fatalf("%d create calls, %d created; want 1 and 1 (no blind retry)", s.srv.CreateCalls(), s.srv.RuntimesCreated())
		}
		s.start()
		if s.m.Snapshot().Len() != 1 {
			t.Errorf("the dashboard does not show the runtime the lost create made")
		}
		if _, err := s.cli.CreateRuntime(ctx, req); err != nil {
			t.Fatalf("identical retry: %v", err)
		}
		if s.srv.RuntimesCreated() != 1 || len(s.srv.Runtimes()) != 1 {
			t.Errorf("the identical retry created a second runtime")
		}
	})
	for _, c := range []struct {
		name   string
		cases  []int
		f      colabfake.Fault
		code   api.Code
		reason string
		quota  bool
	}{
		{"no capacity (operation error)", []int{3}, colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: "create_runtime", Message: "accelerator unavailable"}, api.FailedPrecondition, "", false},
		{"no capacity (HTTP 503)", []int{3}, colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: "create_runtime", Status: 503, Times: -1, Body: `{"error":{"code":503,"status":"UNAVAILABLE","message":"No capacity"}}`}, api.Unavailable, "", false},
		{"usage limit", []int{4}, colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: "create_runtime", Code: api.ResourceExhausted, Reason: api.ReasonQuotaExceededUsageTime}, api.ResourceExhausted, api.ReasonQuotaExceededUsageTime, true},
		{"usage limit in HTTP 429", []int{4}, colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: "create_runtime", Status: 429, Times: -1, Body: colabfake.GoogleErrorText(api.ResourceExhausted, "usage limit", api.ReasonQuotaExceededUsageTime, 0)}, api.ResourceExhausted, api.ReasonQuotaExceededUsageTime, true},
		{"denylisted", []int{4}, colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: "create_runtime", Code: api.FailedPrecondition, Reason: api.ReasonDenylisted}, api.FailedPrecondition, api.ReasonDenylisted, true},
		{"too many active runtimes", []int{5}, colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: "create_runtime", Reason: api.ReasonTooManyActiveRuntimes}, api.FailedPrecondition, api.ReasonTooManyActiveRuntimes, false},
		{"rate quota with RetryInfo", []int{18}, colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: "create_runtime", Code: api.ResourceExhausted, RetryDelay: 53 * time.Second}, api.ResourceExhausted, "", false},
		{"QuotaFailure", []int{18}, colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: "create_runtime", Code: api.ResourceExhausted, QuotaFailure: true}, api.ResourceExhausted, "", true},
		{"scope insufficient", []int{9}, colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: "create_runtime", Code: api.PermissionDenied, Reason: api.ReasonScopeInsufficient}, api.PermissionDenied, api.ReasonScopeInsufficient, false},
		{"user project denied", []int{8}, colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: "create_runtime", Code: api.PermissionDenied, Reason: api.ReasonUserProjectDenied}, api.PermissionDenied, api.ReasonUserProjectDenied, false},
		{"service disabled", []int{8}, colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: "create_runtime", Code: api.PermissionDenied, Reason: api.ReasonServiceDisabled}, api.PermissionDenied, api.ReasonServiceDisabled, false},
		{"isError", []int{17}, colabfake.Fault{Kind: colabfake.FaultToolError, Tool: "create_runtime", Text: "Runtime not found"}, api.NotFound, "", false},
		{"JSON-RPC error", nil, colabfake.Fault{Kind: colabfake.FaultJSONRPCError, Tool: "create_runtime", RPCCode: -32602, Message: "bad spec"}, api.InvalidArgument, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newStack(t, stackOpts{clientOnly: true})
			s.srv.Inject(c.f)
			_, err := s.cli.CreateRuntime(ctx, api.CreateRuntimeRequest{Spec: api.RuntimeSpecKey{Variant: api.VariantGPU, Accelerator: "H100", Shape: api.ShapeStandard}})
			var ae *api.Error
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v, want *api.Error", err)
			}
			if ae.Code != c.code || ae.Reason != c.reason || ae.IsQuota() != c.quota {
				t.Errorf("got %s reason %q quota %v; want %s %q %v", ae.Code, ae.Reason, ae.IsQuota(), c.code, c.reason, c.quota)
			}
			checkScreenClean(t, ae.Error())
			if s.srv.RuntimesCreated() != 0 || len(s.srv.Runtimes()) != 0 {
				t.Errorf("a refused create left a runtime")
			}
			s.mu.Lock()
			retries := len(s.sleeps)
			s.mu.Unlock()
			if (c.quota || c.reason != "" || !ae.Retryable()) && retries != 0 {
				t.Errorf("%d automatic retries of a refusal that retrying cannot fix", retries)
			}
		})
	}
}

// fieldCaseRows maps every field case's number (as in
// testdata/field-cases-headings.txt) to the tests that are its rows:
// the fault matrix above (ui/faultmatrix_test.go) or, for
// credential, terminal and platform cases the emulator cannot inject,
// the package tests that cover them. Paths are from the module root.
var fieldCaseRows = map[int][]string{
	1:  {"ui/faultmatrix_test.go:TestFaultMatrixLifecycle", "ui/renewal_test.go:TestTokenRenewal", "ui/renewal_test.go:TestRenewalFailsThenSucceeds"},
	2:  {"ui/faultmatrix_test.go:TestFaultMatrixCreate", "api/client/outcome_test.go:TestFieldCase2CreateResetOutcomeUnknown", "ui/create_test.go:TestCreateConnectionDropsAfterSending"},
	3:  {"ui/faultmatrix_test.go:TestFaultMatrixCreate", "api/client/colaberrors_test.go:TestFieldCase3Capacity", "ui/create_test.go:TestCreateCapacityUnavailable"},
	4:  {"ui/faultmatrix_test.go:TestFaultMatrixCreate", "api/client/colaberrors_test.go:TestFieldCase4UsageLimit"},
	5:  {"ui/faultmatrix_test.go:TestFaultMatrixData", "ui/faultmatrix_test.go:TestFaultMatrixCreate", "ui/create_test.go:TestCreateFailedPreconditionNextSteps"},
	7:  {"ui/faultmatrix_test.go:TestFaultMatrixLifecycle", "ui/faultmatrix_test.go:TestFaultMatrixData", "ui/renewal_test.go:TestRenewKeyAndReclaimed"},
	8:  {"ui/faultmatrix_test.go:TestFaultMatrixRefresh", "api/auth/auth_test.go:TestQuotaProjectPrecedence"},
	9:  {"ui/faultmatrix_test.go:TestFaultMatrixRefresh", "api/client/auth_test.go:TestScopeInsufficient"},
	10: {"api/auth/auth_test.go:TestNoCredentials", "api/auth/auth_test.go:TestCloudSDKConfig", "api/auth/auth_test.go:TestBrokenFiles", "api/auth/auth_test.go:TestUnreadableFile"},
	11: {"ui/faultmatrix_test.go:TestFaultMatrixRefresh", "api/auth/refresh_test.go:TestReauthRequired", "api/client/auth_test.go:TestInvalidGrant"},
	12: {"ui/faultmatrix_test.go:TestFaultMatrixRefresh", "api/auth/refresh_test.go:TestForceRefreshSingleFlight", "api/auth/refresh_test.go:TestEarlyRefresh", "api/client/auth_test.go:TestUnauthenticatedRefreshOnce"},
	14: {"ui/faultmatrix_test.go:TestFaultMatrixRefresh", "api/client/session_test.go:TestFieldCase14SessionDropped"},
	15: {"ui/faultmatrix_test.go:TestFaultMatrixRefresh", "api/client/session_test.go:TestFieldCase15NoStandaloneSSE"},
	17: {"ui/faultmatrix_test.go:TestFaultMatrixRefresh", "ui/faultmatrix_test.go:TestFaultMatrixCreate", "api/client/colaberrors_test.go:TestFieldCase17ErrorFormats"},
	18: {"ui/faultmatrix_test.go:TestFaultMatrixBackoffHonoursServer", "ui/faultmatrix_test.go:TestFaultMatrixCreate", "ui/create_test.go:createRateLimitedWaits"},
	19: {"ui/faultmatrix_test.go:TestFaultMatrixExpireTimeForms", "api/fuzz_test.go:FuzzParseExpireTime"},
	21: {"ui/calls_test.go:TestOneTickChain", "ui/soak_test.go:TestSoak"},
	22: {"ui/layout_test.go:noLineWiderThanTerminal", "ui/layout_test.go:resizeRelayout"},
	23: {"ui/layout_test.go:resizeRelayout"}, // Windows itself is not in CI; bubbletea is pinned in go.mod
	25: {"ui/layout_test.go:noColorAndNoSecrets", "ui/theme/theme_test.go:TestNoColorAnyValue"},
	26: {"ui/calls_test.go:TestServicePanicBecomesError", "ui/cli/main_test.go:TestDashboardWithoutTerminal"},
	28: {"ui/faultmatrix_test.go:TestFaultMatrixRefresh"},
}

// TestFieldCasesHaveRows: every field case (each "### N. Title" line of
// testdata/field-cases-headings.txt) has at least one row, every row
// names a test that exists, and every fault-matrix refresh row's field
// case is one of them.
func TestFieldCasesHaveRows(t *testing.T) {
	// The suite needs nothing outside the repository: the case headings
	// ("### N. Title") are kept in testdata. Where a developer's machine
	// also holds the full notes on the cases outside the repository, at
	// ../shared/reference/field-cases.md from the module root, the copy must
	// still match their headings, so a case added there is not missed here;
	// without them this check is skipped.
	doc, err := os.ReadFile(filepath.Join("testdata", "field-cases-headings.txt"))
	if err != nil {
		t.Fatal(err)
	}
	headings := regexp.MustCompile(`(?m)^### (\d+)\..*$`)
	if ref, err := os.ReadFile(filepath.Join("..", "..", "shared", "reference", "field-cases.md")); err == nil {
		want := strings.Join(headings.FindAllString(string(ref), -1), "\n")
		if got := strings.Join(headings.FindAllString(string(doc), -1), "\n"); got != want {
			t.Fatalf("testdata/field-cases-headings.txt differs from shared/reference/field-cases.md's headings; refresh it:\n" +
				"grep -E '^### [0-9]+\\.' ../shared/reference/field-cases.md > ui/testdata/field-cases-headings.txt")
		}
	}
	cases := map[int]bool{}
	for _, m := range headings.FindAllStringSubmatch(string(doc), -1) {
		n, _ := strconv.Atoi(m[1])
		cases[n] = true
	}
	if len(cases) < 20 {
		t.Fatalf("found only %d cases in field-cases.md", len(cases))
	}
	for n := range cases {
		if len(fieldCaseRows[n]) == 0 {
			t.Errorf("field case %d has no row", n)
		}
	}
	for n, refs := range fieldCaseRows {
		if !cases[n] {
			t.Errorf("row for field case %d, which field-cases.md does not have", n)
		}
		for _, ref := range refs {
			file, fn, _ := strings.Cut(ref, ":")
			src, err := os.ReadFile(filepath.Join("..", file))
			if err != nil || !strings.Contains(string(src), "func "+fn+"(") {
				t.Errorf("field case %d: %s does not exist", n, ref)
			}
		}
	}
	for _, row := range refreshRows(false) {
		for _, n := range row.cases {
			if !cases[n] {
				t.Errorf("row %q names field case %d, which does not exist", row.name, n)
			}
		}
	}
}
