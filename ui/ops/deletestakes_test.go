package ops

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
)

// listedRuntime is runtime id as svc lists it.
func listedRuntime(t *testing.T, svc api.Service, id string) api.Runtime {
	t.Helper()
	rts, err := svc.ListRuntimes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, rt := range rts {
		if rt.ID() == id {
			return rt
		}
	}
	t.Fatalf("%s not listed", id)
	return api.Runtime{}
}

// A delete question learns the running job from the runtime itself; one
// whose Jupyter server does not answer in time is said unchecked, and the
// question does not wait longer than asked.
func TestReadDeleteStakes(t *testing.T) {
	_, svc, _ := startEmu(t, colabfake.Options{Seed: colabfake.SeedDemo})
	rt := listedRuntime(t, svc, "rt-t4demo7k2p")
	got := ReadDeleteStakes(context.Background(), svc, rt, JupyterOptions{}, DeleteStakesWithin).Sentence()
	if !strings.Contains(got, "its running job "+colabfake.DemoRunningJob+" (python train.py") {
		t.Errorf("the running job is not named: %q", got)
	}

	_, slow, _ := startEmu(t, colabfake.Options{Seed: colabfake.SeedDemo, ProxyLatency: 3 * time.Second})
	rt = listedRuntime(t, slow, "rt-t4demo7k2p")
	start := time.Now()
	got = ReadDeleteStakes(context.Background(), slow, rt, JupyterOptions{}, 200*time.Millisecond).Sentence()
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the question waited %v for the jobs", took)
	}
	if !strings.Contains(got, "Its jobs could not be checked (no answer within 200ms)") {
		t.Errorf("a runtime that did not answer is not said unchecked: %q", got)
	}
}
