package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/colabdash/colabdash/api"
)

// This file holds a small in-test Colab MCP server (go-sdk server over
// loopback httptest) and an HTTP fault injector in front of it.

type serverMode struct {
	name      string
	stateless bool
	json      bool
}

var modes = []serverMode{
	{"stateless+json", true, true},
	{"stateful+sse", false, false},
}

// forEachMode runs f as a subtest per transport mode (modes), against
// the fake server or the emulator alike.
func forEachMode(t *testing.T, f func(t *testing.T, m serverMode)) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) { f(t, m) })
	}
}

// toolFn is a test tool handler: it gets the decoded arguments and returns
// either a result or a plain error (which the SDK turns into isError).
type toolFn func(ctx context.Context, args map[string]any) (*mcp.CallToolResult, error)

// fakeColab is a tiny in-memory Colab behind the ten tools.
type fakeColab struct {
	mu       sync.Mutex
	runtimes map[string]api.Runtime
	byReq    map[string]string // requestId → runtime name
	sessions map[string][]string
	calls    map[string]int              // tool → handler invocations
	args     map[string][]map[string]any // tool → arguments seen
	nextID   int
	override map[string]toolFn // tool → replacement handler
}

func newFakeColab() *fakeColab {
	return &fakeColab{runtimes: map[string]api.Runtime{}, byReq: map[string]string{},
		sessions: map[string][]string{}, calls: map[string]int{}, args: map[string][]map[string]any{},
		override: map[string]toolFn{}}
}

func (f *fakeColab) setTool(name string, fn toolFn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.override[name] = fn
}

func (f *fakeColab) count(tool string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[tool]
}

func (f *fakeColab) lastArgs(tool string) map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	a := f.args[tool]
	if len(a) == 0 {
		return nil
	}
	return a[len(a)-1]
}

func (f *fakeColab) allArgs(tool string) []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.args[tool]...)
}

