package client

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
)

// connCounter numbers the requests on each connection.
type connKey struct{}

// closingIdleServer serves the emulator's handler but drops every
// connection on its third request without answering, as a server that
// closed an idle keep-alive connection just as the client reused it.
func closingIdleServer(t *testing.T, emu *colabfake.Server) (string, *atomic.Int64) {
	t.Helper()
	var dropped atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := r.Context().Value(connKey{}).(*atomic.Int64).Add(1)
		if n == 3 && r.Header.Get("Mcp-Method") == "tools/call" {
			dropped.Add(1)
			c, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				c.Close()
			}
			return
		}
		emu.Handler().ServeHTTP(w, r)
	}))
	srv.Config.ConnContext = func(ctx context.Context, _ net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, new(atomic.Int64))
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp", &dropped
}

// A read that hits a keep-alive connection the server has closed is sent
// again on a fresh one at once, by net/http (the call is marked
// idempotent), without a backoff of the client's own and without failing:
// what lets `status` finish at 10,000 runtimes.
func TestReadOnClosedIdleConnectionIsResent(t *testing.T) {
	emu, _ := startEmu(t, modes[0], colabfake.Options{Runtimes: 200})
	ep, dropped := closingIdleServer(t, emu)
	c, sl := emuClient(t, ep, func(o *Options) { o.MaxAttempts = 1 })
	ov, err := api.LoadOverview(context.Background(), c)
	if err != nil || len(ov.Sessions) != 200 {
		t.Fatalf("overview: %v; sessions of %d runtimes (errors %v)", err, len(ov.Sessions), ov.SessionErrors)
	}
	if dropped.Load() == 0 {
		t.Fatal("no connection was dropped: the test proves nothing")
	}
	if len(sl.waits()) != 0 {
		t.Errorf("the client backed off %v; net/http should have re-sent at once", sl.waits())
	}
}

// The Client's own transport keeps api.FanOut idle connections: a second
// overview of 100 runtimes (102 calls, 32 at a time) dials next to no new
// connection, where net/http's default of 2 idle connections per host
// re-dials most of them.
func TestRefreshReusesConnections(t *testing.T) {
	emu, _ := startEmu(t, modes[0], colabfake.Options{Runtimes: 100, NoAuth: true})
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(emu.Handler())
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	secondDials := func(hc *http.Client) int64 {
		c, _ := newClient(t, srv.URL+"/mcp", func(o *Options) { o.HTTPClient = hc })
		defer c.Close()
		for i := 0; i < 2; i++ {
			if i == 1 {
				conns.Store(0)
			}
			if ov, err := api.LoadOverview(context.Background(), c); err != nil || len(ov.Sessions) != 100 {
				t.Fatalf("overview %d: %v", i, err)
			}
		}
		return conns.Load()
	}
	plain := &http.Transport{}
	defer plain.CloseIdleConnections()
	if n := secondDials(&http.Client{Transport: plain}); n < 20 {
		t.Fatalf("with 2 idle connections per host the second overview dialled only %d: the test proves nothing", n)
	}
	if n := secondDials(nil); n > 10 { // nil: the Client's own NewTransport
		t.Errorf("the second overview dialled %d new connections, want next to none (%d kept idle)", n, api.FanOut)
	}
}

// recorder serves next and records the JSON-RPC method of every POST, in
// arrival order; hook, when set, may answer a request itself (true).
type recorder struct {
	next http.Handler
	mu   sync.Mutex
	seen []string
	hook func(method string, w http.ResponseWriter, r *http.Request) bool
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var peek struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(body, &peek)
		rc.mu.Lock()
		rc.seen = append(rc.seen, peek.Method)
		hook := rc.hook
		rc.mu.Unlock()
		if hook != nil && hook(peek.Method, w, r) {
			return
		}
	}
	rc.next.ServeHTTP(w, r)
}

