package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
)

// The client against the emulator: the MCP session dropped by the server,
// and a server without the standalone SSE stream.

// The server drops the session.
func TestFieldCase14SessionDropped(t *testing.T) {
	var sawSessionHeader atomic.Bool
	emu, ep := startEmu(t, modes[1], colabfake.Options{Seed: colabfake.SeedDemo})
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
	_, ep2 := startEmu(t, modes[0], colabfake.Options{OnRequest: func(r *http.Request) {
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

// switchable serves whichever handler was stored last: one endpoint URL
// whose server is replaced (a stateless server that became a classic one).
type switchable struct{ h atomic.Pointer[http.Handler] }

func (s *switchable) set(h http.Handler)                               { s.h.Store(&h) }
func (s *switchable) ServeHTTP(w http.ResponseWriter, r *http.Request) { (*s.h.Load()).ServeHTTP(w, r) }

// Against a stateless (2026-07-28) server the first start asks
// server/discover; its answer is remembered in StateDir, so the next start
// sends the call as its first request: one round trip for a list where
// there were two, and the same ServerInfo without asking. When the server
// behind the endpoint has become a classic one, the call it refuses costs
// one round trip more than a cold start, and the memory then says classic;
// when it becomes stateless again, the classic handshake it still takes
// gives no session, and the memory is dropped for the next start.
func TestStatelessProtocolMemorySkipsDiscover(t *testing.T) {
	stateless, _ := startEmu(t, modes[0], colabfake.Options{Seed: colabfake.SeedDemo})
	classic, _ := startEmu(t, modes[1], colabfake.Options{Seed: colabfake.SeedDemo})
	sw := &switchable{}
	sw.set(stateless.Handler())
	rec := &recorder{next: sw}
	ep := serve(t, rec)
	dir := t.TempDir()
	run := func() ([]string, ServerInfo) {
		t.Helper()
		c, _ := emuClient(t, ep, func(o *Options) { o.StateDir = dir })
		if rts, err := c.ListRuntimes(context.Background()); err != nil || len(rts) != 3 {
			t.Fatalf("ListRuntimes = %d runtimes, %v", len(rts), err)
		}
		info, err := c.ServerInfo(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		c.Close() // waits for the memory to be written
		return withoutNotifications(rec.methods()), info
	}

	first, info1 := run()
	if !slices.Equal(first, []string{"server/discover", "tools/call"}) {
		t.Fatalf("first start sent %v, want server/discover then the call", first)
	}
	if info1.Stateful || info1.ProtocolVersion != statelessProtocol || info1.Name == "" {
		t.Fatalf("first start: not a stateless session: %+v", info1)
	}
	b, err := os.ReadFile(filepath.Join(dir, ProtocolFile))
	if err != nil || !strings.Contains(string(b), `"protocolVersion": "`+statelessProtocol+`"`) ||
		strings.Contains(string(b), oauthToken) {
		t.Fatalf("%s: %v\n%s", ProtocolFile, err, b)
	}
	for i := 0; i < 2; i++ {
		second, info2 := run()
		if !slices.Equal(second, []string{"tools/call"}) {
			t.Fatalf("start %d sent %v, want the call alone (no server/discover)", i+2, second)
		}
		if info2 != info1 {
			t.Fatalf("start %d: ServerInfo %+v from memory, want %+v as asked", i+2, info2, info1)
		}
	}

	// The endpoint now serves a classic server: the remembered protocol's
	// call is refused, the memory goes, the same call probes and succeeds.
	sw.set(classic.Handler())
	third, info3 := run()
	cold := []string{"server/discover", "initialize", "tools/call"}
	if !slices.Equal(third, append([]string{"tools/call"}, cold...)) {
		t.Fatalf("after the server changed the start sent %v, want the refused call, then %v", third, cold)
	}
	if !info3.Stateful || info3.ProtocolVersion == statelessProtocol {
		t.Fatalf("after the server changed: %+v, want a classic session", info3)
	}
	if n := classic.CallCount(api.ToolListRuntimes); n != 1 {
		t.Fatalf("the classic server ran list_runtimes %d times, want 1", n)
	}
	fourth, _ := run()
	if len(fourth) == 0 || fourth[0] != "initialize" || slices.Contains(fourth, "server/discover") {
		t.Fatalf("the next start sent %v, want initialize first (the classic server remembered)", fourth)
	}

	// And back: the stateless server takes the classic handshake too, but
	// gives no session; that start goes on, the next one probes, and the
	// one after sends the call alone again.
	sw.set(stateless.Handler())
	for i, want := range [][]string{
		{"initialize", "tools/call"},
		{"server/discover", "tools/call"},
		{"tools/call"},
	} {
		got, info := run()
		if !slices.Equal(got, want) {
			t.Fatalf("start %d after the server became stateless again sent %v, want %v", i+1, got, want)
		}
		if info.Stateful {
			t.Fatalf("start %d after the server became stateless again: %+v", i+1, info)
		}
	}
}

// A remembered stateless server that now speaks another protocol version
// (a -32022 refusal, as SEP-2575 says) is probed again within the same
// call, which then succeeds; nothing is retried with backoff.
func TestStatelessProtocolMemoryVersionRefused(t *testing.T) {
	emu, _ := startEmu(t, modes[0], colabfake.Options{Seed: colabfake.SeedDemo})
	rec := &recorder{next: emu.Handler()}
	ep := serve(t, rec)
	dir := t.TempDir()
	run := func() []string {
		t.Helper()
		c, sl := emuClient(t, ep, func(o *Options) { o.StateDir = dir })
		if _, err := c.ListRuntimes(context.Background()); err != nil {
			t.Fatal(err)
		}
		if w := sl.waits(); len(w) != 0 {
			t.Fatalf("backed off %v", w)
		}
		c.Close()
		return withoutNotifications(rec.methods())
	}
	run()
	var refused atomic.Int64
	rec.setHook(func(method string, w http.ResponseWriter, r *http.Request) bool {
		if method != "tools/call" || refused.Load() > 0 {
			return false
		}
		refused.Add(1)
		replyStatus(w, http.StatusBadRequest, "application/json", `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"unsupported protocol version","data":{"supported":["2027-01-01"],"requested":"2026-07-28"}}}`)
		return true
	})
	got := run()
	if want := []string{"tools/call", "server/discover", "tools/call"}; refused.Load() != 1 || !slices.Equal(got, want) {
		t.Fatalf("after a version error the start sent %v (refused %d), want %v", got, refused.Load(), want)
	}
}

// A server's name or version longer than maxServerInfo is not
// remembered (the rest of the record is), so no server fills the file.
func TestProtocolMemoryBoundsServerInfo(t *testing.T) {
	m := newProtocolMemory(t.TempDir(), time.Now)
	long := strings.Repeat("n", maxServerInfo+1)
	m.remember("https://h.example/mcp", protocolRecord{ProtocolVersion: statelessProtocol}.withServerInfo(long, "1.2"))
	rec, ok := m.lookup("https://h.example/mcp")
	if !ok || rec.ProtocolVersion != statelessProtocol || rec.ServerName != "" || rec.ServerVersion != "1.2" {
		t.Fatalf("lookup = %+v, %v; want the version and 1.2 without the long name", rec, ok)
	}
	if info := rec.discoverResult(); len(info.SupportedVersions) != 1 || info.SupportedVersions[0] != statelessProtocol {
		t.Fatalf("remembered discover answer: %+v", info)
	}
}
