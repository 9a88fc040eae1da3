package render

import (
	"testing"
	"time"

	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/state/monitor"
)

// The activity cell and the details' reason name the signal that decided:
// busy by a job, the GPU or a terminal; idle when the signals read agree,
// the unknown ones named; a terminal's name from the server is made safe.
func TestVerdictWords(t *testing.T) {
	now := time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC)
	idle := monitor.Judge([]apimon.Kernel{{ID: "k", ExecutionState: "idle", LastActivity: now.Add(-2 * time.Minute)}}, now, nil)
	gpu := func(u float64) []apimon.GPU { return []apimon.GPU{{Name: "T4", GPUUtilization: u}} }
	for _, c := range []struct {
		s                 monitor.Signals
		word, why, unknow string
	}{
		{monitor.Signals{Kernels: idle, JobsKnown: true, Jobs: 2, TerminalsKnown: true, GPUsKnown: true}, "busy job", "job: 2 running", ""},
		{monitor.Signals{Kernels: idle, GPUsKnown: true, GPUs: gpu(0.97)}, "busy GPU", "GPU 97%", "terminals, jobs"},
		{monitor.Signals{Kernels: idle, TerminalsKnown: true, Terminals: []apimon.Terminal{{Name: "1\x1b[31m", LastActivity: now.Add(-10 * time.Second)}}},
			"busy term", "terminal 1␛[31m 10s ago", "jobs, GPU"},
		{monitor.Signals{Kernels: idle, TerminalsKnown: true, JobsKnown: true, GPUsKnown: true, GPUs: gpu(0.02)}, "idle 2m", "kernels, terminals, jobs, GPU agree", ""},
		{monitor.Signals{Kernels: idle}, "idle 2m", "kernels alone", "terminals, jobs, GPU"},
	} {
		v := monitor.Decide(c.s, now)
		if w, why, u := VerdictWord(v), VerdictWhy(v), VerdictUnknown(v); w != c.word || why != c.why || u != c.unknow {
			t.Errorf("%+v: %q %q %q, want %q %q %q", c.s, w, why, u, c.word, c.why, c.unknow)
		}
	}
}