// withoutNotifications drops notifications/initialized from methods: it
// is sent in the background and, on a busy machine, may reach the server
// after the client closed (then in the next start's requests).
func withoutNotifications(methods []string) []string {
	return slices.DeleteFunc(methods, func(m string) bool { return m == "notifications/initialized" })
}

// setHook sets hook while requests of an earlier client (its
// notification, its session's end) may still be arriving.
func (rc *recorder) setHook(h func(method string, w http.ResponseWriter, r *http.Request) bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.hook = h
}

func (rc *recorder) methods() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := rc.seen
	rc.seen = nil
	return out
}

func serve(t *testing.T, h http.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// Against a classic server the first start probes (server/discover fails,
// then initialize); the answer is remembered in StateDir, so the next start
// sends initialize at once; the file holds no secret. A remembered version
// the server refuses is forgotten and probed again within the same call.
func TestProtocolMemorySkipsTheKnownFailingProbe(t *testing.T) {
	emu, _ := startEmu(t, modes[1], colabfake.Options{Seed: colabfake.SeedDemo})
	rec := &recorder{next: emu.Handler()}
	ep := serve(t, rec) + "?key=SECRET-API-KEY"
	dir := t.TempDir()
	run := func() []string {
		c, _ := emuClient(t, ep, func(o *Options) { o.StateDir = dir })
		if _, err := c.ListRuntimes(context.Background()); err != nil {
			t.Fatal(err)
		}
		c.Close() // waits for the memory to be written
		return withoutNotifications(rec.methods())
	}
	first := run()
	if len(first) < 2 || first[0] != "server/discover" || first[1] != "initialize" {
		t.Fatalf("first start sent %v, want server/discover then initialize", first)
	}
	second := run()
	if len(second) == 0 || second[0] != "initialize" || slices.Contains(second, "server/discover") {
		t.Fatalf("second start sent %v, want initialize first and no server/discover", second)
	}
	b, err := os.ReadFile(filepath.Join(dir, ProtocolFile))
	if err != nil || !strings.Contains(string(b), `"protocolVersion": "2025-11-25"`) ||
		strings.Contains(string(b), "SECRET") || strings.Contains(string(b), oauthToken) {
		t.Fatalf("%s: %v\n%s", ProtocolFile, err, b)
	}

	// The server now refuses 2025-11-25: the memory goes, and the same
	// call probes and succeeds.
	var refused atomic.Int64
	rec.setHook(func(method string, w http.ResponseWriter, r *http.Request) bool {
		if method != "initialize" || refused.Load() > 0 {
			return false
		}
		refused.Add(1)
		replyStatus(w, http.StatusBadRequest, "application/json", `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"unsupported protocol version"}}`)
		return true
	})
	third := run()
	if refused.Load() != 1 || len(third) < 3 || third[0] != "initialize" || third[1] != "server/discover" {
		t.Fatalf("after a version error the start sent %v (refused %d), want initialize, then a new probe", third, refused.Load())
	}
}

// A remembered protocol is trusted for a day, then probed again.
func TestProtocolMemoryExpires(t *testing.T) {
	now := time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC)
	m := newProtocolMemory(t.TempDir(), func() time.Time { return now })
	classic := protocolRecord{ProtocolVersion: "2025-11-25", Stateful: true}
	m.remember("https://u:p@h.example/mcp?k=v", classic)
	if v, ok := m.lookup("https://h.example/mcp"); !ok || v.ProtocolVersion != "2025-11-25" {
		t.Fatalf("lookup = %+v, %v", v, ok)
	}
	now = now.Add(ProtocolMemoryTTL)
	if _, ok := m.lookup("https://h.example/mcp"); ok {
		t.Fatal("a day-old memory is still trusted")
	}
	// A broken or oversized file is as good as none, and is replaced.
	for _, junk := range [][]byte{[]byte("{not json"), bytes.Repeat([]byte(" "), maxProtocolFile+1)} {
		if err := os.WriteFile(m.path, junk, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, ok := m.lookup("https://h.example/mcp"); ok {
			t.Fatalf("remembered from a broken file")
		}
		m.remember("https://h.example/mcp", classic)
		if v, ok := m.lookup("https://h.example/mcp"); !ok || v.ProtocolVersion != "2025-11-25" {
			t.Fatalf("not rewritten: %+v, %v", v, ok)
		}
	}
	var nilMem *protocolMemory
	nilMem.remember("https://h.example/mcp", classic) // no StateDir: no-op
	if _, ok := nilMem.lookup("https://h.example/mcp"); ok {
		t.Fatal("a nil memory remembered")
	}
}

// The classic handshake's notifications/initialized is not awaited: with
// its reply held back for a minute, the first tool call still answers.
func TestInitializedNotificationIsNotAwaited(t *testing.T) {
	emu, ep := startEmu(t, modes[1], colabfake.Options{Seed: colabfake.SeedDemo})
	emu.Inject(colabfake.Fault{Kind: colabfake.FaultLatency, Method: "notifications/initialized", Delay: time.Minute})
	c, _ := emuClient(t, ep)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if rts, err := c.ListRuntimes(ctx); err != nil || len(rts) != 3 {
		t.Fatalf("ListRuntimes = %d runtimes, %v (did it wait for the held notification?)", len(rts), err)
	}
	if info, _ := c.ServerInfo(ctx); info.ProtocolVersion != "2025-11-25" || !info.Stateful {
		t.Fatalf("not a classic session: %+v", info)
	}
}

// A strict server that refuses calls until the initialized notification
// arrived: the refused call is sent again once the notification is
// answered, and succeeds.
func TestCallRefusedBeforeInitializedIsResent(t *testing.T) {
	emu, _ := startEmu(t, modes[1], colabfake.Options{Seed: colabfake.SeedDemo})
	release := make(chan struct{})
	var initialized atomic.Bool
	var refusals atomic.Int64
	rec := &recorder{next: emu.Handler()}
	rec.setHook(func(method string, w http.ResponseWriter, r *http.Request) bool {
		switch {
		case method == "notifications/initialized":
			<-release
			initialized.Store(true)
		case method == "tools/call" && !initialized.Load():
			if refusals.Add(1) == 1 {
				close(release)
			}
			replyStatus(w, http.StatusBadRequest, "application/json", `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Received request before initialization was complete"}}`)
			return true
		}
		return false
	})
	c, sl := emuClient(t, serve(t, rec))
	rts, err := c.ListRuntimes(context.Background())
	if err != nil || len(rts) != 3 || refusals.Load() != 1 || emu.CallCount(api.ToolListRuntimes) != 1 {
		t.Fatalf("ListRuntimes = %d runtimes, %v; refusals %d, calls served %d", len(rts), err, refusals.Load(), emu.CallCount(api.ToolListRuntimes))
	}
	if len(sl.waits()) != 0 || slices.Contains(rec.methods(), "tools/list") {
		t.Errorf("backed off %v or listed tools instead of waiting for the notification", sl.waits())
	}
}

// get_subscription, list_runtimes and list_sessions never wait for, nor
// send, tools/list; the first call that needs a live schema lists them.
func TestSchemaFreeCallsSkipToolsList(t *testing.T) {
	emu, _ := startEmu(t, modes[0], colabfake.Options{Seed: colabfake.SeedDemo})
	rec := &recorder{next: emu.Handler()}
	c, _ := emuClient(t, serve(t, rec))
	if _, err := api.LoadOverview(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if m := rec.methods(); slices.Contains(m, "tools/list") {
		t.Fatalf("status sent tools/list: %v", m)
	}
	if _, err := c.CreateSession(context.Background(), "runtimes/rt-t4demo7k2p", "colabdash-x"); err != nil {
		t.Fatal(err)
	}
	if m := rec.methods(); len(m) != 2 || m[0] != "tools/list" || m[1] != "tools/call" {
		t.Fatalf("create_session sent %v, want tools/list then the call", m)
	}
}