func structured(v any) *mcp.CallToolResult {
	b, _ := json.Marshal(v)
	var m any
	_ = json.Unmarshal(b, &m)
	return &mcp.CallToolResult{StructuredContent: m, Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
}

func toolErr(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

func str(m map[string]any, k string) string { s, _ := m[k].(string); return s }

var expire = time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)

func (f *fakeColab) builtin(name string) toolFn {
	switch name {
	case api.ToolGetSubscription:
		return func(ctx context.Context, a map[string]any) (*mcp.CallToolResult, error) {
			return structured(map[string]any{"name": "subscription", "tier": "SUBSCRIPTION_TIER_PRO"}), nil
		}
	case api.ToolListRuntimeSpecs:
		return func(ctx context.Context, a map[string]any) (*mcp.CallToolResult, error) {
			return structured(map[string]any{"runtimeSpecs": []any{
				map[string]any{"key": map[string]any{"variant": "VARIANT_GPU", "accelerator": "T4", "shape": "SHAPE_STANDARD"}, "eligible": true},
				map[string]any{"key": map[string]any{"variant": "VARIANT_CPU", "accelerator": "NONE", "shape": "SHAPE_HIGHMEM"}},
			}}), nil
		}
	case api.ToolListRuntimes:
		return func(ctx context.Context, a map[string]any) (*mcp.CallToolResult, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			var rs []api.Runtime
			for _, r := range f.runtimes {
				rs = append(rs, r)
			}
			return structured(map[string]any{"runtimes": rs}), nil
		}
	case api.ToolGetRuntime:
		return func(ctx context.Context, a map[string]any) (*mcp.CallToolResult, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			r, ok := f.runtimes[str(a, "name")]
			if !ok {
				return toolErr("NOT_FOUND: runtime " + str(a, "name") + " not found"), nil
			}
			return structured(r), nil
		}
	case api.ToolCreateRuntime:
		return func(ctx context.Context, a map[string]any) (*mcp.CallToolResult, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			if n, ok := f.byReq[str(a, "requestId")]; ok && str(a, "requestId") != "" {
				return structured(f.runtimes[n]), nil
			}
			rt, _ := a["runtime"].(map[string]any)
			b, _ := json.Marshal(rt["runtimeSpec"])
			var key api.RuntimeSpecKey
			_ = json.Unmarshal(b, &key)
			f.nextID++
			name := fmt.Sprintf("runtimes/r-%d", f.nextID)
			if id := str(a, "runtimeId"); id != "" {
				name = "runtimes/" + id
			}
			r := api.Runtime{Name: name, RuntimeSpec: key, ConnectionInfo: &api.ConnectionInfo{
				URL: "https://8080-" + api.LastSegment(name) + ".example", Token: "SECRET-PROXY-TOKEN", ExpireTime: expire}}
			f.runtimes[name] = r
			f.byReq[str(a, "requestId")] = name
			return structured(r), nil
		}
	case api.ToolDeleteRuntime:
		return func(ctx context.Context, a map[string]any) (*mcp.CallToolResult, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			if _, ok := f.runtimes[str(a, "name")]; !ok {
				if a["allowMissing"] == true {
					return structured(map[string]any{}), nil
				}
				return toolErr("NOT_FOUND: runtime not found"), nil
			}
			delete(f.runtimes, str(a, "name"))
			return structured(map[string]any{}), nil
		}
	case api.ToolCreateSession:
		return func(ctx context.Context, a map[string]any) (*mcp.CallToolResult, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			id := str(a, "sessionId")
			if id == "" {
				id = str(a, "session_id")
			}
			if id == "" {
				f.nextID++
				id = fmt.Sprintf("s-%d", f.nextID)
			}
			n := str(a, "parent") + "/sessions/" + id
			f.sessions[str(a, "parent")] = append(f.sessions[str(a, "parent")], n)
			return structured(map[string]any{"name": n}), nil
		}
	case api.ToolListSessions:
		return func(ctx context.Context, a map[string]any) (*mcp.CallToolResult, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			var ss []any
			for _, n := range f.sessions[str(a, "parent")] {
				ss = append(ss, map[string]any{"name": n})
			}
			return structured(map[string]any{"sessions": ss}), nil
		}
	case api.ToolDeleteSession:
		return func(ctx context.Context, a map[string]any) (*mcp.CallToolResult, error) {
			return structured(map[string]any{}), nil
		}
	case api.ToolExecuteCode:
		return func(ctx context.Context, a map[string]any) (*mcp.CallToolResult, error) {
			sess := str(a, "session")
			if sess == "" {
				sess = str(a, "runtime") + "/sessions/auto"
			}
			return structured(map[string]any{"executionId": str(a, "executionId"), "session": sess,
				"executionCount": 3, "stdout": "hi\n", "result": "2", "futureField": true}), nil
		}
	}
	return nil
}

// schemas are the tools' input schemas as the current docs describe them.
var schemas = map[string]map[string]any{
	api.ToolGetSubscription:  obj(nil),
	api.ToolListRuntimeSpecs: obj(nil),
	api.ToolListRuntimes:     obj(nil),
	api.ToolGetRuntime:       obj(map[string]any{"name": strT}, "name"),
	api.ToolCreateRuntime: obj(map[string]any{
		"runtime":   obj(map[string]any{"runtimeSpec": map[string]any{"type": "object"}, "version": strT}),
		"requestId": strT, "runtimeId": strT}, "runtime"),
	api.ToolDeleteRuntime: obj(map[string]any{"name": strT, "allowMissing": map[string]any{"type": "boolean"}}, "name"),
	api.ToolCreateSession: obj(map[string]any{"parent": strT, "sessionId": strT}, "parent"),
	api.ToolListSessions:  obj(map[string]any{"parent": strT}, "parent"),
	api.ToolDeleteSession: obj(map[string]any{"name": strT}, "name"),
	api.ToolExecuteCode:   obj(map[string]any{"session": strT, "runtime": strT, "code": strT, "executionId": strT}, "code"),
}

var strT = map[string]any{"type": "string"}

func obj(props map[string]any, required ...string) map[string]any {
	m := map[string]any{"type": "object"}
	if props != nil {
		m["properties"] = props
	}
	if len(required) > 0 {
		m["required"] = required
	}
	return m
}

// fakeServer is a loopback MCP server for the fake Colab with a fault hook.
type fakeServer struct {
	t     *testing.T
	colab *fakeColab
	srv   *httptest.Server
	mu    sync.Mutex
	fault func(w http.ResponseWriter, r *http.Request, m rpcMsg, next http.Handler) bool
	posts map[string]int // JSON-RPC method (or tools/call:<tool>) → POSTs seen
	hdrs  []http.Header
}

type rpcMsg struct {
	Method string `json:"method"`
	Params struct {
		Name string `json:"name"`
	} `json:"params"`
}

func (m rpcMsg) key() string {
	if m.Method == "tools/call" {
		return "tools/call:" + m.Params.Name
	}
	return m.Method
}

type fakeOpt func(*fakeOpts)

type fakeOpts struct {
	schemas map[string]map[string]any
	omit    map[string]bool
}

func withSchema(tool string, s map[string]any) fakeOpt {
	return func(o *fakeOpts) { o.schemas[tool] = s }
}

func withoutTool(tool string) fakeOpt { return func(o *fakeOpts) { o.omit[tool] = true } }

func newFakeServer(t *testing.T, mode serverMode, fo ...fakeOpt) *fakeServer {
	t.Helper()
	o := &fakeOpts{schemas: map[string]map[string]any{}, omit: map[string]bool{}}
	for k, v := range schemas {
		o.schemas[k] = v
	}
	for _, f := range fo {
		f(o)
	}
	fc := newFakeColab()
	s := mcp.NewServer(&mcp.Implementation{Name: "fake-colab", Version: "0.1"}, nil)
	for name, sch := range o.schemas {
		if o.omit[name] {
			continue
		}
		name := name
		s.AddTool(&mcp.Tool{Name: name, InputSchema: sch}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args map[string]any
			_ = json.Unmarshal(req.Params.Arguments, &args)
			fc.mu.Lock()
			fc.calls[name]++
			fc.args[name] = append(fc.args[name], args)
			fn := fc.override[name]
			fc.mu.Unlock()
			if fn == nil {
				fn = fc.builtin(name)
			}
			if fn == nil {
				// A nil handler would panic in the server's goroutine and
				// take the whole test binary down: fail this test instead.
				t.Errorf("the fake Colab has no handler for tool %s: give it an override", name)
				return toolErr("INTERNAL: the fake Colab has no handler for " + name), nil
			}
			return fn(ctx, args)
		})
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: mode.stateless, JSONResponse: mode.json})
	fs := &fakeServer{t: t, colab: fc, posts: map[string]int{}}
	fs.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m rpcMsg
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			_ = json.Unmarshal(b, &m)
			fs.mu.Lock()
			fs.posts[m.key()]++
			fs.hdrs = append(fs.hdrs, r.Header.Clone())
			fs.mu.Unlock()
		}
		fs.mu.Lock()
		fault := fs.fault
		fs.mu.Unlock()
		if fault != nil && fault(w, r, m, h) {
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(fs.srv.Close)
	return fs
}

