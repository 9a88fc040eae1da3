package colabfake

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake/runtimeproxy"
	"github.com/colabdash/colabdash/api/monitor"
)

// resources is api/colab/resources' reply as colab-vscode's schema has it.
type resources struct {
	Memory *struct {
		TotalBytes int64 `json:"totalBytes"`
		FreeBytes  int64 `json:"freeBytes"`
	} `json:"memory"`
	Disks []struct {
		Filesystem struct {
			Label      string `json:"label"`
			TotalBytes int64  `json:"totalBytes"`
			UsedBytes  int64  `json:"usedBytes"`
		} `json:"filesystem"`
	} `json:"disks"`
	// GPUs have api/monitor's wire shape, which `top --json` prints.
	GPUs []monitor.GPU `json:"gpus"`
}

// getResources GETs runtime rt's api/colab/resources and decodes it,
// checking the XSSI guard comes first.
func getResources(t *testing.T, rt api.Runtime) resources {
	t.Helper()
	st, body := proxyGet(t, rt, "api/colab/resources")
	if st != http.StatusOK {
		t.Fatalf("GET api/colab/resources: HTTP %d %q", st, body)
	}
	rest, ok := strings.CutPrefix(body, ")]}'\n")
	if !ok {
		t.Fatalf("reply without the XSSI guard: %q", body)
	}
	var r resources
	if err := json.Unmarshal([]byte(rest), &r); err != nil {
		t.Fatalf("reply %q: %v", body, err)
	}
	return r
}

type jupyterKernel struct {
	ID             string `json:"id"`
	LastActivity   string `json:"last_activity"`
	ExecutionState string `json:"execution_state"`
	Connections    int    `json:"connections"`
}

func getKernels(t *testing.T, rt api.Runtime) []jupyterKernel {
	t.Helper()
	st, body := proxyGet(t, rt, "api/kernels")
	if st != http.StatusOK {
		t.Fatalf("GET api/kernels: HTTP %d %q", st, body)
	}
	var ks []jupyterKernel
	if err := json.Unmarshal([]byte(body), &ks); err != nil {
		t.Fatalf("api/kernels %q: %v", body, err)
	}
	return ks
}

func runtimeByID(t *testing.T, s *Server, id string) api.Runtime {
	t.Helper()
	for _, rt := range s.Runtimes() {
		if rt.Name == "runtimes/"+id {
			return rt
		}
	}
	t.Fatalf("no runtime %s", id)
	return api.Runtime{}
}

