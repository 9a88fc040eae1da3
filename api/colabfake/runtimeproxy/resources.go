package runtimeproxy

// Colab's resource figures, GET api/colab/resources: the reply
// colab-vscode's resource tree reads, behind the proxy token like every
// other route, with Colab's XSSI guard before it.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api"
)

// ResourcesPath is Colab's resources route below a runtime's proxy URL.
const ResourcesPath = "api/colab/resources"

// Deterministic figures of the emulated runtimes (Config.ResourcesFromHost
// off). They are close to what Colab shows, not measured values.
const (
	// DiskTotal is the `kernel` disk's size: 107.7 GiB (colab-vscode's
	// test fixture).
	DiskTotal int64 = 115_658_190_848
	// DiskBaseUsed is what the `kernel` disk holds before the runtime's
	// own files (which DiskUsage adds): 21.3 GiB.
	DiskBaseUsed int64 = 22_869_635_072
	// MemBaseUsed is the RAM a runtime uses with nothing open: 1 GiB;
	// each open session adds MemPerSession, each run in flight MemPerRun.
	MemBaseUsed   int64 = 1 << 30
	MemPerSession int64 = 300 << 20
	MemPerRun     int64 = 512 << 20
	// GPUBusyUtilization and GPUBusyMemoryUtilization are a GPU's
	// utilizations (fractions 0–1) while a run that uses it is in flight;
	// 0 otherwise.
	GPUBusyUtilization       = 0.87
	GPUBusyMemoryUtilization = 0.62
	// GPUMemoryUsedShare is the share of a GPU's memory used once code
	// used it (a framework keeps its allocation): 40 %.
	GPUMemoryUsedShare = 0.4
)

const gib = int64(1) << 30

// Memory is the RAM of a runtime of spec k in bytes: 12.7 GiB
// (13,605,834,752, colab-vscode's fixture) for CPU and T4, 51 GiB for a
// HIGHMEM shape, more for the larger accelerators.
func Memory(k api.RuntimeSpecKey) int64 {
	base := int64(13_605_834_752)
	switch k.Accelerator {
	case "L4":
		base = 53 * gib
	case "A100":
		base = 83*gib + gib/2
	case "H100", "G4":
		base = 167 * gib
	case "V5E1":
		base = 47 * gib
	case "V6E1":
		base = 173 * gib
	}
	if k.Shape == api.ShapeHighMem && base < 51*gib {
		base = 51 * gib
	}
	return base
}

// GPU returns the name and memory (bytes) of the GPU of accelerator acc
// as nvidia-smi names it (T4 "Tesla T4" 15 GiB, L4 22.5 GiB, A100 40 GiB,
// H100 80 GiB, G4 96 GiB; another GPU accelerator "NVIDIA <acc>" with
// 16 GiB); ok is false for specs without a GPU (CPU, TPU).
func GPU(k api.RuntimeSpecKey) (name string, memory int64, ok bool) {
	if k.Variant != api.VariantGPU {
		return "", 0, false
	}
	switch k.Accelerator {
	case "T4":
		return "Tesla T4", 15 * gib, true
	case "L4":
		return "NVIDIA L4", 22*gib + gib/2, true
	case "A100":
		return "NVIDIA A100-SXM4-40GB", 40 * gib, true
	case "H100":
		return "NVIDIA H100 80GB HBM3", 80 * gib, true
	case "G4":
		return "NVIDIA RTX PRO 6000 Blackwell Server Edition", 96 * gib, true
	}
	return "NVIDIA " + k.Accelerator, 16 * gib, true
}

// Activity is what the resource figures of one runtime follow (read
// through Runtimes.Activity).
type Activity struct {
	// Spec is the runtime's spec (which memory and GPU it has).
	Spec api.RuntimeSpecKey
	// Sessions is how many sessions are open; Runs how many emulated
	// runs are in flight.
	Sessions, Runs int
	// GPUBusy is set while a run that uses the GPU is in flight;
	// GPUEverUsed once one started.
	GPUBusy, GPUEverUsed bool
}

