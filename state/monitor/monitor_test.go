package monitor

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"
	"unsafe"

	apimon "github.com/colabdash/colabdash/api/monitor"
)

var t0 = time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC)

func t4(used float64, util float64, ever bool) apimon.Resources {
	return apimon.Resources{
		Memory: &apimon.Memory{TotalBytes: 1000, FreeBytes: int64(1000 * (1 - used))},
		Disks:  []apimon.Disk{{Label: "/mnt/drive", TotalBytes: 10, UsedBytes: 9}, {Label: "kernel", TotalBytes: 100, UsedBytes: 25}},
		GPUs:   []apimon.GPU{{Name: "Tesla T4", MemoryTotalBytes: 400, MemoryUsedBytes: 100, GPUUtilization: util, EverUsed: ever}},
	}
}

// A sample sums the GPUs, prefers the `kernel` disk, and says when a
// runtime's GPU was never used; what the reply lacks is NaN.
func TestSampleOf(t *testing.T) {
	s := SampleOf(t0, t4(0.5, 0.3, false))
	if s.Fraction(MetricMemory) != 0.5 || s.Fraction(MetricDisk) != 0.25 || s.Fraction(MetricGPU) != 0.3 ||
		s.Fraction(MetricGPUMemory) != 0.25 || !s.GPUNeverUsed || s.GPUEverUsed {
		t.Errorf("%+v", s)
	}
	two := apimon.Resources{Disks: []apimon.Disk{}, GPUs: []apimon.GPU{
		{MemoryTotalBytes: 100, MemoryUsedBytes: 50, GPUUtilization: 1, EverUsed: true},
		{MemoryTotalBytes: 100, MemoryUsedBytes: 0, GPUUtilization: 0}}}
	s = SampleOf(t0, two)
	if s.GPUs != 2 || s.GPUUtil != 0.5 || s.Fraction(MetricGPUMemory) != 0.25 || s.GPUNeverUsed || !s.GPUEverUsed {
		t.Errorf("two GPUs: %+v", s)
	}
	if !math.IsNaN(s.Fraction(MetricMemory)) || !math.IsNaN(s.Fraction(MetricDisk)) {
		t.Errorf("absent memory and disk are not NaN: %+v", s)
	}
	if cpu := SampleOf(t0, apimon.Resources{Disks: []apimon.Disk{}}); !math.IsNaN(cpu.Fraction(MetricGPU)) || cpu.GPUNeverUsed {
		t.Errorf("a CPU runtime: %+v", cpu)
	}
	// A GPU whose figures the reply left out: unknown, neither 0 nor
	// "never used".
	bare := SampleOf(t0, apimon.Resources{Disks: []apimon.Disk{}, GPUs: []apimon.GPU{{Name: "Tesla T4", MemoryTotalBytes: 400,
		Unknown: apimon.GPUMemoryUsed | apimon.GPUUtil | apimon.GPUMemoryUtil | apimon.GPUEverUsed}}})
	if bare.GPUs != 1 || bare.GPUUtilKnown || !math.IsNaN(bare.Fraction(MetricGPU)) || !math.IsNaN(bare.Fraction(MetricGPUMemory)) || bare.GPUNeverUsed {
		t.Errorf("a GPU with its figures left out: %+v", bare)
	}
}

