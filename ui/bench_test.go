package ui

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/paint"
)

func benchModel(b *testing.B, n int) Model {
	f := newFake()
	specs := []api.RuntimeSpecKey{specT4, specCPU, specTPU, specA100}
	for i := 0; i < n; i++ {
		f.runtimes = append(f.runtimes, mkRuntime(fmt.Sprintf("r-%05d", i), specs[i%4], t0.Add(time.Duration(i%90)*time.Minute-5*time.Minute), ""))
	}
	f.sessions["runtimes/r-00000"] = []api.Session{{Name: "runtimes/r-00000/sessions/colabdash-1"}}
	clk := &clock{t: t0}
	m := testModel(f, clk)
	m, _ = update(m, tea.WindowSizeMsg{Width: 160, Height: 48})
	m, _ = run(b, m, m.Init())
	if len(m.rt.Rows()) != n {
		b.Fatalf("%d rows", len(m.rt.Rows()))
	}
	m, _ = update(m, keyMsg("enter"))
	return m
}

// benchView renders m b.N times, reporting allocations; a frame that
// lacks want stops b.
func benchView(b *testing.B, m Model, want string) {
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if v := m.View(); !strings.Contains(v, want) {
			b.Fatalf("the frame lacks %q", want)
		}
	}
}

// BenchmarkView renders one 160×48 frame with 10, 100 and 1,000 runtimes,
// the monitor on (its columns, the details' figures and sparklines).
// Cost follows the visible rows, not the list.
func BenchmarkView(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("runtimes=%d", n), func(b *testing.B) {
			benchView(b, withMonitor(benchModel(b, n)), "r-00000")
		})
	}
}

// BenchmarkTick is one tick (countdowns, refresh and renewal checks) with
// 1,000 runtimes, outside View.
func BenchmarkTick(b *testing.B) {
	m := benchModel(b, 1000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		mm := m
		mm.calls.pending = map[callKey]pendingCall{}
		mm.calls.renew = state.NewRenewals(m.opts.RenewLead)
		mm.calls.budget = state.NewCallBudget(m.opts.CallBudget, state.ReserveFor(m.opts.RefreshInterval))
		mm.onTick(t0)
	}
}

// BenchmarkFirstFrame renders the first frame of a model whose calls have
// not returned: Init only returns commands, View works on the empty
// snapshot.
func BenchmarkFirstFrame(b *testing.B) {
	f := newFake()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		m := testModel(f, &clock{t: t0})
		_ = m.Init()
		if !strings.Contains(m.View(), "loading runtimes") {
			b.Fatal("no loading state")
		}
	}
	if f.count("list_runtimes") != 0 {
		b.Fatal("an API call ran before the first frame")
	}
}

// Benchmarks behind the figures in docs/performance.md. Speed targets are
// reported as metrics; the idle call cadence is also a test, so a
// regression fails `go test`.

var idleCPUDuration = flag.Duration("idlecpu", 10*time.Second, "how long BenchmarkIdleCPU watches the idle dashboard")

