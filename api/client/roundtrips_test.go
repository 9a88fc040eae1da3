package client

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
)

// rtLatency is what the emulator adds before every JSON-RPC request in
// the round-trip tests: far longer than starting a goroutine, so requests
// sent side by side always overlap on the server.
const rtLatency = 100 * time.Millisecond

// depthCounter serves next and counts the round trips on the critical
// path: a POST's depth is one more than the deepest POST that had been
// answered when it arrived, so requests sent side by side share a depth
// and a request that waited for an answer is one deeper. A POST counts as
// answered when its reply's first body bytes are written or its handler
// returns, whichever comes first (a server may finish its handler after
// the client has its answer). The deepest depth is the
// number of round trips a user waits through.
type depthCounter struct {
	next http.Handler
	mu   sync.Mutex
	done int // the deepest answered POST
	max  int
}

func (d *depthCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		d.next.ServeHTTP(w, r)
		return
	}
	d.mu.Lock()
	depth := d.done + 1
	d.max = max(d.max, depth)
	d.mu.Unlock()
	var once sync.Once
	answered := func() {
		once.Do(func() {
			d.mu.Lock()
			d.done = max(d.done, depth)
			d.mu.Unlock()
		})
	}
	d.next.ServeHTTP(&answerWriter{ResponseWriter: w, answered: answered}, r)
	answered() // net/http sends the rest of the reply after this returns
}

// answerWriter calls answered when the first body bytes are about to go
// out: net/http sends a large write (a tools/list reply) at once, before
// any flush.
type answerWriter struct {
	http.ResponseWriter
	answered func()
}

func (a *answerWriter) Write(b []byte) (int, error) {
	if len(b) > 0 {
		a.answered() // before the client can have it and send the next request
	}
	return a.ResponseWriter.Write(b)
}

func (a *answerWriter) Flush() {
	if f, ok := a.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (a *answerWriter) Unwrap() http.ResponseWriter { return a.ResponseWriter }

// take returns the round trips counted since the last take and starts
// counting afresh.
func (d *depthCounter) take() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := d.max
	d.done, d.max = 0, 0
	return n
}

// roundTrips runs fn with a new client (StateDir dir) against ep and
// returns the round trips it took, the client's Close excluded.
func roundTrips(t *testing.T, dc *depthCounter, ep, dir string, fn func(c *Client)) int {
	t.Helper()
	c, _ := emuClient(t, ep, func(o *Options) { o.StateDir = dir })
	dc.take()
	fn(c)
	n := dc.take()
	c.Close() // waits for the protocol memory to be written
	dc.take()
	return n
}

// `status` (api.LoadOverview: get_subscription beside list_runtimes, then
// every list_sessions at once) on a second start, the protocol
// remembered: 2 round trips against a stateless server (no
// server/discover), 3 against a classic one (initialize first). The first
// start probes: one more for a stateless server, two for a classic one.
func TestStatusRoundTrips(t *testing.T) {
	for _, m := range emuModes {
		t.Run(m.name, func(t *testing.T) {
			emu, _ := startEmu(t, m, colabfake.Options{Seed: colabfake.SeedDemo, Latency: rtLatency})
			dc := &depthCounter{next: emu.Handler()}
			ep, dir := serve(t, dc), t.TempDir()
			status := func(c *Client) {
				ov, err := api.LoadOverview(context.Background(), c)
				if err != nil || len(ov.Runtimes) != 3 || len(ov.Sessions) != 3 || len(ov.SessionErrors) != 0 {
					t.Fatalf("overview: %v; %d runtimes, sessions of %d (errors %v)", err, len(ov.Runtimes), len(ov.Sessions), ov.SessionErrors)
				}
			}
			cold, warm := 4, 3
			if m.stateless {
				cold, warm = 3, 2
			}
			if n := roundTrips(t, dc, ep, dir, status); n != cold {
				t.Errorf("first start: %d round trips, want %d", n, cold)
			}
			for i := 0; i < 2; i++ {
				if n := roundTrips(t, dc, ep, dir, status); n != warm {
					t.Errorf("start %d, protocol remembered: %d round trips, want %d", i+2, n, warm)
				}
			}
		})
	}
}

// `exec RUNTIME -c CODE`'s calls (list_runtimes to find the runtime, then
// create_session, then execute_code, which both need the live schema)
// under ListToolsEarly send tools/list beside list_runtimes: 4 round trips
// against a classic server (initialize first), 3 against a stateless one;
// without the mark tools/list waits for create_session, one round trip
// more.
func TestExecRoundTrips(t *testing.T) {
	for _, m := range emuModes {
		t.Run(m.name, func(t *testing.T) {
			emu, _ := startEmu(t, m, colabfake.Options{Seed: colabfake.SeedDemo, Latency: rtLatency})
			dc := &depthCounter{next: emu.Handler()}
			ep, dir := serve(t, dc), t.TempDir()
			exec := func(ctx context.Context) func(c *Client) {
				return func(c *Client) {
					rts, err := c.ListRuntimes(ctx)
					if err != nil || len(rts) != 3 {
						t.Fatalf("ListRuntimes = %d runtimes, %v", len(rts), err)
					}
					se, err := c.CreateSession(ctx, "runtimes/rt-t4demo7k2p", "colabdash-rt1")
					if err != nil {
						t.Fatal(err)
					}
					res, err := c.ExecuteCode(ctx, api.ExecuteCodeRequest{Session: se.Name, Code: "print(6*7)"})
					if err != nil || res.Stdout != "42\n" {
						t.Fatalf("ExecuteCode = %+v, %v", res, err)
					}
				}
			}
			roundTrips(t, dc, ep, dir, exec(context.Background())) // remember the protocol
			floor := 4
			if m.stateless {
				floor = 3
			}
			if n := roundTrips(t, dc, ep, dir, exec(ListToolsEarly(context.Background()))); n != floor {
				t.Errorf("with ListToolsEarly: %d round trips, want %d", n, floor)
			}
			if n := roundTrips(t, dc, ep, dir, exec(context.Background())); n != floor+1 {
				t.Errorf("without ListToolsEarly: %d round trips, want %d (tools/list after list_runtimes)", n, floor+1)
			}
		})
	}
}
