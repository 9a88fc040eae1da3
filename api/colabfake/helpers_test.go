package colabfake

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/colabdash/colabdash/api"
)

// t0 is the fake clock's start: a fixed instant so expiries are exact.
var t0 = time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC)

type bearerRT struct {
	base  http.RoundTripper
	token string
}

func (b *bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// bearerClient is an http.Client adding "Authorization: Bearer x", with
// its own transport so connections do not leak across tests.
func bearerClient(t testing.TB) *http.Client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: &bearerRT{base: tr, token: "x"}}
}

// mustAdd adds rt to s (Server.AddRuntime) and returns it as added (a
// ConnectionInfo given is filled in); a refusal fails the test.
func mustAdd(t testing.TB, s *Server, rt api.Runtime) api.Runtime {
	t.Helper()
	added, err := s.AddRuntime(rt)
	if err != nil {
		t.Fatal(err)
	}
	return added
}

// start runs an emulator on 127.0.0.1 with a fake clock (unless opts.Now
// is set) and returns it, its endpoint and the clock.
func start(t testing.TB, opts Options) (*Server, string, *Clock) {
	t.Helper()
	clk := NewClock(t0)
	if opts.Now == nil {
		opts.Now = clk.Now
	}
	s, ep, err := Start(context.Background(), "127.0.0.1:0", opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, ep, clk
}

// connect opens a go-sdk client session to ep with a bearer token.
func connect(t testing.TB, ep string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "colabfake-test", Version: "0"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: ep, HTTPClient: bearerClient(t), MaxRetries: -1, DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// startConnect is start + connect.
func startConnect(t testing.TB, opts Options) (*Server, *mcp.ClientSession, *Clock) {
	s, ep, clk := start(t, opts)
	return s, connect(t, ep), clk
}

// call runs a tool and fails the test on a transport error.
func call(t testing.TB, cs *mcp.ClientSession, tool string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := callErr(cs, tool, args)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

func callErr(cs *mcp.ClientSession, tool string, args any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if args == nil {
		args = map[string]any{}
	}
	return cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
}

// decode decodes a successful result's structuredContent into out and
// checks the text block carries the same JSON.
func decode(t testing.TB, res *mcp.CallToolResult, out any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("unexpected isError result: %s", text(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("structuredContent %s: %v", b, err)
	}
	var fromText, fromSC any
	if err := json.Unmarshal([]byte(text(res)), &fromText); err != nil {
		t.Fatalf("text block is not JSON: %q", text(res))
	}
	_ = json.Unmarshal(b, &fromSC)
	tb, _ := json.Marshal(fromText)
	sb, _ := json.Marshal(fromSC)
	if string(tb) != string(sb) {
		t.Fatalf("text block %s differs from structuredContent %s", tb, sb)
	}
}

func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "")
}

// toolError checks res is an isError result carrying a Google envelope and
// returns it decoded.
func toolError(t testing.TB, res *mcp.CallToolResult) *api.Error {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want isError, got %v", res.StructuredContent)
	}
	e := api.ErrorFromText(text(res))
	if e.Code == api.Unknown {
		t.Fatalf("isError text is not a Google error: %q", text(res))
	}
	return e
}

// operationError checks res is a finished Operation with an error and
// returns it decoded.
func operationError(t testing.TB, res *mcp.CallToolResult) *api.Error {
	t.Helper()
	var op api.Operation
	decode(t, res, &op)
	if !op.Done || op.Error == nil {
		t.Fatalf("want a finished Operation with an error, got %+v", op)
	}
	return api.ErrorFromStatus(*op.Error, 0)
}

func createArgs(variant, acc, shape, requestID string) map[string]any {
	a := map[string]any{"runtime": map[string]any{"runtimeSpec": map[string]any{
		"variant": variant, "accelerator": acc, "shape": shape}}}
	if requestID != "" {
		a["requestId"] = requestID
	}
	return a
}

// modes lists the four transport modes every behaviour test runs under.
var modes = []struct {
	name             string
	stateless, jsonr bool
}{
	{"stateful-sse", false, false},
	{"stateful-json", false, true},
	{"stateless-sse", true, false},
	{"stateless-json", true, true},
}

// connectNoAuth tries to connect without a bearer; it returns nil when the
// connection was refused.
func connectNoAuth(t testing.TB, ep string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c := mcp.NewClient(&mcp.Implementation{Name: "colabfake-test", Version: "0"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: ep, HTTPClient: &http.Client{Transport: tr}, MaxRetries: -1, DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		return nil
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}
