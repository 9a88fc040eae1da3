package render

import (
	"strings"
	"testing"
	"time"

	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/state/monitor"
)

// A restarted kernel and dead ones read as such in the ACTIVITY word and
// the kernel counts, never as idle or "never connected".
func TestRestartedAndDeadWords(t *testing.T) {
	for _, c := range []struct {
		a           monitor.Activity
		word, count string
	}{
		{monitor.Activity{State: monitor.StateRestarted, Kernels: 2, Restarted: 1, Since: mt0, For: 3 * time.Minute}, "restarted 3m", "0 busy 1 idle 1 restarted"},
		{monitor.Activity{State: monitor.StateRestarted, Kernels: 1, Restarted: 1}, "restarted", "0 busy 0 idle 1 restarted"},
		{monitor.Activity{State: monitor.StateDead, Kernels: 2, Dead: 2, Since: mt0, For: time.Hour}, "dead", "0 busy 0 idle 2 dead"},
		{monitor.Activity{State: monitor.StateIdle, Kernels: 2, Dead: 1, Since: mt0, For: 2 * time.Minute}, "idle 2m", "0 busy 1 idle 1 dead"},
	} {
		if got := ActivityWord(c.a); got != c.word {
			t.Errorf("ActivityWord(%+v) = %q, want %q", c.a, got, c.word)
		}
		if got := KernelsCell(c.a); got != c.count {
			t.Errorf("KernelsCell(%+v) = %q, want %q", c.a, got, c.count)
		}
	}
}

// A GPU figure the reply left out is unknown wherever it is shown: "?"
// in the table's GPU cell (not "–", which is a runtime without a GPU),
// "unknown" or "?" in the details' words; never 0.
func TestGPUFiguresLeftOutReadUnknown(t *testing.T) {
	const gib = 1 << 30
	all := apimon.GPUMemoryUsed | apimon.GPUMemoryTotal | apimon.GPUUtil | apimon.GPUMemoryUtil | apimon.GPUEverUsed
	for _, c := range []struct {
		g         apimon.GPU
		mem, util string
		cell      string
	}{
		{apimon.GPU{Name: "Tesla T4", Unknown: all}, "unknown", "unknown", "?"},
		{apimon.GPU{Name: "Tesla T4", MemoryTotalBytes: 15 * gib, Unknown: apimon.GPUMemoryUsed | apimon.GPUUtil}, "?/15.0 GiB", "unknown", "?"},
		{apimon.GPU{Name: "Tesla T4", MemoryUsedBytes: 3 * gib, MemoryTotalBytes: 15 * gib, GPUUtilization: 0.97}, "3.0/15.0 GiB", "97%", "97%"},
	} {
		if got := GPUMemory(c.g); got != c.mem {
			t.Errorf("GPUMemory(%+v) = %q, want %q", c.g, got, c.mem)
		}
		if got := GPUUtilization(c.g); got != c.util {
			t.Errorf("GPUUtilization(%+v) = %q, want %q", c.g, got, c.util)
		}
		s := monitor.NewStore()
		s.RecordResources("rt", mt0, apimon.Resources{Disks: []apimon.Disk{}, GPUs: []apimon.GPU{c.g}}, nil)
		if got := ColGPU.Cell(s.Get("rt"), mt0); !strings.HasSuffix(got, c.cell) {
			t.Errorf("the GPU cell of %+v = %q, want it to end in %q", c.g, got, c.cell)
		}
	}
}