// BenchmarkFullDashboard: time from a fresh client and model to a full
// dashboard (tier, specs, 20 runtimes and every runtime's sessions)
// against the emulator adding 50 ms to every JSON-RPC request
// ("dashboard-ms"). Round trips are counted the way the wire benchmarks
// count them, so a busy machine does not inflate them: each iteration
// also runs against an identical emulator without added latency, and
// "roundtrips" is (t50 − t0) / 50 ms, the median of the iterations'. The floor does not depend on the
// client under test: it is the shortest chain of raw JSON-RPC POSTs that
// can show a runtime's sessions (initialize, notifications/initialized,
// tools/call list_runtimes, then tools/call list_sessions; each needs the
// answer before it), sent with net/http and counted the same way
// ("floor-roundtrips", 4; "floor-ms" at 50 ms). "x-floor" is the ratio of
// the two round-trip counts (the median of each iteration's ratio): a
// client that adds a round trip of its own (a failing probe, a tools/list
// before the first call) shows in it.
func BenchmarkFullDashboard(b *testing.B) {
	const latency = 50 * time.Millisecond
	start := func(lat time.Duration) string {
		srv, ep, err := colabfake.Start(context.Background(), "127.0.0.1:0", colabfake.Options{Latency: lat, RuntimeLimit: -1, CreatesPerMinute: -1})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { srv.Close() })
		for i := 0; i < 20; i++ {
			if _, err := srv.AddRuntime(api.Runtime{Name: fmt.Sprintf("r-%02d", i), RuntimeSpec: stackT4, ConnectionInfo: &api.ConnectionInfo{}}); err != nil {
				b.Fatal(err)
			}
			srv.AddNotebookSession(fmt.Sprintf("r-%02d", i), "nb")
		}
		return ep
	}
	ep0, ep50 := start(0), start(latency)
	dashboard := func(ep string) time.Duration {
		s := newStackAt(b, nil, ep, stackOpts{realTime: true})
		t0 := time.Now()
		s.start()
		d := time.Since(t0)
		snap := s.m.Snapshot()
		if snap.Len() != 20 || !snap.SubscriptionFresh.Loaded() || !snap.SpecsFresh.Loaded() {
			b.Fatalf("dashboard not full: %d runtimes", snap.Len())
		}
		for r := range snap.All() {
			if len(r.Sessions) != 1 {
				b.Fatalf("%s: %d sessions", r.Name, len(r.Sessions))
			}
		}
		s.close()
		return d
	}
	// Each iteration measures the four in turn; every figure is the median
	// of the iterations' own, so a busy moment weighs on one iteration
	// and not on the result.
	var dashRT, floorRT, xFloor, dashMS, floorMS []float64
	rt := func(d0, d50 time.Duration) float64 { return float64(d50-d0) / float64(latency) }
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		floor0, floor50 := rawFloor(b, ep0), rawFloor(b, ep50)
		dash0, dash50 := dashboard(ep0), dashboard(ep50)
		dashRT = append(dashRT, rt(dash0, dash50))
		floorRT = append(floorRT, rt(floor0, floor50))
		xFloor = append(xFloor, rt(dash0, dash50)/rt(floor0, floor50))
		dashMS, floorMS = append(dashMS, ms(dash50)), append(floorMS, ms(floor50))
	}
	b.StopTimer()
	b.ReportMetric(median(dashRT), "roundtrips")
	b.ReportMetric(median(floorRT), "floor-roundtrips")
	b.ReportMetric(median(xFloor), "x-floor")
	b.ReportMetric(median(dashMS), "dashboard-ms")
	b.ReportMetric(median(floorMS), "floor-ms")
}

// median is the middle value of xs (sorted in place).
func median(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// rawFloor sends the shortest request chain that shows a runtime's
// sessions, as raw JSON-RPC POSTs over net/http, and returns its wall
// time: initialize, notifications/initialized, tools/call list_runtimes,
// tools/call list_sessions (runtimes/r-00).
func rawFloor(b *testing.B, ep string) time.Duration {
	b.Helper()
	hc := &http.Client{}
	var session, version string
	post := func(body string) string {
		req, err := http.NewRequest(http.MethodPost, ep, strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+stackOAuthToken)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", version)
		}
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			session = id
		}
		if resp.StatusCode/100 != 2 {
			b.Fatalf("%s: HTTP %d", body, resp.StatusCode)
		}
		if resp.StatusCode == http.StatusAccepted { // a notification
			return ""
		}
		// One answer, as JSON or as the data line of one SSE event.
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			ln := strings.TrimPrefix(sc.Text(), "data: ")
			if strings.HasPrefix(ln, "{") && strings.Contains(ln, `"id"`) {
				if strings.Contains(ln, `"error"`) || strings.Contains(ln, `"isError":true`) {
					b.Fatalf("%s: %s", body, ln)
				}
				return ln
			}
		}
		b.Fatalf("%s: no answer", body)
		return ""
	}
	start := time.Now()
	init := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"floor","version":"0"}}}`)
	var res struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(init), &res); err != nil || res.Result.ProtocolVersion == "" {
		b.Fatalf("initialize: %v %s", err, init)
	}
	version = res.Result.ProtocolVersion
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_runtimes","arguments":{}}}`)
	post(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_sessions","arguments":{"parent":"runtimes/r-00"}}}`)
	d := time.Since(start)
	if session != "" { // end the session, as a client closing would
		req, _ := http.NewRequest(http.MethodDelete, ep, nil)
		req.Header.Set("Authorization", "Bearer "+stackOAuthToken)
		req.Header.Set("Mcp-Session-Id", session)
		if resp, err := hc.Do(req); err == nil {
			resp.Body.Close()
		}
	}
	hc.CloseIdleConnections()
	return d
}

