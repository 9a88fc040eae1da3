package monitor

import (
	"strconv"
	"time"

	apimon "github.com/colabdash/colabdash/api/monitor"
)

// Thresholds of the signals other than kernels.
const (
	// TerminalActiveWithin: a terminal whose last activity (typing or
	// output) is at most this old keeps its runtime busy.
	TerminalActiveWithin = 2 * time.Minute
	// GPUActiveAbove: a GPU whose utilization is above this fraction (5 %)
	// keeps its runtime busy.
	GPUActiveAbove = 0.05
)

// Signal names what decided a runtime's activity word.
type Signal string

// The signals Decide weighs, in the order it checks them.
const (
	SignalKernel   Signal = "kernel"
	SignalJob      Signal = "job"
	SignalGPU      Signal = "GPU"
	SignalTerminal Signal = "terminal"
	// SignalFirstSeen: nothing was ever active on a runtime without
	// kernels; it is quiet since colabdash first read it (Colab's listing
	// gives no creation time).
	SignalFirstSeen Signal = "first seen"
)

// Signals is what is known of one runtime's work: its kernels' verdict
// (Judge), its terminals, its running jobs and its GPUs. A signal that
// was not read (yet) is not known: it can neither keep the runtime busy
// nor agree that it is idle (Verdict.Unknown lists it).
type Signals struct {
	Kernels Activity
	// Terminals are the runtime's terminals; TerminalsKnown is false until
	// they were listed.
	Terminals      []apimon.Terminal
	TerminalsKnown bool
	// LastTerminal is the newest terminal activity seen on the runtime,
	// of a terminal listed now or of one since closed (the Store
	// remembers it): it counts for the quiet time, never as busy (a
	// closed terminal does no work).
	LastTerminal apimon.Terminal
	// LastKernel is the newest kernel activity seen on the runtime, of a
	// kernel listed now or of one since shut down (the Store remembers
	// it): it counts for the quiet time.
	LastKernel time.Time
	// FirstSeen is when colabdash first read the runtime (zero: unknown):
	// a runtime without kernels on which nothing else was ever active is
	// quiet since then.
	FirstSeen time.Time
	// Jobs is how many jobs run on the runtime, and LastJobEnd when the
	// latest ended; JobsKnown is false until they were listed.
	Jobs       int
	LastJobEnd time.Time
	JobsKnown  bool
	// GPUs are the resources' GPUs (none on a CPU runtime); GPUsKnown is
	// false until the resources were read (or when they are not offered).
	GPUs      []apimon.GPU
	GPUsKnown bool
}

// Verdict is a runtime's activity by every signal.
type Verdict struct {
	// Activity is the kernels' verdict, with State turned busy when
	// another signal is (By then names it) and Since/For the quiet time
	// of every signal when all agree the runtime is idle.
	Activity
	// By is the signal that decided: the busy one, or for an idle runtime
	// the one whose activity was the most recent ("" when nothing was
	// ever active).
	By Signal
	// Detail says what By saw, for people: "2 running", "97%",
	// "terminal 1 10s ago".
	Detail string
	// Unknown lists the signals not read: an idle word then stands on the
	// others alone, and the idle guard does not act.
	Unknown []Signal
}

// AllKnown reports whether every signal was read.
func (v Verdict) AllKnown() bool { return len(v.Unknown) == 0 }

// GuardSince is when the runtime went quiet by every signal, for the idle
// guard: Since of an idle runtime, or of one without kernels on which
// nothing was ever active (quiet since first seen: it bills all the same);
// zero when it is not quiet or a signal was not read.
func (v Verdict) GuardSince() time.Time {
	if !v.AllKnown() || (v.State != StateIdle && !(v.State == StateNoKernels && v.By == SignalFirstSeen)) {
		return time.Time{}
	}
	return v.Since
}

