package ops

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/state/monitor"
)

func proxyRequests(srv *colabfake.Server) int { n, _ := srv.ProxyRequests(); return n }

// refuse makes the proxy answer a bare 404 (a refused token) on path,
// times times (negative: forever).
func refuse(srv *colabfake.Server, path string, times int) {
	srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Status: 404, PathPrefix: path, Times: times})
}

func TestReadAsksWhatThePollNames(t *testing.T) {
	srv, _ := emulator(t, colabfake.Options{})
	rt := firstRuntime(t, srv)
	c := apimon.New(apimon.Options{})
	ctx := context.Background()
	before := proxyRequests(srv)
	r := Read(ctx, c, *rt.ConnectionInfo, true, true)
	if r.ResErr != nil || r.KerErr != nil || len(r.Resources.Disks) == 0 || r.Kernels == nil {
		t.Fatalf("a full poll: %+v", r)
	}
	if n := proxyRequests(srv) - before; n != 2 {
		t.Errorf("a full poll sent %d requests, want 2", n)
	}
	before = proxyRequests(srv)
	if r := Read(ctx, c, *rt.ConnectionInfo, false, true); r.Resources.Disks != nil || r.ResErr != nil || r.Kernels == nil {
		t.Errorf("a kernels-only poll: %+v", r)
	}
	if r := Read(ctx, c, *rt.ConnectionInfo, true, false); r.Kernels != nil || r.KerErr != nil || r.ResErr != nil {
		t.Errorf("a resources-only poll: %+v", r)
	}
	if n := proxyRequests(srv) - before; n != 2 {
		t.Errorf("two one-part polls sent %d requests, want 2", n)
	}
	refuse(srv, apimon.ResourcesPath, 1)
	before = proxyRequests(srv)
	r = Read(ctx, c, *rt.ConnectionInfo, true, true)
	if !errors.Is(r.ResErr, apimon.ErrTokenRefused) || r.Kernels == nil || r.KerErr != nil {
		t.Errorf("resources refused: %+v, want the kernels asked all the same", r)
	}
	if n := proxyRequests(srv) - before; n != 2 {
		t.Errorf("a poll with the resources refused sent %d requests, want 2", n)
	}
	refuse(srv, apimon.KernelsPath, 1)
	if r := Read(ctx, c, *rt.ConnectionInfo, true, true); r.ResErr != nil || !errors.Is(r.KerErr, apimon.ErrTokenRefused) {
		t.Errorf("kernels refused: %+v", r)
	}
}

func TestPersistingAndAbsent(t *testing.T) {
	refused := &apimon.Error{Op: "kernels", Kind: apimon.KindTokenRefused, Status: 404, Message: "the runtime proxy answered 404"}
	got := Persisting(refused)
	var e *apimon.Error
	if !errors.As(got, &e) || e.Kind != apimon.KindUnavailable || e.Op != "kernels" || e.Status != 404 || !strings.Contains(e.Message, "refuses the proxy token") {
		t.Errorf("Persisting(refused) = %#v", got)
	}
	if refused.Kind != apimon.KindTokenRefused {
		t.Error("Persisting changed the error it was given")
	}
	other := &apimon.Error{Op: "resources", Kind: apimon.KindUnavailable, Message: "HTTP 500"}
	if got := Persisting(other); got != other {
		t.Errorf("Persisting changed a failure that is no refusal: %v", got)
	}
	plain := errors.New("plain")
	if Persisting(plain) != plain || Persisting(nil) != nil {
		t.Error("Persisting changed a non-monitor error or nil")
	}
	res := &apimon.Error{Op: "resources", Kind: apimon.KindTokenRefused, Status: 404, Message: "the runtime proxy answered 404"}
	if got := Absent(res, nil); !errors.Is(got, apimon.ErrNotOffered) {
		t.Errorf("resources refused, kernels taken: %v, want not offered", got)
	}
	if got := Absent(res, refused); got != res {
		t.Errorf("resources and kernels refused: %v, want the refusal as it is", got)
	}
	if got := Absent(other, nil); got != other {
		t.Errorf("Absent changed a failure that is no refusal: %v", got)
	}
}

// clock is a probe's clock the test moves.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newTestProber(t *testing.T, o colabfake.Options) (*colabfake.Server, *Prober, api.Runtime, *clock) {
	srv, svc := emulator(t, o)
	return srv, NewProber(svc, apimon.New(apimon.Options{}), nil), firstRuntime(t, srv), &clock{t: time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)}
}

func TestProberRecordsResourcesAndKernels(t *testing.T) {
	srv, p, rt, clk := newTestProber(t, colabfake.Options{})
	p.Probe(context.Background(), rt, clk.now)
	m := p.Runtime(rt.Name)
	if m == nil || m.ResourcesErr != nil || m.KernelsErr != nil || len(m.Resources.Disks) == 0 || !m.ResourcesAt.Equal(clk.t) || !m.KernelsAt.Equal(clk.t) {
		t.Fatalf("after a probe: %+v", m)
	}
	if e := p.ProbeError(rt.Name); e != "" {
		t.Errorf("probe error %q", e)
	}
	if srv.CallCount(api.ToolGetRuntime) != 0 {
		t.Error("a listed token was renewed without a refusal")
	}
	p.Retain(func(string) bool { return false })
	if p.Runtime(rt.Name) != nil {
		t.Error("Retain kept a runtime it was told to forget")
	}
}

