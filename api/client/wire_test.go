package client

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

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
	emu, _ := startEmu(t, emuModes[0], colabfake.Options{Runtimes: 200})
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
	emu, _ := startEmu(t, emuModes[0], colabfake.Options{Runtimes: 100, NoAuth: true})
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
