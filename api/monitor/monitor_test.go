package monitor

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/client/clienttest"
	"github.com/colabdash/colabdash/api/colabfake"
)

var t0 = time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC)

// env is the emulator's bed (demo seed unless the options say otherwise)
// and the headers of every proxy request.
type env struct {
	*clienttest.Bed
	t       *testing.T
	mu      sync.Mutex
	headers []http.Header
}

func newEnv(t *testing.T, o colabfake.Options) *env {
	t.Helper()
	if o.Seed == "" {
		o.Seed = colabfake.SeedDemo
	}
	e := &env{t: t, Bed: clienttest.NewBed(t, t0, o)}
	e.SetOnProxy(func(r *http.Request) {
		e.mu.Lock()
		e.headers = append(e.headers, r.Header.Clone())
		e.mu.Unlock()
	})
	return e
}

// info returns runtime id's current connectionInfo.
func (e *env) info(id string) api.ConnectionInfo {
	e.t.Helper()
	for _, rt := range e.Srv.Runtimes() {
		if rt.Name == "runtimes/"+id && rt.ConnectionInfo != nil {
			return *rt.ConnectionInfo
		}
	}
	e.t.Fatalf("no runtime %s", id)
	return api.ConnectionInfo{}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// The emulator's T4 runtime, read as colabdash reads it: the XSSI guard
// stripped, RAM, the `kernel` disk and a Tesla T4; the request carries
// the proxy token and the client agent, and no Authorization.
func TestResourcesFromEmulator(t *testing.T) {
	e := newEnv(t, colabfake.Options{})
	c := New(Options{})
	r, err := c.Resources(ctx(t), e.info("rt-t4demo7k2p"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Memory == nil || r.Memory.TotalBytes != 13_605_834_752 || r.Memory.UsedBytes() != 1<<30+600<<20 {
		t.Errorf("memory %+v", r.Memory)
	}
	if len(r.Disks) != 1 || r.Disks[0].Label != "kernel" || r.Disks[0].Name() != "" || r.Disks[0].TotalBytes != 115_658_190_848 {
		t.Errorf("disks %+v", r.Disks)
	}
	if len(r.GPUs) != 1 || r.GPUs[0].Name != "Tesla T4" || r.GPUs[0].MemoryTotalBytes != 15<<30 || r.GPUs[0].EverUsed {
		t.Errorf("gpus %+v", r.GPUs)
	}
	e.mu.Lock()
	h := e.headers[len(e.headers)-1]
	e.mu.Unlock()
	if h.Get(TokenHeader) != e.info("rt-t4demo7k2p").Token || h.Get(AgentHeader) != Agent || h.Get("Authorization") != "" {
		t.Errorf("request headers %v", h)
	}
	// The same figures with the guard from a front end, and without one.
	for _, o := range []colabfake.Options{{XSSI: true}, {ResourcesNoXSSI: true}} {
		e := newEnv(t, o)
		r2, err := c.Resources(ctx(t), e.info("rt-t4demo7k2p"))
		if err != nil || *r2.Memory != *r.Memory || r2.Disks[0] != r.Disks[0] {
			t.Errorf("%+v: %+v, %v", o, r2, err)
		}
	}
}

// Faults of the resources route, each with the class a poller acts on.
func TestResourcesFaults(t *testing.T) {
	e := newEnv(t, colabfake.Options{ResourcesNoXSSI: true})
	// Only the slow reply meets the short timeout: on a busy machine a
	// 2 MiB reply can take longer than 300 ms to arrive.
	quick, patient := New(Options{Timeout: 300 * time.Millisecond}), New(Options{Timeout: time.Minute})
	ci := e.info("rt-cpudemo4qx")
	for _, tc := range []struct {
		name  string
		fault colabfake.ProxyFault
		want  error
		text  string
	}{
		{"500", colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Status: 500, Body: "oops"}, ErrUnavailable, "resources unavailable: HTTP 500"},
		{"502 html", colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Status: 502, Body: "<html>bad gateway</html>", ContentType: "text/html"}, ErrUnavailable, "HTTP 502"},
		{"stock server", colabfake.ProxyFault{Kind: colabfake.ProxyStockNotFound}, ErrNotOffered, "resources not offered by this runtime"},
		{"jupyter json 404", colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Status: 404, Body: `{"message":"Not Found","reason":null}`, ContentType: "application/json"}, ErrNotOffered, "not offered"},
		{"proxy bare 404", colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Status: 404}, ErrTokenRefused, "refused the token"},
		{"partial body", colabfake.ProxyFault{Kind: colabfake.ProxyCut, After: 20}, ErrUnavailable, "resources unavailable"},
		{"slow", colabfake.ProxyFault{Kind: colabfake.ProxyDelay, Delay: 10 * time.Second}, ErrUnavailable, "no reply within 300ms"},
		{"not json", colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Status: 200, Body: "<html>login</html>", ContentType: "text/html"}, ErrUnavailable, "not the expected JSON"},
		{"no disks", colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Status: 200, Body: "{}", ContentType: "application/json"}, ErrUnavailable, "no disks"},
		{"oversized", colabfake.ProxyFault{Kind: colabfake.ProxyOverlong, After: 2 << 20}, ErrUnavailable, "larger than 1 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.fault.PathPrefix = ResourcesPath
			e.Srv.InjectProxy(tc.fault)
			c := patient
			if tc.fault.Kind == colabfake.ProxyDelay {
				c = quick
			}
			start := time.Now()
			_, err := c.Resources(ctx(t), ci)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("err %v, want %v containing %q", err, tc.want, tc.text)
			}
			if c == quick && time.Since(start) >= tc.fault.Delay {
				t.Errorf("waited out the whole %s delay: the timeout did not end the call", tc.fault.Delay)
			}
			if e.Srv.PendingProxyFaults() != 0 {
				t.Errorf("the fault was not met")
			}
		})
	}
	// Fields left out: {"disks":[{}]} is one empty disk, no memory, no GPU.
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Status: 200, Body: `{"disks":[{}]}`, ContentType: "application/json", PathPrefix: ResourcesPath})
	r, err := patient.Resources(ctx(t), ci)
	if err != nil || r.Memory != nil || len(r.Disks) != 1 || r.Disks[0] != (Disk{}) || r.GPUs != nil {
		t.Errorf("sparse reply: %+v, %v", r, err)
	}
	// Out-of-range utilizations are clamped to 0–1.
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Status: 200, ContentType: "application/json", PathPrefix: ResourcesPath,
		Body: `{"disks":[],"gpus":[{"name":"x","gpuUtilization":15,"memoryUtilization":-1,"memoryUsedBytes":-5}]}`})
	r, err = patient.Resources(ctx(t), ci)
	if err != nil || len(r.GPUs) != 1 || r.GPUs[0].GPUUtilization != 1 || r.GPUs[0].MemoryUtilization != 0 || r.GPUs[0].MemoryUsedBytes != 0 {
		t.Errorf("clamped: %+v, %v", r, err)
	}
}

