// The client against the emulator: the MCP session dropped by the server,
// and a server without the standalone SSE stream.

package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
)

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
