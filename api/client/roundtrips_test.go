package client

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/google/uuid"
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
//
// It also hands a classic session's calls to the server only once that
// session's initialized notification has been answered. The client puts
// the notification on the wire before any call (sendOrder checks it), but
// the two travel on different connections and, the same latency added to
// each, reach go-sdk's session in whichever order the scheduler picks: a
// call first is refused ("invalid during session initialization") and
// sent again, a round trip that depends on the machine's load, not on
// the client. Held so, the server handles them in the order they were
// sent; a call is held no longer than the notification's own latency, so
// the depths, taken on arrival, are those the user waits through.
type depthCounter struct {
	next http.Handler
	mu   sync.Mutex
	done int // the deepest answered POST
	max  int
	// initialized: per Mcp-Session-Id, closed once the session's
	// initialized notification is answered.
	initialized map[string]chan struct{}
}

// initDone returns the channel closed once session id's initialized
// notification is answered.
func (d *depthCounter) initDone(id string) chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.initialized == nil {
		d.initialized = map[string]chan struct{}{}
	}
	ch := d.initialized[id]
	if ch == nil {
		ch = make(chan struct{})
		d.initialized[id] = ch
	}
	return ch
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
	if sid := r.Header.Get("Mcp-Session-Id"); sid != "" {
		switch method := jsonrpcMethod(r); method {
		case "notifications/initialized":
			defer close(d.initDone(sid))
		case "tools/call", "tools/list":
			select {
			case <-d.initDone(sid):
			case <-r.Context().Done():
				return
			}
		}
	}
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

// jsonrpcMethod is the method of r's JSON-RPC message ("" when it is not
// one); r's body is left for the next handler to read.
func jsonrpcMethod(r *http.Request) string {
	b, err := io.ReadAll(r.Body)
	r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(b))
	var m struct {
		Method string `json:"method"`
	}
	if err != nil || json.Unmarshal(b, &m) != nil {
		return ""
	}
	return m.Method
}

// sendOrder is the client's transport in the round-trip tests: it records
// when each POST starts and when its request has been written, and
// reports a call started before the connect's initialized notification
// was on the wire (MCP: the notification comes before normal operation).
type sendOrder struct {
	base http.RoundTripper
	mu   sync.Mutex
	// noted: the notification of the latest connect has been written (or
	// there is no notification: a stateless server).
	noted bool
	bad   []string
}

func (o *sendOrder) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodPost || r.GetBody == nil {
		return o.base.RoundTrip(r)
	}
	body, err := r.GetBody()
	if err != nil {
		return nil, err
	}
	method := jsonrpcMethod(&http.Request{Body: body})
	o.mu.Lock()
	switch method {
	case "initialize":
		o.noted = false
	case "tools/call", "tools/list":
		if !o.noted && r.Header.Get("Mcp-Session-Id") != "" {
			o.bad = append(o.bad, method+" sent before the initialized notification was written")
		}
	}
	o.mu.Unlock()
	if method == "notifications/initialized" {
		r = r.WithContext(httptrace.WithClientTrace(r.Context(), &httptrace.ClientTrace{
			WroteRequest: func(httptrace.WroteRequestInfo) { o.mu.Lock(); o.noted = true; o.mu.Unlock() },
		}))
	}
	return o.base.RoundTrip(r)
}

// check fails t for every call that overtook a notification.
func (o *sendOrder) check(t *testing.T) {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, b := range o.bad {
		t.Error(b)
	}
	o.bad = nil
}

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
	order := &sendOrder{base: bearerClient().Transport}
	c, _ := emuClient(t, ep, func(o *Options) {
		o.StateDir = dir
		o.HTTPClient = &http.Client{Transport: order}
	})
	dc.take()
	fn(c)
	n := dc.take()
	c.Close() // waits for the protocol memory to be written
	dc.take()
	order.check(t)
	return n
}

// fewestRoundTrips runs roundTrips up to three times while it counts more
// than want, each time in the StateDir dir returns, and returns the fewest
// counted. A request the client sends beside another reaches the server
// one round trip deeper when the machine is so busy that its goroutine
// starts after the other's answer (rtLatency later): load only ever adds
// round trips, so the fewest of a few tries is the client's own count,
// while a request the client really waits for is counted in every try.
func fewestRoundTrips(t *testing.T, dc *depthCounter, ep string, dir func() string, want int, fn func(c *Client)) int {
	t.Helper()
	fewest := -1
	for try := 0; try < 3 && (fewest < 0 || fewest > want); try++ {
		if n := roundTrips(t, dc, ep, dir(), fn); fewest < 0 || n < fewest {
			fewest = n
		}
	}
	return fewest
}