// An expired token gets the proxy's bare 404 (ErrTokenRefused, no
// renewal by the client); WithRenewal renews once and succeeds with the
// fresh token; a 404 that persists after the fresh token is still a
// refusal (never "not offered", never a second renewal); a stock
// server's 404 is "not offered" without any renewal.
func TestRenewOnceThenNotOffered(t *testing.T) {
	e := newEnv(t, colabfake.Options{})
	c := New(Options{})
	id := "rt-t4demo7k2p"
	old := e.info(id)
	e.Srv.ExpireToken("runtimes/"+id, t0.Add(-time.Second))
	if _, err := c.Resources(ctx(t), old); !errors.Is(err, ErrTokenRefused) {
		t.Fatalf("expired token: %v", err)
	}
	renewals := 0
	renew := func(cx context.Context) (api.ConnectionInfo, error) {
		renewals++
		return e.Renewer("runtimes/" + id)(cx)
	}
	r, ci, err := WithRenewal(ctx(t), old, renew, c.Resources)
	if err != nil || renewals != 1 || ci.Token == old.Token || len(r.Disks) != 1 {
		t.Fatalf("after renewal: %+v, %v (%d renewals)", r, err, renewals)
	}
	// A proxy-style 404 twice: renewed once, then still refused.
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Status: 404, PathPrefix: ResourcesPath, Times: 2})
	renewals = 0
	_, ci, err = WithRenewal(ctx(t), ci, renew, c.Resources)
	if !errors.Is(err, ErrTokenRefused) || errors.Is(err, ErrNotOffered) || renewals != 1 {
		t.Fatalf("persisting 404: %v (%d renewals)", err, renewals)
	}
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStockNotFound, PathPrefix: ResourcesPath})
	renewals = 0
	if _, _, err = WithRenewal(ctx(t), ci, renew, c.Resources); !errors.Is(err, ErrNotOffered) || renewals != 0 {
		t.Fatalf("stock 404: %v (%d renewals)", err, renewals)
	}
	// A renewal that fails is returned as it is.
	e.Srv.Reclaim(id)
	if _, _, err := WithRenewal(ctx(t), ci, renew, c.Resources); !errors.Is(err, &api.Error{Code: api.NotFound}) {
		t.Errorf("renewal of a reclaimed runtime: %v", err)
	}
}