// The history keeps the last 15 minutes in 5 s steps, oldest first,
// with gaps for steps without a poll, drops what is older, and has a
// fixed size per runtime.
func TestHistory(t *testing.T) {
	if n := unsafe.Sizeof(History{}); n > 4<<10 {
		t.Errorf("a History takes %d bytes", n)
	}
	var h History
	// A poll every 30 s for 20 minutes, memory rising 1 % per poll.
	for i := range 40 {
		h.Add(SampleOf(t0.Add(time.Duration(i)*30*time.Second), t4(float64(i)/100, 0, false)))
	}
	now := t0.Add(39 * 30 * time.Second)
	s := h.Series(now, MetricMemory, nil)
	if len(s) != HistoryLen {
		t.Fatalf("%d values", len(s))
	}
	if got := s[HistoryLen-1]; !near(got, 0.39) {
		t.Errorf("newest %v, want 0.39", got)
	}
	if !math.IsNaN(s[HistoryLen-2]) {
		t.Errorf("a step without a poll is %v", s[HistoryLen-2])
	}
	// 15 minutes hold 30 polls at 30 s: the oldest kept is poll 10.
	if h.Len(now) != 30 {
		t.Errorf("Len %d, want 30", h.Len(now))
	}
	if got := s[HistoryLen-1-29*6]; !near(got, 0.10) {
		t.Errorf("oldest kept %v, want 0.10", got)
	}
	// Later, with no polls, everything ages out.
	if h.Len(now.Add(HistoryWindow)) != 0 {
		t.Errorf("samples older than 15 min are still there")
	}
	// A second sample in the same step replaces the first.
	h.Add(SampleOf(now.Add(time.Second), t4(0.5, 0, false)))
	if got := h.Series(now.Add(time.Second), MetricMemory, s)[HistoryLen-1]; !near(got, 0.5) {
		t.Errorf("same step: %v", got)
	}
}

func kernel(state string, last time.Time, conns int) apimon.Kernel {
	return apimon.Kernel{ID: "k-" + state + last.Format("150405"), ExecutionState: state, LastActivity: last, Connections: conns}
}

// Idleness rules: busy wins over an old last_activity; a kernel
// starting for over 60 s with no connection is "never connected", not
// idle; "idle for" is now − the newest last_activity when all
// kernels are idle; an hour of it warns.
func TestJudge(t *testing.T) {
	now := t0.Add(2 * time.Hour)
	for _, c := range []struct {
		name  string
		ks    []apimon.Kernel
		state State
		for_  time.Duration
		warn  bool
	}{
		{"never listed", nil, StateUnknown, 0, false},
		{"no kernels", []apimon.Kernel{}, StateNoKernels, 0, false},
		{"silent busy code", []apimon.Kernel{kernel("busy", t0, 1), kernel("idle", now.Add(-time.Minute), 1)}, StateBusy, 2 * time.Hour, false},
		{"restarting", []apimon.Kernel{kernel("restarting", now.Add(-time.Minute), 1)}, StateBusy, time.Minute, false},
		{"stuck starting", []apimon.Kernel{kernel("starting", now.Add(-61*time.Second), 0), kernel("idle", t0, 0)}, StateNeverConnected, 0, false},
		{"starting 30 s", []apimon.Kernel{kernel("starting", now.Add(-30*time.Second), 0)}, StateStarting, 0, false},
		{"starting but connected", []apimon.Kernel{kernel("starting", t0, 1)}, StateStarting, 0, false},
		{"idle", []apimon.Kernel{kernel("idle", now.Add(-72*time.Minute), 1), kernel("idle", now.Add(-80*time.Minute), 0)}, StateIdle, 72 * time.Minute, true},
		{"idle briefly", []apimon.Kernel{kernel("idle", now.Add(-59*time.Minute), 1)}, StateIdle, 59 * time.Minute, false},
		{"idle, future clock", []apimon.Kernel{kernel("idle", now.Add(time.Minute), 1)}, StateIdle, 0, false},
	} {
		a := Judge(c.ks, now, nil)
		if a.State != c.state || a.For != c.for_ || a.IdleWarning() != c.warn {
			t.Errorf("%s: %+v (%s), want %s for %s warn %v", c.name, a, a.State, c.state, c.for_, c.warn)
		}
	}
	// What the local clock saw wins when the kernel's own last_activity
	// is recent (a skewed runtime clock).
	k := kernel("starting", now, 0)
	if a := Judge([]apimon.Kernel{k}, now, startedAt(now.Add(-2*time.Minute))); a.State != StateNeverConnected {
		t.Errorf("seen starting for 2 min: %s", a.State)
	}
}

