package client

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/colabdash/colabdash/api"
)

func TestAllToolsBothModes(t *testing.T) {
	forEachMode(t, func(t *testing.T, mode serverMode) {
		fs := newFakeServer(t, mode)
		c, _ := newClient(t, fs.srv.URL)
		ctx := context.Background()

		sub, err := c.GetSubscription(ctx)
		if err != nil || sub.Tier != api.TierProPlus && sub.Tier != api.TierPro {
			t.Fatalf("GetSubscription = %+v, %v", sub, err)
		}
		specs, err := c.ListRuntimeSpecs(ctx)
		if err != nil || len(specs) != 2 || !specs[0].Eligible || specs[1].Eligible || specs[0].Key.Accelerator != "T4" {
			t.Fatalf("ListRuntimeSpecs = %+v, %v", specs, err)
		}
		rts, err := c.ListRuntimes(ctx)
		if err != nil || len(rts) != 0 || rts == nil {
			t.Fatalf("ListRuntimes on empty = %#v, %v", rts, err)
		}
		rt, err := c.CreateRuntime(ctx, api.CreateRuntimeRequest{Spec: api.RuntimeSpecKey{Variant: api.VariantGPU, Accelerator: "T4"}})
		if err != nil {
			t.Fatal(err)
		}
		if rt.Name == "" || rt.RuntimeSpec.Shape != api.ShapeStandard || !rt.ExpireTime().Equal(expire) {
			t.Fatalf("CreateRuntime = %+v", rt)
		}
		a := fs.colab.lastArgs(api.ToolCreateRuntime)
		if _, err := uuid.Parse(str(a, "requestId")); err != nil {
			t.Errorf("requestId %q is not a UUID", str(a, "requestId"))
		}
		if _, ok := a["runtimeId"]; ok {
			t.Errorf("runtimeId sent though not asked for: %v", a)
		}
		got, err := c.GetRuntime(ctx, rt.ID())
		if err != nil || got.Name != rt.Name || got.ConnectionInfo.Token != "SECRET-PROXY-TOKEN" {
			t.Fatalf("GetRuntime = %+v, %v", got, err)
		}
		rts, err = c.ListRuntimes(ctx)
		if err != nil || len(rts) != 1 || rts[0].Name != rt.Name {
			t.Fatalf("ListRuntimes = %+v, %v", rts, err)
		}
		s, err := c.CreateSession(ctx, rt.Name, "dash-1")
		if err != nil || s.Name != rt.Name+"/sessions/dash-1" {
			t.Fatalf("CreateSession = %+v, %v", s, err)
		}
		if a := fs.colab.lastArgs(api.ToolCreateSession); str(a, "sessionId") != "dash-1" || str(a, "parent") != rt.Name {
			t.Errorf("create_session args = %v", a)
		}
		ss, err := c.ListSessions(ctx, rt.Name)
		if err != nil || len(ss) != 1 || ss[0] != s {
			t.Fatalf("ListSessions = %+v, %v", ss, err)
		}
		res, err := c.ExecuteCode(ctx, api.ExecuteCodeRequest{Session: s.Name, Code: "1+1"})
		if err != nil || res.Stdout != "hi\n" || res.Result != "2" || res.Session != s.Name {
			t.Fatalf("ExecuteCode = %+v, %v", res, err)
		}
		if _, err := uuid.Parse(res.ExecutionID); err != nil {
			t.Errorf("executionId %q not a UUID", res.ExecutionID)
		}
		if a := fs.colab.lastArgs(api.ToolExecuteCode); str(a, "code") != "1+1" || str(a, "executionId") != res.ExecutionID {
			t.Errorf("execute_code args = %v", a)
		}
		if err := c.DeleteSession(ctx, s.Name); err != nil {
			t.Fatal(err)
		}
		if err := c.DeleteRuntime(ctx, rt.Name); err != nil {
			t.Fatal(err)
		}
		if a := fs.colab.lastArgs(api.ToolDeleteRuntime); a["allowMissing"] != true {
			t.Errorf("allowMissing not sent though the schema has it: %v", a)
		}
		_, err = c.GetRuntime(ctx, rt.Name)
		if e := asAPI(t, err); e.Code != api.NotFound || e.Tool != api.ToolGetRuntime {
			t.Fatalf("GetRuntime after delete: %v", e)
		}
		info, err := c.ServerInfo(ctx)
		if err != nil || info.Name != "fake-colab" || info.Stateful == mode.stateless {
			t.Fatalf("ServerInfo = %+v, %v", info, err)
		}
		tools, _ := c.Tools(ctx)
		if len(tools) != 10 {
			t.Fatalf("Tools = %d", len(tools))
		}
		// One session for all these calls.
		if n := fs.postCount("initialize") + fs.postCount("server/discover"); n > 2 {
			t.Errorf("%d handshakes for one client", n)
		}
		if n := fs.postCount("tools/list"); n != 1 {
			t.Errorf("tools/list sent %d times, want 1", n)
		}
	})
}