// idleHour runs the dashboard with n runtimes (1 h proxy tokens) against
// the emulator for d of fake time, one tick per second, and returns the
// tools/call count per tool.
func idleHour(t testing.TB, n int, d time.Duration) map[string]int {
	s := newStack(t, stackOpts{emu: colabfake.Options{TokenTTL: time.Hour}})
	for i := 0; i < n; i++ {
		s.addRuntime(t, fmt.Sprintf("r-%d", i), stackCPU)
	}
	s.start()
	s.idle(d)
	out := map[string]int{}
	for _, tool := range []string{"get_subscription", "list_runtime_specs", "list_runtimes", "list_sessions", "get_runtime", "create_runtime", "delete_runtime", "create_session", "delete_session", "execute_code"} {
		out[tool] = s.srv.CallCount(tool)
	}
	out[""] = s.srv.CallCount("")
	return out
}

// TestIdleCallCadence: an idle hour with five runtimes and 1 h tokens costs
// only the refresh cadence (list_runtimes every 30 s and list_sessions for
// each runtime after it) and one renewal per token lifetime, nothing more.
// A refresh is due 30 s after the previous answer, and no more than two
// go out in any 61 s (the call budget's reserve counts two a minute), so
// on the fake clock, where an answer takes no time, they alternate 30 and
// 31 s apart: 119 in the hour.
func TestIdleCallCadence(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates an hour of ticks")
	}
	calls := idleHour(t, 5, time.Hour)
	refreshes := 1 + int(time.Hour/((state.CallWindow+state.CallMargin)/2)) // the first load + two per 61 s
	want := map[string]int{
		"get_subscription": 1, "list_runtime_specs": 1,
		"list_runtimes": refreshes, "list_sessions": 5 * refreshes,
		"get_runtime": 5, // tokens issued at t0 renew once, 5 min before t0+1h
	}
	for tool, n := range calls {
		if tool == "" {
			continue
		}
		if n != want[tool] {
			t.Errorf("%s: %d calls in an idle hour, want %d", tool, n, want[tool])
		}
	}
}

