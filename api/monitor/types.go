package monitor

import (
	"encoding/json"
	"errors"
	"math"
	"path"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api/jsonnum"
)

// Resources is what api/colab/resources says of a runtime. Sizes are
// bytes; utilizations fractions 0–1 (colab-vscode's ResourcesSchema).
type Resources struct {
	// Memory is the runtime's RAM; nil when the reply had none.
	Memory *Memory
	// Disks are its file systems (the VM's own is labelled "kernel");
	// never nil (the one required field), possibly empty.
	Disks []Disk
	// GPUs are its GPUs; nil when the reply listed none (CPU and TPU
	// runtimes).
	GPUs []GPU
}

// Memory is a runtime's RAM in bytes. Whether Colab's freeBytes is
// Linux's MemFree or MemAvailable is unknown.
type Memory struct {
	TotalBytes, FreeBytes int64
}

// UsedBytes is TotalBytes − FreeBytes (0 when free exceeds total).
func (m Memory) UsedBytes() int64 { return max(m.TotalBytes-m.FreeBytes, 0) }

// Disk is one file system: its label (a path; "kernel" for the VM's own
// disk) and its size and use in bytes. A disk whose filesystem object was
// empty has all three zero.
type Disk struct {
	Label                 string
	TotalBytes, UsedBytes int64
}

// Name is the label's last path component, "" for the VM's own disk
// ("kernel"), as colab-vscode shows it.
func (d Disk) Name() string {
	if d.Label == "kernel" || d.Label == "" {
		return ""
	}
	return path.Base(strings.TrimRight(d.Label, "/"))
}

// GPU is one GPU: its name as nvidia-smi gives it ("Tesla T4"), memory in
// bytes, utilizations as fractions 0–1 (clamped), and whether it was ever
// used since the runtime started (Colab's "you are not using the GPU"
// nudge). Unknown holds the figures the reply left out: such a figure is
// unknown, never zero (its field holds 0; ask Knows). Its JSON is the
// wire shape of one entry of api/colab/resources' "gpus", every field
// optional: the figures it knows (MarshalJSON), which `top --json` prints
// back as is.
// (The tags give the shape to the generated JSON Schemas: every figure
// optional.)
type GPU struct {
	Name              string   `json:"name"`
	MemoryUsedBytes   int64    `json:"memoryUsedBytes,omitempty"`
	MemoryTotalBytes  int64    `json:"memoryTotalBytes,omitempty"`
	GPUUtilization    float64  `json:"gpuUtilization,omitempty"`
	MemoryUtilization float64  `json:"memoryUtilization,omitempty"`
	EverUsed          bool     `json:"everUsed,omitempty"`
	Unknown           GPUField `json:"-"`
}

// GPUField names GPU figures, as a set of bits, for GPU.Unknown.
type GPUField uint8

// The GPU figures a reply may leave out.
const (
	GPUMemoryUsed GPUField = 1 << iota
	GPUMemoryTotal
	GPUUtil
	GPUMemoryUtil
	GPUEverUsed
)

// Knows reports whether the reply gave every figure of f.
func (g GPU) Knows(f GPUField) bool { return g.Unknown&f == 0 }

// gpuJSON is a GPU's wire shape; a nil field was not sent.
type gpuJSON struct {
	Name              string   `json:"name"`
	MemoryUsedBytes   *int64   `json:"memoryUsedBytes,omitempty"`
	MemoryTotalBytes  *int64   `json:"memoryTotalBytes,omitempty"`
	GPUUtilization    *float64 `json:"gpuUtilization,omitempty"`
	MemoryUtilization *float64 `json:"memoryUtilization,omitempty"`
	EverUsed          *bool    `json:"everUsed,omitempty"`
}

// known is &v when g knows f, else nil.
func known[T any](g GPU, f GPUField, v T) *T {
	if !g.Knows(f) {
		return nil
	}
	return &v
}