// TestLazyConnect guards "building a Client never touches the network" (a
// dashboard draws its first frame offline), then that Connect opens the
// session and lists the tools. The first half needs no sleep: inside a
// synctest bubble, synctest.Wait returns only once every goroutine New may
// have started has finished or is durably blocked, so any request New
// sends, at once or in the background, has reached the transport by then.
func TestLazyConnect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var sent atomic.Int32
		hc := &http.Client{Transport: roundTripFunc(func(*http.Request) (*http.Response, error) {
			sent.Add(1)
			return nil, errors.New("the network is off in this test")
		})}
		c, err := New(context.Background(), Options{Endpoint: "http://127.0.0.1:9/mcp", HTTPClient: hc})
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if n := sent.Load(); n != 0 {
			t.Fatalf("New sent %d requests; it must not touch the network", n)
		}
		_ = c.Close()
	})

	fs := newFakeServer(t, modes[0])
	c, _ := newClient(t, fs.srv.URL)
	fs.mu.Lock()
	n := len(fs.hdrs)
	fs.mu.Unlock()
	if n != 0 {
		t.Fatalf("New sent %d requests; it must not touch the network", n)
	}
	if err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	if fs.postCount("tools/list") != 1 {
		t.Fatal("Connect did not list tools")
	}
}

// roundTripFunc is an http.RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

// RoundTrip calls f.
func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestCallerClientNotMutated(t *testing.T) {
	fs := newFakeServer(t, modes[0])
	rt := &countingRT{base: http.DefaultTransport}
	hc := &http.Client{Transport: rt, Timeout: 7 * time.Second}
	c, _ := newClient(t, fs.srv.URL, func(o *Options) { o.HTTPClient = hc })
	if _, err := c.ListRuntimes(context.Background()); err != nil {
		t.Fatal(err)
	}
	if hc.Transport != rt || hc.Timeout != 7*time.Second {
		t.Fatal("the caller's http.Client was modified")
	}
	if rt.n.Load() == 0 {
		t.Fatal("the caller's transport was not used")
	}
	fs.mu.Lock()
	ua := fs.hdrs[0].Get("User-Agent")
	fs.mu.Unlock()
	if !strings.HasPrefix(ua, "colabdash/") {
		t.Errorf("User-Agent = %q", ua)
	}
}

func TestLegacySchemas(t *testing.T) {
	fs := newFakeServer(t, modes[0],
		withSchema(api.ToolCreateSession, obj(map[string]any{"parent": strT, "session_id": strT}, "parent")),
		withSchema(api.ToolDeleteRuntime, obj(map[string]any{"name": strT}, "name")),
		withSchema(api.ToolGetSubscription, obj(map[string]any{"name": strT}, "name")),
	)
	c, _ := newClient(t, fs.srv.URL)
	ctx := context.Background()
	if _, err := c.CreateSession(ctx, "r-1", "dash-a"); err != nil {
		t.Fatal(err)
	}
	a := fs.colab.lastArgs(api.ToolCreateSession)
	if str(a, "session_id") != "dash-a" || a["sessionId"] != nil || str(a, "parent") != "runtimes/r-1" {
		t.Fatalf("legacy create_session args = %v", a)
	}
	// delete_runtime without allowMissing: not sent, NOT_FOUND is success.
	if err := c.DeleteRuntime(ctx, "runtimes/gone"); err != nil {
		t.Fatalf("DeleteRuntime of a gone runtime: %v", err)
	}
	if a := fs.colab.lastArgs(api.ToolDeleteRuntime); len(a) != 1 {
		t.Fatalf("delete_runtime args = %v, want only name", a)
	}
	if _, err := c.GetSubscription(ctx); err != nil {
		t.Fatal(err)
	}
	if a := fs.colab.lastArgs(api.ToolGetSubscription); str(a, "name") != "subscription" {
		t.Fatalf("get_subscription args = %v", a)
	}
}

