package ui

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/api/colabfake"
	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/state/monitor"
	"github.com/colabdash/colabdash/ui/poll"
	"github.com/colabdash/colabdash/ui/poll/polltest"
)

// monitorStack is the dashboard with the monitor on against the demo
// emulator (its clock the test's), counting the proxy requests by path.
type monitorStack struct {
	*stack
	mu   sync.Mutex
	reqs map[string]int
	auth int         // requests that carried an Authorization header
	at   []time.Time // when each monitor request came, by the stack's clock
}

func newMonitorStack(t testing.TB, width int, emu colabfake.Options) *monitorStack {
	ms := &monitorStack{reqs: map[string]int{}}
	if emu.Seed == "" {
		emu.Seed = colabfake.SeedDemo
	}
	emu.OnProxyRequest = func(r *http.Request) {
		ms.mu.Lock()
		defer ms.mu.Unlock()
		ms.reqs[r.URL.Path]++
		if strings.HasSuffix(r.URL.Path, "/api/colab/resources") || strings.HasSuffix(r.URL.Path, "/api/kernels") {
			ms.at = append(ms.at, ms.clk.Now())
		}
		if r.Header.Get("Authorization") != "" {
			ms.auth++
		}
	}
	ms.stack = newStack(t, stackOpts{emu: emu, width: width, ui: Options{Monitor: apimon.New(apimon.Options{})}})
	return ms
}

func (ms *monitorStack) count(runtime, route string) int {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	return ms.reqs["/proxy/"+runtime+"/"+route]
}

// The dashboard polls the emulator's runtimes through their proxies with
// the proxy token alone and shows their figures: the table's RAM, GPU and
// ACTIVITY columns, the details' sparklines, the kernels, a GPU never
// used; an hour of idleness reads IDLE; nothing is deleted or kept alive.
func TestMonitorAgainstTheEmulator(t *testing.T) {
	ms := newMonitorStack(t, 100, colabfake.Options{})
	ms.start()
	ms.tick(time.Second)
	ms.m = ms.m.selectID(t, "rt-t4demo7k2p")
	// The two runtimes whose tokens are renewed on the first tick are
	// polled once the renewal answered, with the new tokens.
	ms.tick(5 * time.Second)
	ms.tick(25 * time.Second)
	v := ms.view()
	// The demo's T4 runtime runs a job: its idle kernels do not make it
	// idle, and the row and the details say which signal decided.
	for _, want := range []string{"RAM   GPU   ACTIVITY    SPEC", "rt-t4demo7k2p ▂ 13% ▁  0% busy job", "rt-cpudemo4qx ▂ 10%     – idle 31s",
		"kernels  0 busy 2 idle\n", "activity busy (job: 1 running)", "gpu      Tesla T4 · never used", "ram      1.6/12.7 GiB 13%"} {
		if !strings.Contains(v, want) {
			t.Errorf("screen lacks %q:\n%s", want, v)
		}
	}
	if ms.count("rt-t4demo7k2p", "api/colab/resources") < 2 || ms.count("rt-v6edemo2mw", "api/kernels") != 1 {
		t.Errorf("requests: %v", ms.reqs)
	}
	if ms.auth != 0 {
		t.Errorf("%d proxy requests carried an Authorization header", ms.auth)
	}
	// 72 minutes on (the tokens renew meanwhile), the last 16 a tick every
	// 2 minutes: every kernel idle an hour reads IDLE in capitals, in the
	// table and the details, over a sparkline of the last 15 minutes.
	ms.tick(28 * time.Minute)
	ms.tick(28 * time.Minute)
	for range 8 {
		ms.tick(2 * time.Minute)
	}
	v = ms.view()
	for _, want := range []string{"IDLE 1h12m", "(last activity 17:0", "(kernels, terminals, jobs"} {
		if !strings.Contains(v, want) {
			t.Errorf("after 72 idle minutes the screen lacks %q:\n%s", want, v)
		}
	}
	// The CPU runtime's row; the T4's row, kernels and activity lines
	// (quiet since its job ended, a few minutes after the kernels).
	if strings.Count(v, "IDLE 1h") < 4 {
		t.Errorf("the two runtimes with kernels are not both IDLE:\n%s", v)
	}
	ram := ""
	for _, l := range strings.Split(v, "\n") {
		if strings.Contains(l, " ram ") {
			ram = l
		}
	}
	if !strings.ContainsAny(ram, "▁▂▃▄▅▆▇█") || strings.Count(ram, "▂") < 6 {
		t.Errorf("no 15-minute sparkline: %q", ram)
	}
	if len(ms.srv.Runtimes()) != 3 {
		t.Errorf("a runtime went: %d left", len(ms.srv.Runtimes()))
	}
}