// MarshalJSON writes the figures g knows, leaving out the unknown ones
// (never as 0 or false).
func (g GPU) MarshalJSON() ([]byte, error) {
	return json.Marshal(gpuJSON{Name: g.Name, MemoryUsedBytes: known(g, GPUMemoryUsed, g.MemoryUsedBytes),
		MemoryTotalBytes: known(g, GPUMemoryTotal, g.MemoryTotalBytes), GPUUtilization: known(g, GPUUtil, g.GPUUtilization),
		MemoryUtilization: known(g, GPUMemoryUtil, g.MemoryUtilization), EverUsed: known(g, GPUEverUsed, g.EverUsed)})
}

// Kernel is one Jupyter kernel as api/kernels reports it.
type Kernel struct {
	// ID is the kernel id; Name its kernelspec ("python3").
	ID, Name string
	// ExecutionState is Jupyter's: "starting", "idle", "busy",
	// "restarting", "autorestarting", "dead" … ("" when absent).
	ExecutionState string
	// LastActivity is the last message time; the zero time when absent
	// or unparseable. It stands still while silent code runs:
	// ExecutionState wins over it.
	LastActivity time.Time
	// Connections counts the kernel's open WebSockets.
	Connections int
}

// Terminal is one Jupyter terminal as api/terminals reports it: its name
// and its last activity (input or output; the zero time when absent or
// unparseable).
type Terminal struct {
	Name         string
	LastActivity time.Time
}

// Session is one Jupyter session (api/sessions): a notebook or console
// and its kernel.
type Session struct {
	ID, Path, Name, Type string
	Kernel               Kernel
}

// Kind classifies an *Error.
type Kind int

// Error kinds (see the package comment).
const (
	// KindUnavailable: a 5xx, a bad or oversized body, no reply in time,
	// a transport error, an unusable connectionInfo.url.
	KindUnavailable Kind = iota + 1
	// KindTokenRefused: the proxy's bare 404; renew once, retry once.
	KindTokenRefused
	// KindNotOffered: the runtime's Jupyter server has no such route.
	KindNotOffered
)

// Sentinels matched by errors.Is on an *Error of the same kind.
var (
	// ErrUnavailable is KindUnavailable.
	ErrUnavailable = errors.New("unavailable")
	// ErrTokenRefused is KindTokenRefused.
	ErrTokenRefused = errors.New("the runtime proxy refused the token")
	// ErrNotOffered is KindNotOffered.
	ErrNotOffered = errors.New("not offered by this runtime")
)

// Error is a failed call: Op is "resources", "kernels" or "sessions";
// Status the HTTP status (0 when none came); Message a one-line,
// redacted detail.
type Error struct {
	Op      string
	Kind    Kind
	Status  int
	Message string
}

// Error reads "resources unavailable: HTTP 500", "resources not offered
// by this runtime (…)" or "resources: the runtime proxy refused the
// token (…)".
func (e *Error) Error() string {
	switch e.Kind {
	case KindNotOffered:
		return e.Op + " not offered by this runtime (" + e.Message + ")"
	case KindTokenRefused:
		return e.Op + ": the runtime proxy refused the token (" + e.Message + ")"
	}
	return e.Op + " unavailable: " + e.Message
}

// Is matches the sentinel of e's Kind.
func (e *Error) Is(target error) bool {
	switch e.Kind {
	case KindUnavailable:
		return target == ErrUnavailable
	case KindTokenRefused:
		return target == ErrTokenRefused
	case KindNotOffered:
		return target == ErrNotOffered
	}
	return false
}

// wire types: the JSON as sent, every field optional. Every size and
// count is a jsonnum.Int: any JSON number, rounded (a Python server's
// 13605834752.0 included); only a non-number refuses the reply.

type wireResources struct {
	Memory *struct {
		TotalBytes jsonnum.Int `json:"totalBytes"`
		FreeBytes  jsonnum.Int `json:"freeBytes"`
	} `json:"memory"`
	Disks []struct {
		Filesystem *struct {
			Label      string      `json:"label"`
			TotalBytes jsonnum.Int `json:"totalBytes"`
			UsedBytes  jsonnum.Int `json:"usedBytes"`
		} `json:"filesystem"`
	} `json:"disks"`
	GPUs []wireGPU `json:"gpus"`
}