func TestProberRenewsOnceEveryRenewEvery(t *testing.T) {
	srv, p, rt, clk := newTestProber(t, colabfake.Options{})
	ctx := context.Background()
	refuse(srv, apimon.KernelsPath, -1) // a kernels route the proxy never lets through
	p.Probe(ctx, rt, clk.now)
	if n := srv.CallCount(api.ToolGetRuntime); n != 1 {
		t.Fatalf("first refusal: %d get_runtime calls, want 1 renewal", n)
	}
	m := p.Runtime(rt.Name)
	var e *apimon.Error
	if m.ResourcesErr != nil || !errors.As(m.KernelsErr, &e) || e.Kind != apimon.KindUnavailable || !strings.Contains(e.Message, "refuses the proxy token") {
		t.Errorf("after a 404 that persists past the renewal: resources %v, kernels %v, want a failure", m.ResourcesErr, m.KernelsErr)
	}
	clk.t = clk.t.Add(monitor.RenewEvery - time.Second)
	p.Probe(ctx, rt, clk.now)
	if n := srv.CallCount(api.ToolGetRuntime); n != 1 {
		t.Errorf("a refusal within RenewEvery renewed again (%d get_runtime calls)", n)
	}
	m = p.Runtime(rt.Name)
	if !errors.As(m.KernelsErr, &e) || e.Kind != apimon.KindUnavailable || !strings.Contains(e.Message, "refuses the proxy token") {
		t.Errorf("a refusal within RenewEvery: kernels %v, want a persisting failure", m.KernelsErr)
	}
	clk.t = clk.t.Add(time.Second)
	p.Probe(ctx, rt, clk.now)
	if n := srv.CallCount(api.ToolGetRuntime); n != 2 {
		t.Errorf("RenewEvery after the renewal: %d get_runtime calls, want a second renewal", n)
	}
}

// withStaleToken is rt as listed with a proxy token the proxy no longer
// takes.
func withStaleToken(rt api.Runtime) api.Runtime {
	ci := *rt.ConnectionInfo
	ci.Token = "stale-token"
	rt.ConnectionInfo = &ci
	return rt
}

func TestProberRenewedTokenServesBothRoutes(t *testing.T) {
	srv, p, rt, clk := newTestProber(t, colabfake.Options{})
	stale := withStaleToken(rt)
	p.Probe(context.Background(), stale, clk.now)
	m := p.Runtime(rt.Name)
	if m == nil || m.ResourcesErr != nil || m.KernelsErr != nil {
		t.Fatalf("a stale listed token: %+v, want both read after one renewal", m)
	}
	if n := srv.CallCount(api.ToolGetRuntime); n != 1 {
		t.Errorf("%d get_runtime calls, want 1", n)
	}
	// The next probe with the same stale listing uses the renewed token.
	p.Probe(context.Background(), stale, clk.now)
	if n := srv.CallCount(api.ToolGetRuntime); n != 1 {
		t.Errorf("the renewed token was not kept: %d get_runtime calls", n)
	}
	if m := p.Runtime(rt.Name); m.KernelsErr != nil {
		t.Errorf("second probe: kernels %v", m.KernelsErr)
	}
}

func TestProberRechecksNotOfferedResourcesRarely(t *testing.T) {
	srv, p, rt, clk := newTestProber(t, colabfake.Options{NoColabExtensions: true})
	ctx := context.Background()
	p.Probe(ctx, rt, clk.now)
	if m := p.Runtime(rt.Name); !errors.Is(m.ResourcesErr, apimon.ErrNotOffered) || m.KernelsErr != nil {
		t.Fatalf("a stock server: resources %v, kernels %v", m.ResourcesErr, m.KernelsErr)
	}
	before := proxyRequests(srv)
	clk.t = clk.t.Add(monitor.NotOfferedRecheck - time.Second)
	p.Probe(ctx, rt, clk.now)
	if n := proxyRequests(srv) - before; n != 2 {
		t.Errorf("within the recheck time a probe sent %d requests, want 2 (kernels and terminals only)", n)
	}
	before = proxyRequests(srv)
	clk.t = clk.t.Add(time.Second)
	p.Probe(ctx, rt, clk.now)
	if n := proxyRequests(srv) - before; n != 3 {
		t.Errorf("after the recheck time a probe sent %d requests, want 3", n)
	}
	if srv.CallCount(api.ToolGetRuntime) != 0 {
		t.Error("a route not offered renewed the token")
	}
}

