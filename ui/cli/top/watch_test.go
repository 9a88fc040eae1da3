package top

// --watch's cost rules, against the emulator's runtime proxy
// on a fake clock: the requests of a round after the first are bounded
// whatever the number of runtimes, a runtime whose read failed backs off
// 30 s → 5 min, and one runtime never has two requests at once.

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/client"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/ops/opstest"
)

// watchEnv starts the emulator with n runtimes and no seed, and returns
// it, its runtimes (with their proxy tokens) and a prober on it.
func watchEnv(t *testing.T, n int, o colabfake.Options) (*colabfake.Server, []api.Runtime, *prober) {
	t.Helper()
	o.Runtimes, o.Seed, o.RuntimeLimit = n, colabfake.SeedEmpty, -1
	srv, cli := opstest.Emulator(t, o, client.Options{})
	rts, err := targets(srv.Runtimes(), nil)
	if err != nil {
		t.Fatal(err)
	}
	p := newProber(&kit.Connection{Svc: cli}, &api.Redactor{})
	p.watching = true
	return srv, rts, p
}

// fakeClock is a clock the test moves.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func proxyRequests(srv *colabfake.Server) int { n, _ := srv.ProxyRequests(); return n }

// At 1,000 runtimes a round at the default interval reads five runtimes
// (ten requests: monitor.MaxPerMinute's share of 5 s), those read longest
// ago first, so the runtimes take turns; the rows of the others keep what
// their last read found.
func TestWatchRoundBounded(t *testing.T) {
	if got := RoundLimit(DefaultInterval); got != 5 {
		t.Fatalf("RoundLimit(5s) = %d, want 5 (120 requests a minute, two a runtime)", got)
	}
	if RoundLimit(time.Second) != 1 || RoundLimit(30*time.Second) != 30 {
		t.Fatalf("RoundLimit(1s) = %d, RoundLimit(30s) = %d", RoundLimit(time.Second), RoundLimit(30*time.Second))
	}
	srv, rts, p := watchEnv(t, 1000, colabfake.Options{})
	clk := &fakeClock{time.Now()}
	limit := RoundLimit(DefaultInterval)
	read := map[string]int{}
	for round := 0; round < 3; round++ {
		before := proxyRequests(srv)
		rows := p.round(context.Background(), rts, clk.now, limit)
		if n := proxyRequests(srv) - before; n != 2*limit {
			t.Fatalf("round %d at 1,000 runtimes: %d proxy requests, want %d", round, n, 2*limit)
		}
		if len(rows) != 1000 {
			t.Fatalf("round %d: %d rows", round, len(rows))
		}
		for _, r := range rows {
			if r.mon != nil && r.mon.ResourcesAt.Equal(clk.t) {
				read[r.rt.Name]++
			}
		}
		clk.t = clk.t.Add(DefaultInterval)
	}
	if len(read) != 3*limit {
		t.Fatalf("3 rounds read %d distinct runtimes, want %d (each round the ones read longest ago)", len(read), 3*limit)
	}
}

// A runtime whose read failed is read again 30 s later, then 60 s, 120 s
// … (monitor.Backoff), and says when; rounds in between send it nothing.
// A success resets it to every round.
func TestWatchBackoff(t *testing.T) {
	srv, rts, p := watchEnv(t, 2, colabfake.Options{})
	srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, PathPrefix: "api/colab/resources", Status: 500, Times: -1})
	start := time.Now()
	clk := &fakeClock{start}
	var readAt []time.Duration // when rounds sent requests
	var note string
	for sec := 0; sec <= 240; sec += 5 {
		clk.t = start.Add(time.Duration(sec) * time.Second)
		before := proxyRequests(srv)
		rows := p.round(context.Background(), rts, clk.now, RoundLimit(DefaultInterval))
		if n := proxyRequests(srv) - before; n > 0 {
			if n != 4 {
				t.Fatalf("at %ds: %d requests, want 4 (two runtimes, resources and kernels)", sec, n)
			}
			readAt = append(readAt, time.Duration(sec)*time.Second)
		} else if note == "" {
			note = strings.Join(rows[0].notes(), "; ")
		}
	}
	want := []time.Duration{0, 30 * time.Second, 90 * time.Second, 210 * time.Second}
	if len(readAt) != len(want) {
		t.Fatalf("reads at %v, want %v (backing off 30 s, 60 s, 120 s)", readAt, want)
	}
	for i := range want {
		if readAt[i] != want[i] {
			t.Fatalf("reads at %v, want %v", readAt, want)
		}
	}
	if !strings.Contains(note, "resources unavailable: HTTP 500") || !strings.Contains(note, "backing off: next read ") {
		t.Errorf("a runtime backing off says %q", note)
	}
	// Next read due at 210 + 240 s; the fault gone, it succeeds and the
	// runtime is read every round again.
	srv.ClearProxyFaults()
	for _, sec := range []int{450, 455, 460} {
		clk.t = start.Add(time.Duration(sec) * time.Second)
		before := proxyRequests(srv)
		rows := p.round(context.Background(), rts, clk.now, RoundLimit(DefaultInterval))
		if n := proxyRequests(srv) - before; n != 4 || rows[0].failed() || strings.Contains(strings.Join(rows[0].notes(), ";"), "HTTP 500") ||
			!rows[0].retryAt.IsZero() {
			t.Fatalf("at %ds after the fault: %d requests, row %v", sec, n, rows[0].notes())
		}
	}
}

// Never two requests at once for one runtime: with 50 ms a request, each
// runtime's next request reaches the proxy at least 50 ms after its
// previous one, while eight runtimes are read at once.
func TestWatchNoOverlapPerRuntime(t *testing.T) {
	const latency = 50 * time.Millisecond
	var mu sync.Mutex
	seen := map[string][]time.Time{}
	_, rts, p := watchEnv(t, 16, colabfake.Options{ProxyLatency: latency, OnProxyRequest: func(r *http.Request) {
		id := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/proxy/"), "/", 2)[0]
		mu.Lock()
		seen[id] = append(seen[id], time.Now())
		mu.Unlock()
	}})
	t0 := time.Now()
	p.round(context.Background(), rts, time.Now, 0)
	took := time.Since(t0)
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 16 {
		t.Fatalf("%d runtimes reached the proxy, want 16", len(seen))
	}
	for id, at := range seen {
		for i := 1; i < len(at); i++ {
			if gap := at[i].Sub(at[i-1]); gap < latency {
				t.Errorf("%s: two requests %v apart, the first not answered yet", id, gap)
			}
		}
	}
	// 32 requests of 50 ms one after another would take 1.6 s.
	if took >= 32*latency {
		t.Errorf("a round of 16 runtimes took %v: not read in parallel", took)
	}
}