func (fs *fakeServer) setFault(f func(w http.ResponseWriter, r *http.Request, m rpcMsg, next http.Handler) bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.fault = f
}

func (fs *fakeServer) postCount(key string) int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.posts[key]
}

// reset closes the client's TCP connection with an RST, without a reply.
func reset(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("no hijacker")
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(err)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// replyStatus writes an HTTP error reply.
func replyStatus(w http.ResponseWriter, status int, ctype, body string, hdr ...string) {
	for i := 0; i+1 < len(hdr); i += 2 {
		w.Header().Set(hdr[i], hdr[i+1])
	}
	if ctype != "" {
		w.Header().Set("Content-Type", ctype)
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// sleeps records the client's retry waits without waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) waits() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// newClient builds a Client for fs with tiny timeouts and a recording sleep.
func newClient(t *testing.T, endpoint string, mod ...func(*Options)) (*Client, *sleeps) {
	t.Helper()
	sl := &sleeps{}
	o := Options{Endpoint: endpoint, Sleep: sl.sleep, ReadTimeout: 5 * time.Second,
		ConnectTimeout: 5 * time.Second, CreateRuntimeTimeout: 5 * time.Second, ExecuteCodeTimeout: 5 * time.Second,
		BaseDelay: time.Millisecond, MaxDelay: 4 * time.Millisecond}
	for _, m := range mod {
		m(&o)
	}
	c, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c, sl
}

func asAPI(t *testing.T, err error) *api.Error {
	t.Helper()
	if err == nil {
		t.Fatal("expected an error, got nil")
	}
	e, ok := err.(*api.Error)
	if !ok {
		t.Fatalf("error %T %v is not *api.Error", err, err)
	}
	return e
}