func TestProberSaysWhyARuntimeCannotBeProbed(t *testing.T) {
	srv, svc := emulator(t, colabfake.Options{})
	p := NewProber(svc, apimon.New(apimon.Options{}), func(err error) string { return "explained: " + err.Error() })
	clk := &clock{t: time.Now()}
	rt := firstRuntime(t, srv)
	noconn, err := srv.AddRuntime(api.Runtime{Name: "runtimes/rt-noconn"})
	if err != nil {
		t.Fatal(err)
	}
	p.Probe(context.Background(), noconn, clk.now)
	if e := p.ProbeError(noconn.Name); !strings.Contains(e, "no connection yet") {
		t.Errorf("no connectionInfo: probe error %q", e)
	}
	gone := api.Runtime{Name: "runtimes/rt-gone"}
	p.Probe(context.Background(), gone, clk.now)
	if e := p.ProbeError(gone.Name); !strings.HasPrefix(e, "explained: ") {
		t.Errorf("get_runtime failing: probe error %q, want the caller's explanation", e)
	}
	// A refused token whose renewal fails: the renewal's error, explained.
	ci := *rt.ConnectionInfo
	ci.Token = "stale-token"
	rt.ConnectionInfo = &ci
	srv.Inject(colabfake.Fault{Kind: colabfake.FaultJSONRPCError, Tool: api.ToolGetRuntime, RPCCode: -32603, Message: "boom", Times: -1})
	p.Probe(context.Background(), rt, clk.now)
	if e := p.ProbeError(rt.Name); !strings.HasPrefix(e, "explained: ") {
		t.Errorf("renewal failing: probe error %q, want the caller's explanation", e)
	}
	if m := p.Runtime(rt.Name); m != nil && m.ResourcesErr == nil && len(m.Resources.Disks) > 0 {
		t.Error("figures were recorded though the token was refused")
	}
}

// A probe renews a runtime's token once at most: the resources refused
// the listed token and were read with a renewed one; the kernels, which
// the proxy refuses even so, are a persisting failure, not a second
// renewal in the same round.
func TestProberRenewsOncePerProbe(t *testing.T) {
	srv, p, rt, clk := newTestProber(t, colabfake.Options{})
	stale := withStaleToken(rt)
	refuse(srv, apimon.KernelsPath, -1)
	p.Probe(context.Background(), stale, clk.now)
	if n := srv.CallCount(api.ToolGetRuntime); n != 1 {
		t.Errorf("one probe renewed the token %d times, want once", n)
	}
	m := p.Runtime(rt.Name)
	var e *apimon.Error
	if m == nil || m.ResourcesErr != nil || len(m.Resources.Disks) == 0 {
		t.Fatalf("the resources with the renewed token: %+v", m)
	}
	if !errors.As(m.KernelsErr, &e) || e.Kind != apimon.KindUnavailable || !strings.Contains(e.Message, "refuses the proxy token") {
		t.Errorf("kernels %v, want a 404 that persists after the renewal", m.KernelsErr)
	}
}

// A token refused again within RenewEvery of a renewal (another process
// renewed it, or it was revoked) is a failure for both routes, never
// "not offered by this runtime", and renews nothing.
func TestProberRefusalWithinRenewEveryIsNeverNotOffered(t *testing.T) {
	srv, p, rt, clk := newTestProber(t, colabfake.Options{})
	ctx := context.Background()
	p.Probe(ctx, withStaleToken(rt), clk.now)
	if n := srv.CallCount(api.ToolGetRuntime); n != 1 {
		t.Fatalf("a stale token: %d get_runtime calls, want 1", n)
	}
	refuse(srv, "", 2) // the next resources and kernels requests: a bare 404
	clk.t = clk.t.Add(time.Minute)
	p.Probe(ctx, rt, clk.now)
	m := p.Runtime(rt.Name)
	if m.NotOffered || errors.Is(m.ResourcesErr, apimon.ErrNotOffered) || !errors.Is(m.ResourcesErr, apimon.ErrUnavailable) || !errors.Is(m.KernelsErr, apimon.ErrUnavailable) {
		t.Errorf("a refusal a minute after a renewal: resources %v (not offered %v), kernels %v; want both failed", m.ResourcesErr, m.NotOffered, m.KernelsErr)
	}
	if n := srv.CallCount(api.ToolGetRuntime); n != 1 {
		t.Errorf("a refusal within RenewEvery renewed again (%d get_runtime calls)", n)
	}
}

// A resources route the proxy answers with its bare 404 for a token it
// takes for the kernels is "not offered" at once, without a renewal.
func TestProberResourcesRefusedAloneAreNotOffered(t *testing.T) {
	srv, p, rt, clk := newTestProber(t, colabfake.Options{})
	refuse(srv, apimon.ResourcesPath, -1)
	p.Probe(context.Background(), rt, clk.now)
	m := p.Runtime(rt.Name)
	if !m.NotOffered || m.KernelsErr != nil {
		t.Errorf("resources %v (not offered %v), kernels %v; want not offered, kernels read", m.ResourcesErr, m.NotOffered, m.KernelsErr)
	}
	if n := srv.CallCount(api.ToolGetRuntime); n != 0 {
		t.Errorf("%d get_runtime calls for a route the runtime lacks, want none", n)
	}
}
