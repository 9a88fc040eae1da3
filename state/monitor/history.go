// Package monitor is the pure domain of runtime monitoring: what a poll of
// api/colab/resources and api/kernels (package api/monitor) means for
// the dashboard and `colabdash top`.
//
//   - Sample and History: one poll's figures as fractions, and a bounded
//     15-minute history per runtime for sparklines (a fixed ring of
//     HistoryLen time-aligned slots: fixed memory per runtime).
//   - Judge: a runtime's kernel activity (busy wins over last_activity,
//     which stands still while silent code runs; a kernel "starting" for
//     over NeverConnectedAfter with no connection is "never connected",
//     not idle; "idle for" is now − the newest last_activity when every
//     kernel is idle).
//   - Store: the latest figures and kernels of each runtime, their errors
//     and staleness (after StaleAfter missed polls).
//   - Scheduler: the poll planner (the selected runtime every 5 s, the
//     other runtimes on screen every 30 s, none off screen, never two
//     polls at once for one runtime, backoff 30 s → 5 min on failure,
//     "not offered" re-checked every 10 minutes, at most 120 requests a
//     minute).
//
// Nothing here does I/O, starts goroutines or reads a clock: every
// method takes now. Nothing is safe for concurrent use (the dashboard's
// Update owns it). Nothing here deletes or keeps a runtime alive.
package monitor

import (
	"math"
	"time"

	apimon "github.com/colabdash/colabdash/api/monitor"
)

// History bounds: 15 minutes in 5-second slots.
const (
	// HistoryWindow is how far back a History reaches.
	HistoryWindow = 15 * time.Minute
	// HistoryStep is one slot: the selected runtime's poll interval.
	HistoryStep = 5 * time.Second
	// HistoryLen is the slots of a History (180).
	HistoryLen = int(HistoryWindow / HistoryStep)
)

// Metric is one series of a History, a fraction 0–1.
type Metric int

// Metrics kept in a History.
const (
	// MetricMemory is RAM used / total.
	MetricMemory Metric = iota
	// MetricDisk is the `kernel` disk's (else the first disk's) used /
	// total.
	MetricDisk
	// MetricGPU is the GPUs' mean utilization.
	MetricGPU
	// MetricGPUMemory is GPU memory used / total, summed over the GPUs.
	MetricGPUMemory
	numMetrics
)

// Sample is one poll's figures in bytes, with the GPUs summed. A total
// of 0 means the reply did not say (the matching Fraction is NaN).
type Sample struct {
	// At is when the poll's reply came.
	At time.Time
	// MemUsed and MemTotal are RAM bytes.
	MemUsed, MemTotal int64
	// DiskUsed and DiskTotal are the `kernel` disk's bytes (else the
	// first disk's).
	DiskUsed, DiskTotal int64
	// GPUs is how many GPUs the runtime has; GPUMemUsed and GPUMemTotal
	// their memory bytes summed (both 0 when a GPU's were not sent:
	// unknown); GPUUtil the mean utilization (0–1) of those whose was
	// sent, GPUUtilKnown whether any was.
	GPUs                    int
	GPUMemUsed, GPUMemTotal int64
	GPUUtil                 float64
	GPUUtilKnown            bool
	// GPUEverUsed is set when any GPU was ever used since the runtime
	// started; GPUNeverUsed when the runtime has GPUs and Colab said of
	// each that it never was (an everUsed left out is unknown).
	GPUEverUsed, GPUNeverUsed bool
}

