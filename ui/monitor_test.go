package ui

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/state/monitor"
)

// monitorStack is the dashboard with the monitor on against the demo
// emulator (its clock the test's), counting the proxy requests by path.
type monitorStack struct {
	*stack
	mu   sync.Mutex
	reqs map[string]int
	auth int // requests that carried an Authorization header
}

func newMonitorStack(t *testing.T, width int, emu colabfake.Options) *monitorStack {
	ms := &monitorStack{reqs: map[string]int{}}
	if emu.Seed == "" {
		emu.Seed = colabfake.SeedDemo
	}
	emu.OnProxyRequest = func(r *http.Request) {
		ms.mu.Lock()
		defer ms.mu.Unlock()
		ms.reqs[r.URL.Path]++
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
	ms.tick(5 * time.Second)
	v := ms.view()
	for _, want := range []string{"RAM   GPU   ACTIVITY   SPEC", "rt-t4demo7k2p ▂ 13% ▁  0% idle 0:00", "rt-cpudemo4qx ▂ 10%     – idle 0:00",
		"kernels  0 busy 2 idle · idle 0:00", "gpu      Tesla T4 · never used", "ram      1.6/12.7 GiB 13%"} {
		if !strings.Contains(v, want) {
			t.Errorf("screen lacks %q:\n%s", want, v)
		}
	}
	if ms.count("rt-t4demo7k2p", "api/colab/resources") != 2 || ms.count("rt-v6edemo2mw", "api/kernels") != 1 {
		t.Errorf("requests: %v", ms.reqs)
	}
	if ms.auth != 0 {
		t.Errorf("%d proxy requests carried an Authorization header", ms.auth)
	}
	// 72 minutes on (the tokens renew meanwhile), the last 15 a tick a
	// minute: every kernel idle an hour reads IDLE in capitals, in the
	// table and the details, over a sparkline of the last 15 minutes.
	for range 3 {
		ms.tick(19 * time.Minute)
	}
	for range 15 {
		ms.tick(time.Minute)
	}
	v = ms.view()
	for _, want := range []string{"IDLE 1:12", "(last activity 17:00)"} {
		if !strings.Contains(v, want) {
			t.Errorf("after 72 idle minutes the screen lacks %q:\n%s", want, v)
		}
	}
	if strings.Count(v, "IDLE 1:12") < 3 {
		t.Errorf("the two runtimes with kernels are not both IDLE:\n%s", v)
	}
	ram := ""
	for _, l := range strings.Split(v, "\n") {
		if strings.Contains(l, " ram ") {
			ram = l
		}
	}
	if !strings.ContainsAny(ram, "▁▂▃▄▅▆▇█") || strings.Count(ram, "▂") < 12 {
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

	// The proxy refuses the token once (a bare 404): one renewal, one
	// retry, figures again.
	ms.tick(2 * time.Minute)
	renewals = ms.srv.CallCount("get_runtime")
	ms.srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Status: 404, PathPrefix: "api/colab/resources"})
	ms.tick(5 * time.Second)
	if got := ms.srv.CallCount("get_runtime") - renewals; got != 1 {
		t.Errorf("%d get_runtime after a refused token, want 1", got)
	}
	m := ms.m.mon.Runtime("runtimes/" + sel)
	if m == nil || m.ResourcesErr != nil || m.NotOffered {
		t.Errorf("after the renewal: %+v", m)
	}
}