// BenchmarkIdleCalls reports the API calls of an idle dashboard on the
// fake clock (one tick a second), counting the emulator's tools/call
// requests after every tick, and "max-calls/min", the most in any 60 s
// (every sliding minute, whole minutes included: measured in every
// minute, never an average). With five runtimes and 1 h tokens: an
// idle hour, its mean calls a minute, renewals per token lifetime and
// list_runtimes a minute. With 200 and 1,000 runtimes (emulator --runtimes
// N: 1 h tokens expiring spread over the hour, so renewals come
// throughout, and the first minutes after the load hold the renewals due
// within their lead at once): five idle minutes after the first load,
// the oldest session count then ("oldest-count-min") and the most proxy
// tokens past their expireTime at any minute's end ("expired-tokens":
// renewals keep up, 0). The calls of each whole minute are logged.
func BenchmarkIdleCalls(b *testing.B) {
	b.Run("runtimes=5", func(b *testing.B) {
		var calls map[string]int
		var most int
		for i := 0; i < b.N; i++ {
			s := newStack(b, stackOpts{emu: colabfake.Options{TokenTTL: time.Hour}})
			for j := 0; j < 5; j++ {
				s.addRuntime(b, fmt.Sprintf("r-%d", j), stackCPU)
			}
			s.start()
			var expired int
			most, _, expired = idleMinutes(b, s, time.Hour)
			if expired > 0 {
				b.Fatalf("%d proxy tokens expired in an idle hour", expired)
			}
			calls = map[string]int{"": s.srv.CallCount(""), "get_runtime": s.srv.CallCount("get_runtime"), "list_runtimes": s.srv.CallCount("list_runtimes")}
			s.close()
		}
		b.ReportMetric(float64(calls[""])/60, "calls/min")
		b.ReportMetric(float64(most), "max-calls/min")
		b.ReportMetric(float64(calls["get_runtime"])/5, "renewals/token-hour")
		b.ReportMetric(float64(calls["list_runtimes"])/60, "list_runtimes/min")
	})
	for _, n := range []int{200, 1000} {
		b.Run(fmt.Sprintf("runtimes=%d", n), func(b *testing.B) {
			var most, expired int
			var oldest time.Duration
			for i := 0; i < b.N; i++ {
				s := newStack(b, stackOpts{emu: colabfake.Options{Runtimes: n, TokenTTL: time.Hour}})
				s.start()
				most, _, expired = idleMinutes(b, s, 5*time.Minute)
				oldest = 0
				for r := range s.m.cx.Snap.All() {
					oldest = max(oldest, s.clk.Now().Sub(r.SessionsFresh.FetchedAt))
				}
				s.close()
			}
			b.ReportMetric(float64(most), "max-calls/min")
			b.ReportMetric(oldest.Minutes(), "oldest-count-min")
			b.ReportMetric(float64(expired), "expired-tokens")
		})
	}
}

// idleMinutes idles the stack for d (whole minutes) and returns the most
// tools/call requests in any 60 s (every sliding window of 60 ticks), the
// count of each whole minute (also logged) and the most proxy tokens past
// their expireTime at any minute's end.
func idleMinutes(b testing.TB, s *stack, d time.Duration) (most int, perMinute []int, expired int) {
	secs := int(d / time.Second)
	counts := make([]int, 0, secs+1) // calls so far, after each tick
	counts = append(counts, s.srv.CallCount(""))
	for i := 1; i <= secs; i++ {
		s.tick(time.Second)
		counts = append(counts, s.srv.CallCount(""))
		if i%60 == 0 {
			perMinute = append(perMinute, counts[i]-counts[i-60])
			n := 0
			for r := range s.m.cx.Snap.All() {
				if !r.Gone() && !r.ExpireTime().IsZero() && !s.clk.Now().Before(r.ExpireTime()) {
					n++
				}
			}
			expired = max(expired, n)
		}
	}
	for i := 60; i <= secs; i++ {
		most = max(most, counts[i]-counts[i-60])
	}
	if len(perMinute) <= 10 {
		b.Logf("calls in each minute: %v", perMinute)
	}
	return most, perMinute, expired
}