// Stretch names the runtime's current stretch of quiet across processes,
// for what the idle guard remembers of it ("" when GuardSince is zero):
// the time it began, or "first seen" for a runtime never used (each
// process first saw it at its own time; it has one such stretch).
func (v Verdict) Stretch() string {
	since := v.GuardSince()
	switch {
	case since.IsZero():
		return ""
	case v.By == SignalFirstSeen:
		return string(SignalFirstSeen)
	}
	return since.UTC().Format(time.RFC3339Nano)
}

// Decide weighs every signal of a runtime at now: a busy kernel, a running
// job, a GPU above GPUActiveAbove or a terminal active within
// TerminalActiveWithin each make it busy (in that order, By naming the
// first); otherwise the kernels' word stands (idle, restarted, dead,
// starting, no kernels…), and an idle runtime's quiet time runs from the
// newest activity of any signal (a kernel's, a terminal's, listed or since
// closed, a job's end). A runtime without kernels on which nothing was
// ever active keeps the word no kernels, quiet since FirstSeen (By
// SignalFirstSeen) when that is known.
func Decide(s Signals, now time.Time) Verdict {
	v := Verdict{Activity: s.Kernels}
	if !s.TerminalsKnown {
		v.Unknown = append(v.Unknown, SignalTerminal)
	}
	if !s.JobsKnown {
		v.Unknown = append(v.Unknown, SignalJob)
	}
	if !s.GPUsKnown {
		v.Unknown = append(v.Unknown, SignalGPU)
	}
	if s.Kernels.State == StateBusy {
		v.By = SignalKernel
		return v
	}
	if s.Jobs > 0 {
		return busyBy(v, SignalJob, strconv.Itoa(s.Jobs)+" running")
	}
	for _, g := range s.GPUs {
		if g.Knows(apimon.GPUUtil) && g.GPUUtilization > GPUActiveAbove {
			return busyBy(v, SignalGPU, strconv.Itoa(int(g.GPUUtilization*100+0.5))+"%")
		}
	}
	var term apimon.Terminal
	for _, t := range s.Terminals {
		if last := plausible(t.LastActivity, now); last.After(term.LastActivity) {
			term = apimon.Terminal{Name: t.Name, LastActivity: last}
		}
	}
	if !term.LastActivity.IsZero() && now.Sub(term.LastActivity) <= TerminalActiveWithin {
		return busyBy(v, SignalTerminal, "terminal "+term.Name+" "+agoText(now.Sub(term.LastActivity)))
	}
	if v.State != StateIdle && v.State != StateNoKernels {
		if v.State != StateUnknown {
			v.By = SignalKernel
		}
		return v
	}
	// Idle (or no kernels): quiet since the newest activity of any signal.
	since, by := time.Time{}, Signal("")
	if v.State == StateIdle {
		since, by = v.Since, SignalKernel
	}
	if last := plausible(s.LastKernel, now); last.After(since) {
		since, by = last, SignalKernel // a kernel since shut down
	}
	if term.LastActivity.After(since) {
		since, by = term.LastActivity, SignalTerminal
	}
	if last := plausible(s.LastTerminal.LastActivity, now); last.After(since) {
		since, by = last, SignalTerminal // a terminal since closed
	}
	if end := plausible(s.LastJobEnd, now); end.After(since) {
		since, by = end, SignalJob
	}
	if v.State == StateNoKernels && by != "" {
		v.State = StateIdle // no kernel now, but a kernel, a terminal or a job was used
	}
	if first := plausible(s.FirstSeen, now); v.State == StateNoKernels && !first.IsZero() {
		since, by = first, SignalFirstSeen // created and never used: it bills all the same
	}
	v.By = by
	v.Since = since
	v.For = 0
	if !since.IsZero() {
		v.For = max(now.Sub(since), 0)
	}
	return v
}

// busyBy turns v busy by signal by.
func busyBy(v Verdict, by Signal, detail string) Verdict {
	v.State, v.By, v.Detail, v.Since, v.For = StateBusy, by, detail, time.Time{}, 0
	return v
}

// agoText words a short age: "10s ago", "1m30s ago".
func agoText(d time.Duration) string {
	return max(d, 0).Truncate(time.Second).String() + " ago"
}