// The store keeps the last figures through failures, marks them stale
// after three missed polls in a row, drops them when the route is not
// offered, and times "starting" by when it first saw it.
func TestStore(t *testing.T) {
	st := NewStore()
	boom := &apimon.Error{Op: "resources", Kind: apimon.KindUnavailable, Message: "HTTP 500"}
	if o := st.RecordResources("r", t0, t4(0.5, 0, true), nil); o != OutcomeOK {
		t.Fatal(o)
	}
	for i := 1; i <= 3; i++ {
		if o := st.RecordResources("r", t0.Add(time.Duration(i)*5*time.Second), apimon.Resources{}, boom); o != OutcomeFailed {
			t.Fatal(o)
		}
		r := st.Get("r")
		if r.ResourcesStale() != (i >= 3) || r.Last.Fraction(MetricMemory) != 0.5 || r.ResourcesErr != boom {
			t.Errorf("after %d failures: stale %v, %+v", i, r.ResourcesStale(), r.Last)
		}
	}
	st.RecordResources("r", t0.Add(time.Minute), t4(0.6, 0, true), nil)
	if r := st.Get("r"); r.ResourcesStale() || r.ResourcesErr != nil || r.History.Len(t0.Add(time.Minute)) != 2 {
		t.Errorf("after a success: %+v", r)
	}
	notOffered := &apimon.Error{Op: "resources", Kind: apimon.KindNotOffered}
	if o := st.RecordResources("r", t0.Add(2*time.Minute), apimon.Resources{}, notOffered); o != OutcomeNotOffered || !st.Get("r").NotOffered || !st.Get("r").ResourcesAt.IsZero() {
		t.Errorf("not offered: %v %+v", o, st.Get("r"))
	}
	if o := OutcomeOf(fmt.Errorf("poll: %w", context.Canceled)); o != OutcomeSkipped {
		t.Errorf("cancelled: %v", o)
	}
	if o := OutcomeOf(&apimon.Error{Kind: apimon.KindTokenRefused}); o != OutcomeFailed {
		t.Errorf("token refused after renewal: %v", o)
	}

	// A kernel starting, seen first at t0 though its last_activity keeps
	// being "now" (a runtime clock ahead): never connected after 60 s.
	ks := func(now time.Time) []apimon.Kernel {
		return []apimon.Kernel{{ID: "k", ExecutionState: "starting", LastActivity: now}}
	}
	st.RecordKernels("r", t0, ks(t0), nil)
	st.RecordKernels("r", t0.Add(61*time.Second), ks(t0.Add(61*time.Second)), nil)
	if a := st.Get("r").Activity(t0.Add(61 * time.Second)); a.State != StateNeverConnected {
		t.Errorf("starting since t0: %s", a.State)
	}
	st.RecordKernels("r", t0.Add(62*time.Second), []apimon.Kernel{{ID: "k", ExecutionState: "idle", LastActivity: t0.Add(62 * time.Second)}}, nil)
	if a := st.Get("r").Activity(t0.Add(2 * time.Minute)); a.State != StateIdle || a.For != 58*time.Second {
		t.Errorf("after it came up: %+v", a)
	}
	for range 3 {
		st.RecordKernels("r", t0.Add(3*time.Minute), nil, errors.New("boom"))
	}
	if r := st.Get("r"); !r.KernelsStale() || len(r.Kernels) != 1 {
		t.Errorf("kernels after 3 failures: %+v", r)
	}
	st.Retain(func(string) bool { return false })
	if st.Len() != 0 || st.Get("r") != nil {
		t.Errorf("Retain kept %d", st.Len())
	}
}

// startedAt is a KernelHistory in which every kernel was first seen
// starting at t, and none was up.
type startedAt time.Time

func (s startedAt) StartingSince(string) (time.Time, bool) { return time.Time(s), true }
func (startedAt) WasUp(string) bool                        { return false }
func (startedAt) Vanished() []time.Time                    { return nil }