// The token is never sent in clear to a non-loopback host, nor after a
// redirect to another origin.
func TestTokenStaysWithItsOrigin(t *testing.T) {
	c := New(Options{})
	_, err := c.Resources(ctx(t), api.ConnectionInfo{URL: "http://10.0.0.5:8080/proxy/x/", Token: "SECRET"})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "unencrypted") || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("plain http to another host: %v", err)
	}
	var leaked string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { leaked = r.Header.Get(TokenHeader) }))
	defer other.Close()
	redir := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/x", http.StatusFound)
	}))
	defer redir.Close()
	_, err = c.Kernels(ctx(t), api.ConnectionInfo{URL: redir.URL + "/", Token: "SECRET"})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "redirect") || leaked != "" {
		t.Errorf("cross-origin redirect: %v (the other origin got %q)", err, leaked)
	}
}

// Kernels and sessions from the emulator: the demo's idle kernels with
// last_activity at their start, and a kernel stuck in "starting".
func TestKernelsFromEmulator(t *testing.T) {
	e := newEnv(t, colabfake.Options{StuckKernel: true})
	c := New(Options{})
	ks, err := c.Kernels(ctx(t), e.info("rt-t4demo7k2p"))
	if err != nil || len(ks) != 2 {
		t.Fatalf("%+v, %v", ks, err)
	}
	if k := ks[0]; k.ExecutionState != "idle" || !k.LastActivity.Equal(t0) || k.Connections != 0 || k.Name != "python3" ||
		k.ID != e.Srv.KernelID("runtimes/rt-t4demo7k2p/sessions/notebook-ab12cd34") {
		t.Errorf("kernel %+v", k)
	}
	ss, err := c.Sessions(ctx(t), e.info("rt-t4demo7k2p"))
	if err != nil || len(ss) != 2 || ss[0].Kernel.ID != ks[0].ID || ss[0].Path != "notebook-ab12cd34" {
		t.Errorf("sessions %+v, %v", ss, err)
	}
	ks, err = c.Kernels(ctx(t), e.info(colabfake.StuckKernelRuntime))
	if err != nil || len(ks) != 1 || ks[0].ExecutionState != "starting" || ks[0].Connections != 0 {
		t.Errorf("stuck kernel %+v, %v", ks, err)
	}
}