// A tool the server does not offer is UNIMPLEMENTED, named, and not
// retried: found in the listing (create_session waits for it), or said by
// the server to a call that goes before it (execute_code).
func TestMissingTool(t *testing.T) {
	fs := newFakeServer(t, modes[0], withoutTool(api.ToolCreateSession))
	c, sl := newClient(t, fs.srv.URL)
	_, err := c.CreateSession(context.Background(), "runtimes/r-1", "s-1")
	e := asAPI(t, err)
	if e.Code != api.Unimplemented || !strings.Contains(e.Message, "has no tool create_session") {
		t.Fatalf("err = %v", e)
	}
	fs = newFakeServer(t, modes[0], withoutTool(api.ToolExecuteCode))
	c, sl2 := newClient(t, fs.srv.URL)
	_, err = c.ExecuteCode(context.Background(), api.ExecuteCodeRequest{Runtime: "r-1", Code: "x"})
	if e = asAPI(t, err); e.Code != api.Unimplemented || !strings.Contains(e.Error(), "execute_code") || len(sl2.waits()) != 0 {
		t.Fatalf("err = %v", e)
	}
	if len(sl.waits()) != 0 {
		t.Fatal("a missing tool was retried")
	}
}

func TestInvalidInput(t *testing.T) {
	fs := newFakeServer(t, modes[0])
	c, _ := newClient(t, fs.srv.URL)
	ctx := context.Background()
	cases := []struct {
		name string
		err  error
	}{
		{"bad runtimeId", func() error {
			_, err := c.CreateRuntime(ctx, api.CreateRuntimeRequest{Spec: api.RuntimeSpecKey{Variant: api.VariantCPU}, RuntimeID: "Bad_ID"})
			return err
		}()},
		{"no variant", func() error { _, err := c.CreateRuntime(ctx, api.CreateRuntimeRequest{}); return err }()},
		{"bad sessionId", func() error { _, err := c.CreateSession(ctx, "r-1", "-x"); return err }()},
		{"empty runtime", func() error { _, err := c.GetRuntime(ctx, " "); return err }()},
		{"two targets", func() error {
			_, err := c.ExecuteCode(ctx, api.ExecuteCodeRequest{Session: "runtimes/r/sessions/s", Runtime: "r"})
			return err
		}()},
		{"no target", func() error { _, err := c.ExecuteCode(ctx, api.ExecuteCodeRequest{Code: "1"}); return err }()},
		{"bad session name", func() error { return c.DeleteSession(ctx, "runtimes/r1") }()},
	}
	for _, tc := range cases {
		e := asAPI(t, tc.err)
		if e.Code != api.InvalidArgument || strings.Contains(e.Error(), "\n") {
			t.Errorf("%s: %v", tc.name, e)
		}
	}
	if n := len(fs.hdrs); n != 0 {
		t.Errorf("invalid input reached the server (%d requests)", n)
	}
}

func TestExecuteCodeRuntimeTarget(t *testing.T) {
	fs := newFakeServer(t, modes[0])
	c, _ := newClient(t, fs.srv.URL)
	res, err := c.ExecuteCode(context.Background(), api.ExecuteCodeRequest{Runtime: "r-9", Code: "print(1)"})
	if err != nil {
		t.Fatal(err)
	}
	a := fs.colab.lastArgs(api.ToolExecuteCode)
	if str(a, "runtime") != "runtimes/r-9" || a["executionId"] != nil || a["session"] != nil {
		t.Fatalf("args = %v", a)
	}
	if res.Session != "runtimes/r-9/sessions/auto" {
		t.Fatalf("result = %+v", res)
	}
}

func TestCloseThenCall(t *testing.T) {
	fs := newFakeServer(t, modes[1])
	c, _ := newClient(t, fs.srv.URL)
	if _, err := c.ListRuntimes(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := c.ListRuntimes(context.Background())
	if e := asAPI(t, err); e.Code != api.FailedPrecondition {
		t.Fatalf("after Close: %v", e)
	}
	if err := c.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
}

type countingRT struct {
	base http.RoundTripper
	n    atomic.Int64
}

func (c *countingRT) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.base.RoundTrip(r)
}