// SampleOf sums r into a Sample taken at at.
func SampleOf(at time.Time, r apimon.Resources) Sample {
	s := Sample{At: at}
	if r.Memory != nil {
		s.MemUsed, s.MemTotal = r.Memory.UsedBytes(), r.Memory.TotalBytes
	}
	for i, d := range r.Disks {
		if i == 0 || d.Label == "kernel" {
			s.DiskUsed, s.DiskTotal = d.UsedBytes, d.TotalBytes
			if d.Label == "kernel" {
				break
			}
		}
	}
	var util float64
	var utils int
	memKnown, everKnown := true, true
	for _, g := range r.GPUs {
		s.GPUs++
		memKnown = memKnown && g.Knows(apimon.GPUMemoryUsed|apimon.GPUMemoryTotal)
		s.GPUMemUsed += g.MemoryUsedBytes
		s.GPUMemTotal += g.MemoryTotalBytes
		if g.Knows(apimon.GPUUtil) {
			util += g.GPUUtilization
			utils++
		}
		everKnown = everKnown && g.Knows(apimon.GPUEverUsed)
		s.GPUEverUsed = s.GPUEverUsed || g.EverUsed
	}
	if !memKnown {
		s.GPUMemUsed, s.GPUMemTotal = 0, 0
	}
	if utils > 0 {
		s.GPUUtil, s.GPUUtilKnown = util/float64(utils), true
	}
	s.GPUNeverUsed = s.GPUs > 0 && everKnown && !s.GPUEverUsed
	return s
}

func frac(used, total int64) float64 {
	if total <= 0 {
		return math.NaN()
	}
	return min(max(float64(used)/float64(total), 0), 1)
}

// Fraction returns metric m of s as a fraction 0–1; NaN when s does not
// have it (no total, no GPU).
func (s Sample) Fraction(m Metric) float64 {
	switch m {
	case MetricMemory:
		return frac(s.MemUsed, s.MemTotal)
	case MetricDisk:
		return frac(s.DiskUsed, s.DiskTotal)
	case MetricGPU:
		if s.GPUs == 0 || !s.GPUUtilKnown {
			return math.NaN()
		}
		return min(max(s.GPUUtil, 0), 1)
	case MetricGPUMemory:
		return frac(s.GPUMemUsed, s.GPUMemTotal)
	}
	return math.NaN()
}

// slot is one HistoryStep of a History: its step number (time/step + 1;
// 0 is empty) and each metric in 1/65535ths, with a bit per metric set
// when present.
type slot struct {
	step uint32
	v    [numMetrics]uint16
	has  uint8
}

// History is a runtime's figures over the last HistoryWindow, one slot
// per HistoryStep (the newest sample of a step wins), for sparklines. Its
// size is fixed (HistoryLen slots of 16 bytes, 2,880 bytes) whatever the poll rate.
// The zero value is empty and ready.
type History struct {
	slots [HistoryLen]slot
}

// stepOf is t's step number (1 is the first step of 1970; a uint32 lasts
// until 2650).
func stepOf(t time.Time) int64 { return max(t.UnixNano()/int64(HistoryStep)+1, 0) }

// Add records s in the slot of s.At.
func (h *History) Add(s Sample) {
	st := stepOf(s.At)
	sl := &h.slots[int(st%int64(HistoryLen))]
	*sl = slot{step: uint32(st)}
	for m := range numMetrics {
		if f := s.Fraction(m); !math.IsNaN(f) {
			sl.v[m] = uint16(math.Round(f * 65535))
			sl.has |= 1 << m
		}
	}
}

// Series appends to dst (reused when it has room) HistoryLen values of
// metric m, oldest first, ending with the slot of now: each a fraction
// 0–1, NaN for a step without a sample.
func (h *History) Series(now time.Time, m Metric, dst []float64) []float64 {
	dst = dst[:0]
	end := stepOf(now)
	for st := end - int64(HistoryLen) + 1; st <= end; st++ {
		v := math.NaN()
		if st > 0 {
			if sl := &h.slots[int(st%int64(HistoryLen))]; int64(sl.step) == st && sl.has&(1<<m) != 0 {
				v = float64(sl.v[m]) / 65535
			}
		}
		dst = append(dst, v)
	}
	return dst
}

// Len returns how many slots within HistoryWindow of now hold a sample.
func (h *History) Len(now time.Time) int {
	end := stepOf(now)
	n := 0
	for i := range h.slots {
		if st := int64(h.slots[i].step); st != 0 && st <= end && st > end-int64(HistoryLen) {
			n++
		}
	}
	return n
}