// Faults: a 500 reads "resources unavailable: HTTP 500", and after three
// failed polls the figures are marked stale (backed off in between); a
// stock server's HTML 404 is "not offered by this runtime" and asked
// again only after 10 minutes, never with a renewal; a refused proxy
// token is renewed through get_runtime once and the poll retried.
func TestMonitorFaults(t *testing.T) {
	ms := newMonitorStack(t, 100, colabfake.Options{})
	ms.start()
	ms.tick(time.Second)
	sel := "rt-cpudemo4qx"
	if ms.m.Selected() != "runtimes/"+sel {
		t.Fatalf("selected %s", ms.m.Selected())
	}
	ms.tick(5 * time.Second) // its token was being renewed on the first tick: polled now
	ms.srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Status: 500, Body: "boom", PathPrefix: "api/colab/resources", Times: -1})
	ms.tick(5 * time.Second)
	if v := ms.view(); !strings.Contains(v, "resources unavailable: HTTP 500 (figures of") || !strings.Contains(v, "ram      1.3/12.7 GiB 10%") {
		t.Errorf("one failure:\n%s", v)
	}
	before := ms.count(sel, "api/colab/resources")
	ms.tick(5 * time.Second)
	if ms.count(sel, "api/colab/resources") != before {
		t.Errorf("polled again within the 30 s backoff")
	}
	for _, d := range []time.Duration{25 * time.Second, time.Minute} {
		ms.tick(d)
	}
	if v := ms.view(); !strings.Contains(v, "(figures stale)") || !strings.Contains(v, "rt-cpudemo4qx stale") {
		t.Errorf("after %d failures:\n%s", monitor.StaleAfter, v)
	}
	ms.srv.ClearProxyFaults()

	// A stock server: HTML 404 from Jupyter itself.
	renewals := ms.srv.CallCount("get_runtime")
	ms.srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStockNotFound, PathPrefix: "api/colab/resources", Times: -1})
	ms.tick(5 * time.Minute)
	if v := ms.view(); !strings.Contains(v, "not offered by this runtime") || !strings.Contains(v, "rt-cpudemo4qx   n/a") {
		t.Errorf("a stock server:\n%s", v)
	}
	asked := ms.count(sel, "api/colab/resources")
	for range 9 {
		ms.tick(time.Minute)
	}
	if ms.count(sel, "api/colab/resources") != asked {
		t.Errorf("resources asked again within 10 minutes of not offered")
	}
	if got := ms.srv.CallCount("get_runtime") - renewals; got > 0 {
		t.Errorf("%d get_runtime for a missing route", got)
	}
	ms.srv.ClearProxyFaults()

	// The proxy refuses the token (its bare 404 on every route: it
	// expired early): one renewal, one retry, figures again.
	ms.tick(2 * time.Minute)
	renewals = ms.srv.CallCount("get_runtime")
	ms.srv.ExpireToken("runtimes/"+sel, time.Unix(0, 0))
	ms.tick(5 * time.Second)
	if got := ms.srv.CallCount("get_runtime") - renewals; got != 1 {
		t.Errorf("%d get_runtime after a refused token, want 1", got)
	}
	m := ms.m.mon.poll.Runtime("runtimes/" + sel)
	if m == nil || m.ResourcesErr != nil || m.NotOffered {
		t.Errorf("after the renewal: %+v", m)
	}

	// Refused again a minute later (within the 10 minutes in which the
	// monitor renews no more): a failure, never "not offered by this
	// runtime (a stock Jupyter server)" nor n/a.
	ms.tick(time.Minute)
	ms.srv.ExpireToken("runtimes/"+sel, time.Unix(0, 0))
	ms.tick(5 * time.Second)
	if v := ms.view(); strings.Contains(v, "not offered") || strings.Contains(v, "rt-cpudemo4qx   n/a") {
		t.Errorf("a refused token read as a route the runtime lacks:\n%s", v)
	}
	if m := ms.m.mon.poll.Runtime("runtimes/" + sel); m == nil || m.NotOffered {
		t.Errorf("a refusal within 10 minutes of a renewal: %+v", m)
	}
}

// worstMinute is the most of perSecond's counts in any 60 s window.
func worstMinute(perSecond []int) int {
	most := 0
	for i := range perSecond {
		n := 0
		for _, c := range perSecond[i:min(i+60, len(perSecond))] {
			n += c
		}
		most = max(most, n)
	}
	return most
}