// BenchmarkIdleCPU runs the real tea.Program headless with Run's options
// (no input, output discarded) on the dashboard with 10, 200 and 1,000
// runtimes whose countdowns tick, the monitor on (it polls the runtimes
// on screen through the emulator's proxy), against the in-process emulator
// (--runtimes N: tokens expiring spread over the hour), for -idlecpu
// (default 10 s; .ci/run uses 30 s, one whole refresh interval), and
// reports the process CPU time (user+system, getrusage) as a percentage of
// one core over that wall time. The emulator and the test harness run in
// the same process, so the figure is an upper bound for the dashboard.
// CPU time per wall second rises on a busy machine, so it is reported,
// not gated: what CI gates is the idle work that causes it, which load
// does not move, "updates/s" (messages the model's Update handled: ticks,
// results, polls) and "frames/s" (View calls) over the same wall time.
func BenchmarkIdleCPU(b *testing.B) {
	for _, n := range []int{10, 200, 1000} {
		b.Run(fmt.Sprintf("runtimes=%d", n), func(b *testing.B) {
			srv, ep, err := colabfake.Start(context.Background(), "127.0.0.1:0", colabfake.Options{RuntimeLimit: -1, Runtimes: n})
			if err != nil {
				b.Fatal(err)
			}
			defer srv.Close()
			var pct, updates, frames float64
			for i := 0; i < b.N; i++ {
				s := newStackAt(b, srv, ep, stackOpts{realTime: true, ui: Options{Monitor: apimon.New(apimon.Options{})}})
				cm := &countingModel{Model: New(s.m.opts)} // the real model: real tea.Every ticks
				m := cm
				painter := paint.New(nil, io.Discard) // as Run draws: no ticker
				p := newProgram(m, painter, tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithoutSignalHandler())
				done := make(chan tea.Model, 1)
				go func() { fm, _ := runProgram(p, painter); done <- fm }()
				p.Send(tea.WindowSizeMsg{Width: 120, Height: 40})
				// The first load: every runtime's sessions, then a second to
				// settle.
				for deadline := time.Now().Add(2 * time.Minute); srv.CallCount("list_sessions") < (i+1)*n; {
					if time.Now().After(deadline) {
						b.Fatalf("first load: %d list_sessions", srv.CallCount("list_sessions"))
					}
					time.Sleep(100 * time.Millisecond)
				}
				time.Sleep(time.Second)
				runtime.GC()
				u0, w0 := cpuTime(), time.Now()
				up0, fr0 := cm.updates.Load(), cm.frames.Load()
				time.Sleep(*idleCPUDuration)
				u1, w1 := cpuTime(), time.Now()
				up1, fr1 := cm.updates.Load(), cm.frames.Load()
				p.Quit()
				fm := (<-done).(*countingModel).Model
				if fm.Snapshot().Len() != n {
					b.Fatalf("the dashboard shows %d runtimes", fm.Snapshot().Len())
				}
				fm.life.cancel()
				s.close()
				pct = float64(u1-u0) / float64(w1.Sub(w0)) * 100
				updates = float64(up1-up0) / w1.Sub(w0).Seconds()
				frames = float64(fr1-fr0) / w1.Sub(w0).Seconds()
			}
			b.ReportMetric(pct, "cpu-%")
			b.ReportMetric(updates, "updates/s")
			b.ReportMetric(frames, "frames/s")
		})
	}
}

// countingModel is the dashboard's Model counting the messages its
// Update handles and the frames its View draws (the program's goroutine
// calls both; the benchmark reads the counts from its own).
type countingModel struct {
	Model
	updates, frames atomic.Int64
}

func (c *countingModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	c.updates.Add(1)
	m, cmd := c.Model.Update(msg)
	c.Model = m.(Model)
	return c, cmd
}

func (c *countingModel) View() string {
	c.frames.Add(1)
	return c.Model.View()
}

// cpuTime is the process's user + system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkMemory1000 reports the heap the dashboard holds with 1,000
// runtimes loaded (live heap after GC, minus the baseline before it was
// built) and the process's resident set (VmRSS, Linux) at that point.
func BenchmarkMemory1000(b *testing.B) {
	var heap, rss float64
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		m := benchModel(b, 1000)
		_ = m.View()
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / (1 << 20)
		rss = vmRSS()
		runtime.KeepAlive(m)
	}
	b.ReportMetric(heap, "heap-MiB")
	b.ReportMetric(rss, "rss-MiB")
}

// vmRSS reads the resident set size from /proc/self/status in MiB (0 when
// unavailable).
func vmRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.ParseFloat(f[0], 64)
				return kb / 1024
			}
		}
	}
	return 0
}