// waitFor polls cond every few milliseconds for up to 30 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// The resource figures are fixed per runtime spec (golden-testable),
// behind the proxy token and Colab's XSSI guard: a T4 runtime has 12.7 GiB
// of RAM, the 107.7 GiB `kernel` disk and one Tesla T4 of 15 GiB never
// used; a CPU runtime has no GPU; a TPU none either; the disk grows with
// the runtime's files.
func TestResourcesPerSpec(t *testing.T) {
	dir := t.TempDir()
	s, _, _ := start(t, Options{Seed: SeedDemo, FilesDir: dir})
	t4 := runtimeByID(t, s, "rt-t4demo7k2p")
	r := getResources(t, t4)
	if r.Memory == nil || r.Memory.TotalBytes != 13_605_834_752 {
		t.Fatalf("T4 memory %+v, want 13,605,834,752 total", r.Memory)
	}
	// 1 GiB plus 300 MiB for each of its two notebook sessions.
	if used := r.Memory.TotalBytes - r.Memory.FreeBytes; used != 1<<30+2*300<<20 {
		t.Errorf("T4 memory used %d", used)
	}
	if len(r.Disks) != 1 || r.Disks[0].Filesystem.Label != "kernel" || r.Disks[0].Filesystem.TotalBytes != 115_658_190_848 {
		t.Fatalf("disks %+v", r.Disks)
	}
	if len(r.GPUs) != 1 || r.GPUs[0].Name != "Tesla T4" || r.GPUs[0].MemoryTotalBytes != 15<<30 ||
		r.GPUs[0].EverUsed || r.GPUs[0].GPUUtilization != 0 || r.GPUs[0].MemoryUsedBytes != 0 {
		t.Fatalf("T4 gpus %+v", r.GPUs)
	}
	if again := getResources(t, t4); again.Memory.FreeBytes != r.Memory.FreeBytes || again.Disks[0] != r.Disks[0] {
		t.Errorf("figures moved between two polls of an idle runtime: %+v then %+v", r, again)
	}

	cpu := runtimeByID(t, s, "rt-cpudemo4qx")
	if r := getResources(t, cpu); len(r.GPUs) != 0 || r.Memory.TotalBytes != 13_605_834_752 {
		t.Errorf("CPU runtime: %+v", r)
	}
	before := getResources(t, cpu).Disks[0].Filesystem.UsedBytes
	if err := os.WriteFile(filepath.Join(dir, "rt-cpudemo4qx", "content", "big.bin"), make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	if after := getResources(t, cpu).Disks[0].Filesystem.UsedBytes; after != before+1<<20 {
		t.Errorf("disk used %d after writing 1 MiB, was %d", after, before)
	}

	for key, want := range map[api.RuntimeSpecKey]struct {
		gpu string
		mem int64
	}{
		spec(api.VariantGPU, "L4", api.ShapeStandard):   {"NVIDIA L4", 22<<30 + 1<<29},
		spec(api.VariantGPU, "A100", api.ShapeStandard): {"NVIDIA A100-SXM4-40GB", 40 << 30},
		spec(api.VariantTPU, "V6E1", api.ShapeStandard): {},
	} {
		rt := mustAdd(t, s, api.Runtime{Name: "runtimes/rt-" + strings.ToLower(key.Accelerator), RuntimeSpec: key, ConnectionInfo: &api.ConnectionInfo{}})
		r := getResources(t, rt)
		switch {
		case want.gpu == "" && len(r.GPUs) != 0:
			t.Errorf("%s: gpus %+v, want none", key, r.GPUs)
		case want.gpu != "" && (len(r.GPUs) != 1 || r.GPUs[0].Name != want.gpu || r.GPUs[0].MemoryTotalBytes != want.mem):
			t.Errorf("%s: gpus %+v, want %s with %d bytes", key, r.GPUs, want.gpu, want.mem)
		}
	}

	// The token check comes first: a wrong token gets the proxy's bare 404.
	bad := t4
	ci := *bad.ConnectionInfo
	ci.Token = "wrong"
	bad.ConnectionInfo = &ci
	if st, body := proxyGet(t, bad, "api/colab/resources"); st != http.StatusNotFound || body != "" {
		t.Errorf("wrong token: HTTP %d %q, want 404 with an empty body", st, body)
	}
}

// While emulated code that uses the GPU runs, the kernel is busy with
// last_activity frozen at the run's start, the GPU is
// utilised and everUsed turns true; after the run (interrupted here), the
// kernel is idle with last_activity at the run's end and the GPU idle but
// still "ever used".
func TestKernelActivityAndGPUFollowRuns(t *testing.T) {
	s, cs, clk := startConnect(t, Options{Seed: SeedDemo})
	rt := runtimeByID(t, s, "rt-t4demo7k2p")
	sess := "runtimes/rt-t4demo7k2p/sessions/notebook-ab12cd34"
	kid := s.KernelID(sess)
	ks := getKernels(t, rt)
	if len(ks) != 2 || ks[0].ID != kid || ks[0].ExecutionState != "idle" || ks[0].Connections != 0 ||
		ks[0].LastActivity != "2026-11-29T18:00:00.000000Z" {
		t.Fatalf("kernels before a run: %+v", ks)
	}
	done := make(chan error, 1)
	go func() {
		_, err := callErr(cs, "execute_code", map[string]any{"session": sess, "code": "x = torch.ones(1).cuda()\ntime.sleep(3600)", "executionId": uuid.NewString()})
		done <- err
	}()
	waitFor(t, "the kernel to be busy", func() bool { return getKernels(t, rt)[0].ExecutionState == "busy" })
	clk.Advance(10 * time.Minute)
	k := getKernels(t, rt)[0]
	if k.LastActivity != "2026-11-29T18:00:00.000000Z" {
		t.Errorf("last_activity %s moved during a silent run", k.LastActivity)
	}
	if other := getKernels(t, rt)[1]; other.ExecutionState != "idle" {
		t.Errorf("the other session's kernel is %s", other.ExecutionState)
	}
	r := getResources(t, rt)
	if g := r.GPUs[0]; !g.EverUsed || g.GPUUtilization != runtimeproxy.GPUBusyUtilization || g.MemoryUsedBytes != 6<<30 {
		t.Errorf("GPU during a cuda run: %+v", g)
	}
	if used := r.Memory.TotalBytes - r.Memory.FreeBytes; used != 1<<30+2*300<<20+512<<20 {
		t.Errorf("memory used during a run %d", used)
	}
	var ss []struct {
		Kernel jupyterKernel `json:"kernel"`
	}
	_, body := proxyGet(t, rt, "api/sessions")
	if err := json.Unmarshal([]byte(body), &ss); err != nil || len(ss) != 2 || ss[0].Kernel.ExecutionState != "busy" {
		t.Errorf("api/sessions during the run: %s (%v)", body, err)
	}

	req, _ := http.NewRequest(http.MethodPost, rt.ConnectionInfo.URL+"api/kernels/"+kid+"/interrupt", nil)
	req.Header.Set(runtimeproxy.TokenHeader, rt.ConnectionInfo.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the interrupt did not end the run")
	}
	st, body := proxyGet(t, rt, "api/kernels/"+kid)
	var one jupyterKernel
	if st != http.StatusOK || json.Unmarshal([]byte(body), &one) != nil || one.ExecutionState != "idle" ||
		one.LastActivity != "2026-11-29T18:10:00.000000Z" {
		t.Errorf("GET api/kernels/{id} after the run: HTTP %d %s", st, body)
	}
	if g := getResources(t, rt).GPUs[0]; !g.EverUsed || g.GPUUtilization != 0 {
		t.Errorf("GPU after the run: %+v", g)
	}
}

// connections counts the open channels sockets of a kernel.
func TestKernelConnectionsCounted(t *testing.T) {
	s, _, _ := start(t, Options{Seed: SeedDemo})
	rt := runtimeByID(t, s, "rt-cpudemo4qx")
	kid := s.KernelID("runtimes/rt-cpudemo4qx/sessions/notebook-5e6f7a8b")
	ws := "ws" + strings.TrimPrefix(rt.ConnectionInfo.URL, "http") + "api/kernels/" + kid + "/channels?" + runtimeproxy.TokenQuery + "=" + rt.ConnectionInfo.Token
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var conns []*websocket.Conn
	for range 2 {
		c, _, err := websocket.Dial(ctx, ws, nil)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	waitFor(t, "2 connections", func() bool { return getKernels(t, rt)[0].Connections == 2 })
	for _, c := range conns {
		_ = c.Close(websocket.StatusNormalClosure, "")
	}
	waitFor(t, "0 connections", func() bool { return getKernels(t, rt)[0].Connections == 0 })
}

// Options.StuckKernel seeds a kernel that stays "starting" with no
// connections, whatever time passes.
func TestStuckKernelSeed(t *testing.T) {
	s, _, clk := start(t, Options{StuckKernel: true})
	rt := runtimeByID(t, s, StuckKernelRuntime)
	clk.Advance(10 * time.Minute)
	ks := getKernels(t, rt)
	if len(ks) != 1 || ks[0].ExecutionState != "starting" || ks[0].Connections != 0 {
		t.Fatalf("stuck kernel: %+v", ks)
	}
	if err := s.SetKernelStarting("runtimes/"+StuckKernelRuntime+"/sessions/notebook-stuck", false); err != nil {
		t.Fatal(err)
	}
	if ks := getKernels(t, rt); ks[0].ExecutionState != "idle" {
		t.Errorf("after SetKernelStarting(false): %+v", ks)
	}
}

// A stock server's answer for Colab's routes: Options.NoColabExtensions
// and the ProxyStockNotFound fault give Jupyter's HTML 404 with Tornado's
// headers; ProxyDelay delays the reply; ResourcesNoXSSI drops the guard.
func TestResourcesStockServerAndFaults(t *testing.T) {
	s, _, _ := start(t, Options{Seed: SeedDemo, NoColabExtensions: true})
	rt := runtimeByID(t, s, "rt-cpudemo4qx")
	req, _ := http.NewRequest(http.MethodGet, rt.ConnectionInfo.URL+"api/colab/resources", nil)
	req.Header.Set(runtimeproxy.TokenHeader, rt.ConnectionInfo.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 || resp.Header.Get("Content-Type") != "text/html" || !strings.HasPrefix(resp.Header.Get("Server"), "TornadoServer") {
		t.Errorf("NoColabExtensions: HTTP %d %v", resp.StatusCode, resp.Header)
	}

	s2, _, _ := start(t, Options{Seed: SeedDemo, ResourcesNoXSSI: true})
	rt2 := runtimeByID(t, s2, "rt-cpudemo4qx")
	if st, body := proxyGet(t, rt2, "api/colab/resources"); st != 200 || !strings.HasPrefix(body, "{") {
		t.Errorf("ResourcesNoXSSI: HTTP %d %q", st, body)
	}
	s2.InjectProxy(ProxyFault{Kind: ProxyStockNotFound, PathPrefix: "api/colab/resources"})
	if st, body := proxyGet(t, rt2, "api/colab/resources"); st != 404 || !strings.Contains(body, "Jupyter Server") {
		t.Errorf("ProxyStockNotFound: HTTP %d %q", st, body)
	}
	s2.InjectProxy(ProxyFault{Kind: ProxyDelay, PathPrefix: "api/colab/resources", Delay: 200 * time.Millisecond})
	t0 := time.Now()
	if st, _ := proxyGet(t, rt2, "api/colab/resources"); st != 200 || time.Since(t0) < 200*time.Millisecond {
		t.Errorf("ProxyDelay: HTTP %d after %s", st, time.Since(t0))
	}
}

// Options.ResourcesFromHost reports this machine: its RAM and its root
// file system as the `kernel` disk.
func TestResourcesFromHost(t *testing.T) {
	s, _, _ := start(t, Options{Seed: SeedDemo, ResourcesFromHost: true})
	r := getResources(t, runtimeByID(t, s, "rt-cpudemo4qx"))
	if r.Memory == nil || r.Memory.TotalBytes <= 0 || r.Memory.FreeBytes > r.Memory.TotalBytes {
		t.Skipf("no /proc/meminfo here: %+v", r.Memory)
	}
	if r.Memory.TotalBytes == 13_605_834_752 {
		t.Errorf("host memory is the emulated figure")
	}
	if len(r.Disks) != 1 || r.Disks[0].Filesystem.Label != "kernel" || r.Disks[0].Filesystem.TotalBytes <= 0 ||
		r.Disks[0].Filesystem.UsedBytes > r.Disks[0].Filesystem.TotalBytes {
		t.Errorf("host disks %+v", r.Disks)
	}
}