// resourcesReply is the body of api/colab/resources (colab-vscode's
// ResourcesSchema): sizes in bytes, utilizations as fractions 0–1.
type resourcesReply struct {
	Memory *resMemory `json:"memory,omitempty"`
	Disks  []resDisk  `json:"disks"`
	GPUs   []resGPU   `json:"gpus,omitempty"`
}

type resMemory struct {
	TotalBytes int64 `json:"totalBytes"`
	FreeBytes  int64 `json:"freeBytes"`
}

type resDisk struct {
	Filesystem resFS `json:"filesystem"`
}

type resFS struct {
	Label      string `json:"label"`
	TotalBytes int64  `json:"totalBytes"`
	UsedBytes  int64  `json:"usedBytes"`
}

type resGPU struct {
	Name              string  `json:"name"`
	MemoryUsedBytes   int64   `json:"memoryUsedBytes"`
	MemoryTotalBytes  int64   `json:"memoryTotalBytes"`
	GPUUtilization    float64 `json:"gpuUtilization"`
	MemoryUtilization float64 `json:"memoryUtilization"`
	EverUsed          bool    `json:"everUsed"`
}

// resGPUName is a GPU of a reply that carries its name alone
// (Config.GPUFiguresOmitted).
type resGPUName struct {
	Name string `json:"name"`
}

// serveResources is GET api/colab/resources of runtime id: the emulated
// figures (Activity), or this machine's with Config.ResourcesFromHost,
// as application/json after Colab's XSSI guard ")]}'\n" (unless
// Config.ResourcesNoXSSI; with Config.XSSI the guard is the front end's).
func (s *Server) serveResources(w http.ResponseWriter, r *http.Request, id string) {
	if r.Method != http.MethodGet {
		jsonError(w, http.StatusMethodNotAllowed, "Method Not Allowed")
		return
	}
	var rep resourcesReply
	if s.opts.ResourcesFromHost {
		rep = hostResources(r.Context())
	} else {
		a, ok := s.rt.Activity(id)
		if !ok {
			proxyNotFound(w)
			return
		}
		rep = emulatedResources(a, s.DiskUsage(id))
	}
	var b []byte
	if s.opts.GPUFiguresOmitted {
		b, _ = json.Marshal(rep.namesOnly())
	} else {
		b, _ = json.Marshal(rep)
	}
	if !s.opts.XSSI && !s.opts.ResourcesNoXSSI {
		b = append([]byte(xssiGuard), b...)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	_, _ = w.Write(b)
}

// namesOnly is rep with each GPU's name alone (Config.GPUFiguresOmitted).
func (rep resourcesReply) namesOnly() any {
	gpus := make([]resGPUName, len(rep.GPUs))
	for i, g := range rep.GPUs {
		gpus[i] = resGPUName{Name: g.Name}
	}
	return struct {
		Memory *resMemory   `json:"memory,omitempty"`
		Disks  []resDisk    `json:"disks"`
		GPUs   []resGPUName `json:"gpus,omitempty"`
	}{rep.Memory, rep.Disks, gpus}
}

// emulatedResources are the deterministic figures of a runtime doing a
// whose own files take diskUsed bytes.
func emulatedResources(a Activity, diskUsed int64) resourcesReply {
	total := Memory(a.Spec)
	used := MemBaseUsed + int64(a.Sessions)*MemPerSession + int64(a.Runs)*MemPerRun
	rep := resourcesReply{
		Memory: &resMemory{TotalBytes: total, FreeBytes: max(total-used, 0)},
		Disks:  []resDisk{{Filesystem: resFS{Label: "kernel", TotalBytes: DiskTotal, UsedBytes: min(DiskBaseUsed+diskUsed, DiskTotal)}}},
	}
	if name, mem, ok := GPU(a.Spec); ok {
		g := resGPU{Name: name, MemoryTotalBytes: mem, EverUsed: a.GPUEverUsed}
		if a.GPUEverUsed {
			g.MemoryUsedBytes = int64(float64(mem) * GPUMemoryUsedShare)
		}
		if a.GPUBusy {
			g.GPUUtilization, g.MemoryUtilization = GPUBusyUtilization, GPUBusyMemoryUtilization
		}
		rep.GPUs = []resGPU{g}
	}
	return rep
}

// hostResources are this machine's figures (Config.ResourcesFromHost):
// /proc/meminfo's MemTotal and MemAvailable (MemFree when absent), the
// root file system as the `kernel` disk, and the GPUs nvidia-smi lists
// (when it is installed; 2 s at most). What cannot be read is left out,
// except the disks array, which is always there.
func hostResources(ctx context.Context) resourcesReply {
	rep := resourcesReply{Disks: []resDisk{}}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		rep.Memory = parseMeminfo(b)
	}
	if total, used, ok := rootDisk(); ok {
		rep.Disks = append(rep.Disks, resDisk{Filesystem: resFS{Label: "kernel", TotalBytes: total, UsedBytes: used}})
	}
	rep.GPUs = nvidiaGPUs(ctx)
	return rep
}

