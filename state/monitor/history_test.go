package monitor

import (
	"math"
	"testing"
	"time"

	apimon "github.com/colabdash/colabdash/api/monitor"
)

// near reports whether got is want within the History's precision
// (1/65535); NaN (a step drawn empty) is never near.
func near(got, want float64) bool { return math.Abs(got-want) <= 1e-4 }

// With no `kernel` disk the first disk listed is the one shown, not the
// last.
func TestSampleOfWithoutAKernelDiskShowsTheFirst(t *testing.T) {
	r := apimon.Resources{Disks: []apimon.Disk{
		{Label: "/", TotalBytes: 100, UsedBytes: 10},
		{Label: "/mnt/drive", TotalBytes: 10, UsedBytes: 9},
	}}
	if got := SampleOf(t0, r).Fraction(MetricDisk); !near(got, 0.1) {
		t.Errorf("disk %v, want the first disk's 0.1", got)
	}
}

// A figure whose total is 0 is unknown (drawn as a gap), not full, even
// when the reply gives a used size.
func TestFractionOfAZeroTotalIsUnknown(t *testing.T) {
	r := apimon.Resources{Disks: []apimon.Disk{{Label: "kernel", TotalBytes: 0, UsedBytes: 5}},
		GPUs: []apimon.GPU{{MemoryTotalBytes: 0, MemoryUsedBytes: 7}}}
	s := SampleOf(t0, r)
	if f := s.Fraction(MetricDisk); !math.IsNaN(f) {
		t.Errorf("disk of total 0: %v, want NaN", f)
	}
	if f := s.Fraction(MetricGPUMemory); !math.IsNaN(f) {
		t.Errorf("GPU memory of total 0: %v, want NaN", f)
	}
}

// A metric the reply lacked (no GPU) is a gap in the History where the
// memory beside it is drawn.
func TestHistoryKeepsEachMetricApart(t *testing.T) {
	var h History
	h.Add(SampleOf(t0, apimon.Resources{Memory: &apimon.Memory{TotalBytes: 100, FreeBytes: 60}, Disks: []apimon.Disk{}}))
	if got := h.Series(t0, MetricMemory, nil)[HistoryLen-1]; !near(got, 0.4) {
		t.Errorf("memory %v, want 0.4", got)
	}
	if got := h.Series(t0, MetricGPU, nil)[HistoryLen-1]; !math.IsNaN(got) {
		t.Errorf("GPU of a CPU runtime %v, want a gap", got)
	}
}

// A machine whose clock starts at the Unix epoch (no battery-backed
// clock, before it syncs) still draws what it polled.
func TestHistoryAtTheUnixEpoch(t *testing.T) {
	var h History
	at := time.Unix(0, 0)
	h.Add(SampleOf(at, t4(0.5, 0, false)))
	if got := h.Series(at, MetricMemory, nil)[HistoryLen-1]; !near(got, 0.5) {
		t.Errorf("memory at the epoch %v, want 0.5", got)
	}
	if n := h.Len(at); n != 1 {
		t.Errorf("Len at the epoch %d, want 1", n)
	}
}