// wireGPU's figures are pointers: a figure the reply left out (or sent
// as null) is unknown.
type wireGPU struct {
	Name              string         `json:"name"`
	MemoryUsedBytes   *jsonnum.Int   `json:"memoryUsedBytes"`
	MemoryTotalBytes  *jsonnum.Int   `json:"memoryTotalBytes"`
	GPUUtilization    *jsonnum.Float `json:"gpuUtilization"`
	MemoryUtilization *jsonnum.Float `json:"memoryUtilization"`
	EverUsed          *bool          `json:"everUsed"`
}

func (w wireGPU) gpu() GPU {
	g := GPU{Name: w.Name}
	set := func(f GPUField, sent bool, apply func()) {
		if sent {
			apply()
		} else {
			g.Unknown |= f
		}
	}
	set(GPUMemoryUsed, w.MemoryUsedBytes != nil, func() { g.MemoryUsedBytes = nonNeg(*w.MemoryUsedBytes) })
	set(GPUMemoryTotal, w.MemoryTotalBytes != nil, func() { g.MemoryTotalBytes = nonNeg(*w.MemoryTotalBytes) })
	set(GPUUtil, w.GPUUtilization != nil, func() { g.GPUUtilization = fraction(*w.GPUUtilization) })
	set(GPUMemoryUtil, w.MemoryUtilization != nil, func() { g.MemoryUtilization = fraction(*w.MemoryUtilization) })
	set(GPUEverUsed, w.EverUsed != nil, func() { g.EverUsed = *w.EverUsed })
	return g
}

func nonNeg(n jsonnum.Int) int64 { return max(int64(n), 0) }

func fraction(f jsonnum.Float) float64 { return min(max(float64(f), 0), 1) }

func (w wireResources) resources() Resources {
	r := Resources{Disks: make([]Disk, 0, len(w.Disks))}
	if w.Memory != nil {
		r.Memory = &Memory{TotalBytes: nonNeg(w.Memory.TotalBytes), FreeBytes: nonNeg(w.Memory.FreeBytes)}
	}
	for _, d := range w.Disks {
		var out Disk
		if fs := d.Filesystem; fs != nil {
			out = Disk{Label: fs.Label, TotalBytes: nonNeg(fs.TotalBytes), UsedBytes: nonNeg(fs.UsedBytes)}
		}
		r.Disks = append(r.Disks, out)
	}
	for _, g := range w.GPUs {
		r.GPUs = append(r.GPUs, g.gpu())
	}
	return r
}

type wireKernel struct {
	ID             string      `json:"id"`
	Name           string      `json:"name"`
	LastActivity   string      `json:"last_activity"`
	ExecutionState string      `json:"execution_state"`
	Connections    jsonnum.Int `json:"connections"`
}

func (k wireKernel) kernel() Kernel {
	t, err := time.Parse(time.RFC3339Nano, k.LastActivity)
	if err != nil {
		t = time.Time{}
	}
	return Kernel{ID: k.ID, Name: k.Name, ExecutionState: k.ExecutionState, LastActivity: t, Connections: int(min(nonNeg(k.Connections), math.MaxInt32))}
}

type wireTerminal struct {
	Name         string `json:"name"`
	LastActivity string `json:"last_activity"`
}

func (t wireTerminal) terminal() Terminal {
	at, err := time.Parse(time.RFC3339Nano, t.LastActivity)
	if err != nil {
		at = time.Time{}
	}
	return Terminal{Name: t.Name, LastActivity: at}
}

type wireSession struct {
	ID     string     `json:"id"`
	Path   string     `json:"path"`
	Name   string     `json:"name"`
	Type   string     `json:"type"`
	Kernel wireKernel `json:"kernel"`
}