// `status` (api.LoadOverview: get_subscription beside list_runtimes, then
// every list_sessions at once) on a second start, the protocol
// remembered: 2 round trips against a stateless server (no
// server/discover), 3 against a classic one (initialize first). The first
// start probes: one more for a stateless server, two for a classic one.
func TestStatusRoundTrips(t *testing.T) {
	forEachMode(t, func(t *testing.T, m serverMode) {
		emu, _ := startEmu(t, m, colabfake.Options{Seed: colabfake.SeedDemo, Latency: rtLatency})
		dc := &depthCounter{next: emu.Handler()}
		ep := serve(t, dc)
		var dir string
		fresh := func() string { dir = t.TempDir(); return dir }
		same := func() string { return dir }
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
		if n := fewestRoundTrips(t, dc, ep, fresh, cold, status); n != cold {
			t.Errorf("first start: %d round trips, want %d", n, cold)
		}
		for i := 0; i < 2; i++ {
			if n := fewestRoundTrips(t, dc, ep, same, warm, status); n != warm {
				t.Errorf("start %d, protocol remembered: %d round trips, want %d", i+2, n, warm)
			}
		}
	})
}

// `exec RUNTIME -c CODE`'s calls (list_runtimes to find the runtime, then
// create_session, then execute_code, which both need the live schema)
// under ListToolsEarly send tools/list beside list_runtimes: 4 round trips
// against a classic server (initialize first), 3 against a stateless one;
// without the mark tools/list waits for create_session, one round trip
// more.
func TestExecRoundTrips(t *testing.T) {
	forEachMode(t, func(t *testing.T, m serverMode) {
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
		same := func() string { return dir }
		if n := fewestRoundTrips(t, dc, ep, same, floor, exec(ListToolsEarly(context.Background()))); n != floor {
			t.Errorf("with ListToolsEarly: %d round trips, want %d", n, floor)
		}
		if n := fewestRoundTrips(t, dc, ep, same, floor+1, exec(context.Background())); n != floor+1 {
			t.Errorf("without ListToolsEarly: %d round trips, want %d (tools/list after list_runtimes)", n, floor+1)
		}
	})
}

// `exec RUNTIME-ID -c CODE` with the runtime named in full: execute_code
// names a session that does not exist yet, which the server creates, and
// goes without waiting for tools/list. On a second start that is 2 round
// trips against a classic server (initialize first) and 1 against a
// stateless one, and no tools/list is sent at all. A server whose schema
// calls the source otherwise refuses the documented name: the call goes
// again with the listed schema, and runs.
func TestExecuteCodeInANewSessionRoundTrips(t *testing.T) {
	forEachMode(t, func(t *testing.T, m serverMode) {
		emu, _ := startEmu(t, m, colabfake.Options{Seed: colabfake.SeedDemo, Latency: rtLatency})
		dc := &depthCounter{next: emu.Handler()}
		var listed atomic.Int32
		ep := serve(t, countTool(dc, "tools/list", &listed))
		dir := t.TempDir()
		same := func() string { return dir }
		exec := func(c *Client) {
			res, err := c.ExecuteCode(context.Background(), api.ExecuteCodeRequest{
				Session: "runtimes/rt-t4demo7k2p/sessions/" + uuid.NewString(), Code: "print(6*7)"})
			if err != nil || res.Stdout != "42\n" {
				t.Fatalf("ExecuteCode = %+v, %v", res, err)
			}
		}
		roundTrips(t, dc, ep, dir, exec) // remember the protocol
		want := 2
		if m.stateless {
			want = 1
		}
		if n := fewestRoundTrips(t, dc, ep, same, want, exec); n != want {
			t.Errorf("exec in a new session: %d round trips, want %d", n, want)
		}
		if n := listed.Load(); n != 0 {
			t.Errorf("tools/list sent %d times, want none", n)
		}
	})
	t.Run("source renamed", func(t *testing.T) {
		emu, _ := startEmu(t, modes[1], colabfake.Options{Seed: colabfake.SeedDemo,
			RenamedInputs: map[string]string{api.ToolExecuteCode + ".code": "source"}})
		var listed atomic.Int32
		c, _ := emuClient(t, serve(t, countTool(emu.Handler(), "tools/list", &listed)))
		res, err := c.ExecuteCode(context.Background(), api.ExecuteCodeRequest{
			Session: "runtimes/rt-t4demo7k2p/sessions/" + uuid.NewString(), Code: "print(6*7)"})
		if err != nil || res.Stdout != "42\n" {
			t.Fatalf("ExecuteCode against a schema calling the code source = %+v, %v", res, err)
		}
		if n := listed.Load(); n != 1 {
			t.Errorf("tools/list sent %d times, want once (after the refusal)", n)
		}
	})
}

// countTool serves next and counts in n the POSTs whose JSON-RPC method
// is method.
func countTool(next http.Handler, method string, n *atomic.Int32) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && jsonrpcMethod(r) == method {
			n.Add(1)
		}
		next.ServeHTTP(w, r)
	})
}