// BenchmarkMonitorPolls is the monitor's request bound: the
// dashboard with the monitor on over 1,000 runtimes, every one on screen
// (a 1,700-line terminal), whose proxies answer at once, one tick a
// simulated second for 10 minutes. It reports the most monitor requests
// (resources, kernels, terminals) in any minute ("max-req/min", at most
// 120), the most proxy requests of any kind, the jobs' listings included
// ("max-all-req/min"), the longest gap between two
// polls of the selected runtime ("selected-gap-s", 5 s) and how many
// runtimes were polled at all ("runtimes-polled").
func BenchmarkMonitorPolls(b *testing.B) {
	var most, mostAll, polled int
	var gap time.Duration
	for range b.N {
		px := polltest.New(b, polltest.Options{LastActivity: t0.Add(-time.Hour)})
		f := newFake()
		for i := range 1000 {
			id := fmt.Sprintf("r-%05d", i)
			rt := mkRuntime(id, specCPU, t0.Add(10*time.Hour), "")
			rt.ConnectionInfo.URL = px.URL(id)
			f.runtimes = append(f.runtimes, rt)
		}
		clk := &clock{t: t0}
		m := New(Options{Service: f, Now: clk.now, Location: time.UTC, NoColor: true, Monitor: apimon.New(apimon.Options{})})
		m.life.every = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
		m, _ = update(m, tea.WindowSizeMsg{Width: 160, Height: 1700})
		m = drive(b, m, m.Init())
		sel := m.Selected()
		perSecond, allPerSecond := make([]int, 0, 600), make([]int, 0, 600)
		var last time.Time
		gap = 0
		for range 600 {
			before := px.MonitorRequests()
			allBefore, _ := px.Counts()
			clk.t = clk.t.Add(time.Second)
			var cmd tea.Cmd
			m, cmd = update(m, tickMsg{gen: m.life.tickGen})
			m = drive(b, m, cmd)
			allAfter, _ := px.Counts()
			perSecond = append(perSecond, px.MonitorRequests()-before)
			allPerSecond = append(allPerSecond, allAfter-allBefore)
			if r := m.mon.poll.Runtime(sel); r != nil && r.KernelsAt.Equal(clk.t) {
				if !last.IsZero() {
					gap = max(gap, clk.t.Sub(last))
				}
				last = clk.t
			}
		}
		most, mostAll = worstMinute(perSecond), worstMinute(allPerSecond)
		_, polled = px.Counts()
		if m.Selected() != sel || last.IsZero() {
			b.Fatalf("the selected runtime %s was never polled", sel)
		}
	}
	b.ReportMetric(float64(most), "max-req/min")
	b.ReportMetric(float64(mostAll), "max-all-req/min")
	b.ReportMetric(gap.Seconds(), "selected-gap-s")
	b.ReportMetric(float64(polled), "runtimes-polled")
}

// withMonitor turns m's monitor on with figures for its first 100
// runtimes (r-00000, the selected one, with 15 minutes of polls every
// 5 s and its kernels idle 72 minutes), as BenchmarkView draws them.
func withMonitor(m Model) Model {
	m.mon = &monitorOps{cx: m.cx, opts: &m.opts, link: m.link, rt: m.rt, poll: poll.New(apimon.New(apimon.Options{}))}
	m.cx.Monitor = m.mon.poll
	m.relayout()
	st := m.mon.poll.Store()
	now := m.cx.Now()
	res := apimon.Resources{Memory: &apimon.Memory{TotalBytes: 13636500000, FreeBytes: 12000000000},
		Disks: []apimon.Disk{{Label: "kernel", TotalBytes: 100, UsedBytes: 20}},
		GPUs:  []apimon.GPU{{Name: "Tesla T4", MemoryTotalBytes: 100, MemoryUsedBytes: 10, GPUUtilization: 0.3, EverUsed: true}}}
	ks := []apimon.Kernel{{ID: "k", ExecutionState: "idle", LastActivity: now.Add(-72 * time.Minute), Connections: 1}}
	for i, r := range m.rt.Rows() {
		if i == 100 {
			break
		}
		st.RecordResources(r.Name, now, res, nil)
		st.RecordKernels(r.Name, now, ks, nil)
	}
	sel := m.rt.Selected()
	for i := range monitor.HistoryLen {
		st.RecordResources(sel, now.Add(-time.Duration(i)*monitor.HistoryStep), res, nil)
	}
	return m
}

// A kernel "starting" for over a minute with no connection (the
// emulator's stuck kernel; Colab judges such a kernel idle) reads "stuck" in the table and
// "never connected" in the details, not idle.
func TestMonitorStuckKernel(t *testing.T) {
	ms := newMonitorStack(t, 100, colabfake.Options{StuckKernel: true})
	ms.start()
	ms.m = ms.m.selectID(t, colabfake.StuckKernelRuntime)
	ms.tick(time.Second)
	ms.tick(2 * time.Minute)
	v := ms.view()
	row := ""
	for _, l := range strings.Split(v, "\n") {
		if strings.Contains(l, colabfake.StuckKernelRuntime+" ") && row == "" {
			row = l // the table's row, above the panes' titles
		}
	}
	if !strings.Contains(row, " stuck ") || !strings.Contains(v, "kernels  never connected (starting, no conn") ||
		!strings.Contains(v, "starting  last 17:00 · 0 connections") {
		t.Errorf("a kernel stuck starting:\n%s", v)
	}
}