// parseMeminfo reads MemTotal and MemAvailable (or MemFree) from
// /proc/meminfo's text (kB, ×1024); nil when MemTotal is missing.
func parseMeminfo(b []byte) *resMemory {
	vals := map[string]int64{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
			vals[k] = n * 1024
		}
	}
	total, ok := vals["MemTotal"]
	if !ok {
		return nil
	}
	free, ok := vals["MemAvailable"]
	if !ok {
		free = vals["MemFree"]
	}
	return &resMemory{TotalBytes: total, FreeBytes: free}
}

// nvidiaGPUs lists this machine's GPUs through nvidia-smi (nil when it
// is not installed, fails or takes over 2 s). everUsed is whether the GPU
// has memory in use.
func nvidiaGPUs(ctx context.Context) []resGPU {
	bin, err := exec.LookPath("nvidia-smi")
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--query-gpu=name,memory.used,memory.total,utilization.gpu,utilization.memory",
		"--format=csv,noheader,nounits").Output()
	if err != nil {
		return nil
	}
	return parseNvidiaSMI(out)
}

// parseNvidiaSMI reads nvidia-smi's CSV lines (name, memory used and
// total in MiB, GPU and memory utilization in percent).
func parseNvidiaSMI(out []byte) []resGPU {
	var gpus []resGPU
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, ",")
		if len(f) < 5 {
			continue
		}
		num := func(i int) float64 {
			v, _ := strconv.ParseFloat(strings.TrimSpace(f[i]), 64)
			return v
		}
		g := resGPU{Name: strings.TrimSpace(f[0]), MemoryUsedBytes: int64(num(1)) << 20, MemoryTotalBytes: int64(num(2)) << 20,
			GPUUtilization: num(3) / 100, MemoryUtilization: num(4) / 100}
		g.EverUsed = g.MemoryUsedBytes > 0
		gpus = append(gpus, g)
	}
	return gpus
}

// Jupyter's stock 404 page, which a stock jupyter_server (no Colab
// routes) answers an unknown route with (measured on
// jupyter_server 1.23.3): text/html, Server: TornadoServer, Jupyter's
// Content-Security-Policy.
const stockNotFoundPage = "<!DOCTYPE HTML>\n<html>\n<head>\n    <meta charset=\"utf-8\">\n    <title>Jupyter Server</title>\n" +
	"</head>\n<body>\n<div id=\"jupyter_server\">\n<h1>404 : Not Found</h1>\n" +
	"<p>You are requesting a page that does not exist!</p>\n</div>\n</body>\n</html>\n"

// StockNotFound answers as a stock jupyter_server does for a route it
// lacks: 404 with its HTML page and its headers.
func StockNotFound(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/html")
	h.Set("Server", "TornadoServer/6.2")
	h.Set("Content-Security-Policy", "frame-ancestors 'self'; report-uri /api/security/csp-report")
	w.WriteHeader(http.StatusNotFound)
	_, _ = io.WriteString(w, stockNotFoundPage)
}
