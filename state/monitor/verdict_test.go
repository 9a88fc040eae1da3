package monitor

import (
	"slices"
	"testing"
	"time"

	apimon "github.com/colabdash/colabdash/api/monitor"
)

func TestDecideEverySignalMustAgreeOnIdle(t *testing.T) {
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	idleKernels := Judge([]apimon.Kernel{{ID: "k", ExecutionState: "idle", LastActivity: ago(2 * time.Hour)}}, now, nil)
	busyKernels := Judge([]apimon.Kernel{{ID: "k", ExecutionState: "busy", LastActivity: ago(time.Minute)}}, now, nil)
	known := func(s Signals) Signals { s.TerminalsKnown, s.JobsKnown, s.GPUsKnown = true, true, true; return s }
	gpu := func(util float64) apimon.GPU {
		return apimon.GPU{Name: "T4", GPUUtilization: util, MemoryUsedBytes: 9 << 30}
	}
	cases := []struct {
		name   string
		s      Signals
		state  State
		by     Signal
		detail string
		idle   time.Duration
	}{
		{"a busy kernel (its time since the last output kept)", known(Signals{Kernels: busyKernels}), StateBusy, SignalKernel, "", time.Minute},
		{"a running job beside idle kernels", known(Signals{Kernels: idleKernels, Jobs: 1}), StateBusy, SignalJob, "1 running", 0},
		{"a GPU at 97 %", known(Signals{Kernels: idleKernels, GPUs: []apimon.GPU{gpu(0.97)}}), StateBusy, SignalGPU, "97%", 0},
		{"a GPU at 5 % is not work", known(Signals{Kernels: idleKernels, GPUs: []apimon.GPU{gpu(0.05)}}), StateIdle, SignalKernel, "", 2 * time.Hour},
		{"a GPU whose utilization is unknown keeps nothing busy", known(Signals{Kernels: idleKernels, GPUs: []apimon.GPU{{Name: "T4", Unknown: apimon.GPUUtil}}}), StateIdle, SignalKernel, "", 2 * time.Hour},
		{"a terminal typed in 10 s ago", known(Signals{Kernels: idleKernels, Terminals: []apimon.Terminal{{Name: "1", LastActivity: ago(10 * time.Second)}}}),
			StateBusy, SignalTerminal, "terminal 1 10s ago", 0},
		{"a terminal quiet for 20 min makes the idle time shorter", known(Signals{Kernels: idleKernels, Terminals: []apimon.Terminal{{Name: "2", LastActivity: ago(20 * time.Minute)}}}),
			StateIdle, SignalTerminal, "", 20 * time.Minute},
		{"a job that ended 5 min ago", known(Signals{Kernels: idleKernels, LastJobEnd: ago(5 * time.Minute)}), StateIdle, SignalJob, "", 5 * time.Minute},
		{"no kernels but a terminal used an hour ago", known(Signals{Kernels: Judge([]apimon.Kernel{}, now, nil), Terminals: []apimon.Terminal{{Name: "1", LastActivity: ago(time.Hour)}}}),
			StateIdle, SignalTerminal, "", time.Hour},
		{"no kernels and nothing else", known(Signals{Kernels: Judge([]apimon.Kernel{}, now, nil)}), StateNoKernels, "", "", 0},
		{"every kernel dead", known(Signals{Kernels: Judge([]apimon.Kernel{{ID: "k", ExecutionState: "dead"}}, now, nil)}), StateDead, SignalKernel, "", 0},
		{"a job beats a dead kernel", known(Signals{Kernels: Judge([]apimon.Kernel{{ID: "k", ExecutionState: "dead"}}, now, nil), Jobs: 2}), StateBusy, SignalJob, "2 running", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Decide(c.s, now)
			if v.State != c.state || v.By != c.by || v.Detail != c.detail || v.For != c.idle {
				t.Errorf("got %s by %q (%q) for %s, want %s by %q (%q) for %s", v.State, v.By, v.Detail, v.For, c.state, c.by, c.detail, c.idle)
			}
			if !v.AllKnown() {
				t.Errorf("every signal was read, yet unknown: %v", v.Unknown)
			}
		})
	}
}

func TestDecideListsSignalsNotRead(t *testing.T) {
	now := time.Now()
	v := Decide(Signals{Kernels: Judge([]apimon.Kernel{{ID: "k", ExecutionState: "idle", LastActivity: now.Add(-time.Hour)}}, now, nil), GPUsKnown: true}, now)
	if v.State != StateIdle || v.AllKnown() || !slices.Equal(v.Unknown, []Signal{SignalTerminal, SignalJob}) {
		t.Errorf("verdict %+v: an idle word on kernels and GPU alone must list terminals and jobs as unknown", v)
	}
}