// A wrong endpoint (HTTP 404 HTML on every request, no session) is an
// error, never "deleted".
func TestWrongEndpointIsNotDeleted(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		replyStatus(w, 404, "text/html", "<!DOCTYPE html><html><body>Not Found</body></html>")
	}))
	defer srv.Close()
	c, sl := newClient(t, srv.URL)
	err := c.DeleteRuntime(context.Background(), "r-1")
	e := asAPI(t, err)
	if e.Code != api.NotFound || e.HTTPStatus != 404 || strings.Contains(e.Error(), "<") || e.Tool != api.ToolDeleteRuntime {
		t.Fatalf("err = %v", e)
	}
	if len(sl.waits()) != 0 {
		t.Fatal("a 404 endpoint was retried")
	}
}

// A JSON-RPC error in an HTTP 400 body keeps its message and maps its code.
func TestJSONRPCErrorInHTTP400(t *testing.T) {
	fs := newFakeServer(t, modes[0])
	fs.setFault(func(w http.ResponseWriter, r *http.Request, m rpcMsg, next http.Handler) bool {
		if m.key() != "tools/call:"+api.ToolListRuntimes {
			return false
		}
		replyStatus(w, 400, "application/json", `{"jsonrpc":"2.0","id":3,"error":{"code":-32020,"message":"INVALID_ARGUMENT: Mcp-Name header does not match the body"}}`)
		return true
	})
	c, sl := newClient(t, fs.srv.URL)
	_, err := c.ListRuntimes(context.Background())
	e := asAPI(t, err)
	if e.Code != api.InvalidArgument || e.HTTPStatus != 400 || !strings.Contains(e.Message, "Mcp-Name header") || len(sl.waits()) != 0 {
		t.Fatalf("err = %v", e)
	}
	// The session survived the 400.
	fs.setFault(nil)
	if _, err := c.ListRuntimes(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := sessionsOpened(t, c, fs); n != 1 {
		t.Errorf("reconnected after a 400 (%d tools/list)", n)
	}
}

// sessionsOpened is how many sessions c opened on fs: its tools/list
// requests, counted once the one in the background (each session lists
// the tools after initialize) has been answered.
func sessionsOpened(t *testing.T, c *Client, fs *fakeServer) int {
	t.Helper()
	if _, err := c.Tools(context.Background()); err != nil {
		t.Fatal(err)
	}
	return fs.postCount("tools/list")
}

// 401 during the connect: one refresh, then the error.
func TestUnauthenticatedAtConnect(t *testing.T) {
	fs := newFakeServer(t, modes[1])
	fs.setFault(func(w http.ResponseWriter, r *http.Request, m rpcMsg, next http.Handler) bool {
		replyStatus(w, 401, "application/json", `{"error":{"code":401,"status":"UNAUTHENTICATED","message":"Request had invalid authentication credentials."}}`,
			"WWW-Authenticate", `Bearer error="invalid_token"`)
		return true
	})
	var refreshes atomic.Int32
	c, _ := newClient(t, fs.srv.URL, func(o *Options) {
		o.OnUnauthenticated = func(context.Context) bool { refreshes.Add(1); return true }
	})
	_, err := c.GetSubscription(context.Background())
	e := asAPI(t, err)
	if e.Code != api.Unauthenticated || e.Message != "Request had invalid authentication credentials." || refreshes.Load() != 1 {
		t.Fatalf("err = %v, refreshes %d", e, refreshes.Load())
	}
	// discover is refused, initialize is not even tried: 2 connects × 1 POST.
	fs.mu.Lock()
	n := len(fs.hdrs)
	fs.mu.Unlock()
	if n != 2 {
		t.Errorf("%d requests for 2 refused connects, want 2", n)
	}
}

// Connecting is shared: concurrent first calls open one session.
func TestSingleFlightConnect(t *testing.T) {
	fs := newFakeServer(t, modes[1])
	c, _ := newClient(t, fs.srv.URL)
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.ListRuntimes(context.Background()); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := sessionsOpened(t, c, fs); n != 1 {
		t.Fatalf("%d sessions opened for concurrent first calls, want 1", n)
	}
}

// Backoff grows exponentially, is capped by MaxDelay (±50 % jitter) and
// stops after MaxAttempts.
func TestBackoffShape(t *testing.T) {
	fs := newFakeServer(t, modes[0])
	fs.setFault(func(w http.ResponseWriter, r *http.Request, m rpcMsg, next http.Handler) bool {
		if m.key() != "tools/call:"+api.ToolListRuntimes {
			return false
		}
		replyStatus(w, 503, "", "")
		return true
	})
	c, sl := newClient(t, fs.srv.URL, func(o *Options) {
		o.BaseDelay, o.MaxDelay, o.MaxAttempts = time.Second, 4*time.Second, 6
	})
	_, err := c.ListRuntimes(context.Background())
	if e := asAPI(t, err); e.Code != api.Unavailable || e.Message != "Service unavailable (HTTP 503)" {
		t.Fatalf("err = %v", e)
	}
	w := sl.waits()
	if len(w) != 5 || fs.postCount("tools/call:"+api.ToolListRuntimes) != 6 {
		t.Fatalf("waits %v, calls %d", w, fs.postCount("tools/call:"+api.ToolListRuntimes))
	}
	if w[0] < 500*time.Millisecond || w[0] > 1500*time.Millisecond || w[2] < 2*time.Second {
		t.Errorf("not exponential: %v", w)
	}
	for _, d := range w {
		if d > 6*time.Second {
			t.Errorf("wait %v above MaxDelay+jitter", d)
		}
	}
}

// Close while calls are in flight: they end with an error, nothing hangs
// or leaks (goleak in TestMain).
func TestCloseDuringCalls(t *testing.T) {
	fs := newFakeServer(t, modes[0])
	started := make(chan struct{}, 10)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) }) // runs before the server closes
	fs.colab.setTool(api.ToolListRuntimes, func(ctx context.Context, a map[string]any) (*mcp.CallToolResult, error) {
		started <- struct{}{}
		select {
		case <-ctx.Done():
		case <-release:
		}
		return toolErr("UNAVAILABLE: released"), nil
	})
	c, _ := newClient(t, fs.srv.URL, func(o *Options) { o.ReadTimeout = time.Minute })
	var wg sync.WaitGroup
	errs := make(chan error, 5)
	for i := 0; i < 5; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.ListRuntimes(context.Background())
			errs <- err
		}()
	}
	for i := 0; i < 5; i++ {
		<-started
	}
	closed := time.Now()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	// The session DELETE is bounded by the go-sdk (5 s); the calls' own
	// timeout (1 min) must not matter.
	if d := time.Since(closed); d > 20*time.Second {
		t.Errorf("Close and the calls took %v: Close waited for the calls' timeouts", d)
	}
	close(errs)
	for err := range errs {
		if e := asAPI(t, err); e.Tool != api.ToolListRuntimes {
			t.Errorf("err = %v", e)
		}
	}
}

