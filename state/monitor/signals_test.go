package monitor

import (
	"errors"
	"testing"
	"time"

	apimon "github.com/colabdash/colabdash/api/monitor"
)

// A Runtime's Signals: terminals recorded (a server without terminals:
// none, known), kept across a failure and unknown after StaleAfter of
// them; jobs known only after a listing; GPUs only from fresh resources.
// The verdict follows: a terminal typed in keeps the runtime busy, an
// old one leaves it idle from the terminal's last activity.
func TestRuntimeSignals(t *testing.T) {
	s := NewStore()
	now := t0.Add(time.Hour)
	name := "runtimes/r"
	s.RecordKernels(name, now, []apimon.Kernel{{ID: "k", ExecutionState: "idle", LastActivity: now.Add(-30 * time.Minute), Connections: 1}}, nil)
	v := s.Get(name).Verdict(now)
	if v.State != StateIdle || len(v.Unknown) != 3 {
		t.Fatalf("kernels alone: %+v", v)
	}
	s.RecordTerminals(name, now, []apimon.Terminal{{Name: "1", LastActivity: now.Add(-10 * time.Second)}}, nil)
	if v := s.Get(name).Verdict(now); v.State != StateBusy || v.By != SignalTerminal || v.Detail != "terminal 1 10s ago" {
		t.Errorf("a terminal typed in 10 s ago: %+v", v)
	}
	later := now.Add(5 * time.Minute)
	s.RecordTerminals(name, later, []apimon.Terminal{{Name: "1", LastActivity: now}}, nil)
	if v := s.Get(name).Verdict(later); v.State != StateIdle || v.By != SignalTerminal || v.For != 5*time.Minute {
		t.Errorf("a terminal quiet 5 min: %+v", v)
	}
	now = later
	fail := &apimon.Error{Op: "terminals", Kind: apimon.KindUnavailable, Message: "HTTP 502"}
	s.RecordTerminals(name, now, nil, fail)
	if sig := s.Get(name).Signals(now); !sig.TerminalsKnown || len(sig.Terminals) != 1 {
		t.Errorf("one failure dropped the terminals: %+v", sig)
	}
	for range StaleAfter {
		s.RecordTerminals(name, now, nil, fail)
	}
	if sig := s.Get(name).Signals(now); sig.TerminalsKnown {
		t.Errorf("terminals still known after %d failures", StaleAfter+1)
	}
	notOffered := &apimon.Error{Op: "terminals", Kind: apimon.KindNotOffered, Status: 404}
	if o := s.RecordTerminals(name, now, nil, notOffered); o != OutcomeNotOffered || !errors.Is(notOffered, apimon.ErrNotOffered) {
		t.Errorf("outcome %v", o)
	}
	if sig := s.Get(name).Signals(now); !sig.TerminalsKnown || len(sig.Terminals) != 0 {
		t.Errorf("a server without terminals: %+v", sig)
	}
	s.RecordJobs(name, 2, time.Time{}, true)
	if v := s.Get(name).Verdict(now); v.State != StateBusy || v.By != SignalJob || v.Detail != "2 running" {
		t.Errorf("two jobs running: %+v", v)
	}
	s.RecordJobs(name, 0, now.Add(-time.Minute), true)
	if v := s.Get(name).Verdict(now); v.State != StateIdle || v.By != SignalJob || v.For != time.Minute {
		t.Errorf("a job ended a minute ago: %+v", v)
	}
	s.RecordJobs(name, 0, time.Time{}, false)
	if v := s.Get(name).Verdict(now); v.By != SignalTerminal || len(v.Unknown) != 2 {
		t.Errorf("jobs not listed: %+v", v)
	}
	s.RecordResources(name, now, apimon.Resources{GPUs: []apimon.GPU{{Name: "T4", GPUUtilization: 0.97}}}, nil)
	if v := s.Get(name).Verdict(now); v.State != StateBusy || v.By != SignalGPU || v.Detail != "97%" {
		t.Errorf("a GPU at 97 %%: %+v", v)
	}
}