// A successful reply larger than MaxReply is not read into memory: the
// call fails at once with one line naming the limit, is not sent again,
// and the next call (on a fresh session) works.
func TestReplyLargerThanMaxReply(t *testing.T) {
	forEachMode(t, func(t *testing.T, m serverMode) {
		fs := newFakeServer(t, m)
		big := strings.Repeat("x", 2<<20)
		fs.colab.setTool(api.ToolGetRuntime, func(context.Context, map[string]any) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: big}}}, nil
		})
		// A generous ReadTimeout: under -race on a loaded machine the
		// fake server's 2 MiB reply took over the default 5 s to start.
		c, sl := newClient(t, fs.srv.URL, func(o *Options) { o.MaxReply, o.ReadTimeout = 1<<20, time.Minute })
		_, err := c.GetRuntime(context.Background(), "runtimes/r-1")
		e := asAPI(t, err)
		if e.Code != api.OutOfRange || !strings.Contains(e.Error(), "larger than 1 MiB") || strings.Contains(e.Error(), "\n") {
			t.Fatalf("err = %v, want one OUT_OF_RANGE line naming the 1 MiB limit", e)
		}
		if n := fs.postCount("tools/call:" + api.ToolGetRuntime); n != 1 {
			t.Errorf("get_runtime sent %d times, want 1 (the same reply would be too large again)", n)
		}
		if w := sl.waits(); len(w) != 0 {
			t.Errorf("retry waits %v, want none", w)
		}
		if _, err := c.ListRuntimes(context.Background()); err != nil {
			t.Fatalf("the next call: %v", err)
		}
	})
}
