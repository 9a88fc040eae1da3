package monitor

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake/colabfaketest"
	"github.com/colabdash/colabdash/api/colabfake/realjupyter"
	"github.com/colabdash/colabdash/api/jupyter"
)

// Against a real jupyter-server behind the emulator's proxy: a kernel
// started there is listed with Jupyter's own execution_state,
// last_activity and connections; the resources route, which a stock
// server lacks, is "not offered" at once, without renewing the token.
func TestKernelsAndNotOfferedOnRealJupyter(t *testing.T) {
	e := newEnv(t, colabfaketest.RealJupyterOptions(t))
	ci := *e.MustAdd(t, "runtimes/rt-real").ConnectionInfo
	c := New(Options{})
	ks, err := c.Kernels(ctx(t), ci)
	if err != nil || len(ks) != 0 {
		t.Fatalf("kernels of a fresh server: %+v, %v", ks, err)
	}

	kernel := realjupyter.StartKernel(t, ci)
	// A new kernel nobody connected to reports "starting" (for about a
	// minute on jupyter_server 1.23, measured), then "idle".
	ks, err = c.Kernels(ctx(t), ci)
	if err != nil || len(ks) != 1 {
		t.Fatalf("kernels: %+v, %v", ks, err)
	}
	k := ks[0]
	if k.ExecutionState != "starting" && k.ExecutionState != "idle" {
		t.Errorf("a new kernel is %q", k.ExecutionState)
	}
	if k.ID != kernel || k.Name != "python3" || k.Connections != 0 || k.LastActivity.IsZero() ||
		time.Since(k.LastActivity) > 5*time.Minute || time.Since(k.LastActivity) < -time.Minute {
		t.Errorf("kernel %+v", k)
	}

	renewals := 0
	renew := func(cx context.Context) (api.ConnectionInfo, error) {
		renewals++
		return e.Renewer("runtimes/rt-real")(cx)
	}
	_, _, err = WithRenewal(ctx(t), ci, renew, c.Resources)
	if !errors.Is(err, ErrNotOffered) || renewals != 0 {
		t.Fatalf("resources on a stock server: %v (%d renewals)", err, renewals)
	}
}

// A terminal on a real jupyter-server is listed with its last activity,
// which moves when the terminal is used: the signal that keeps a runtime
// with a training run in a terminal off "idle".
func TestTerminalsListedWithLastActivityOnRealJupyter(t *testing.T) {
	e := newEnv(t, colabfaketest.RealJupyterOptions(t))
	rt := e.MustAdd(t, "runtimes/rt-term")
	c := New(Options{})
	ts, err := c.Terminals(ctx(t), *rt.ConnectionInfo)
	if err != nil || len(ts) != 0 {
		t.Fatalf("terminals of a fresh server: %+v, %v", ts, err)
	}
	jc, err := jupyter.New(jupyter.Options{Runtime: "runtimes/rt-term", Info: *rt.ConnectionInfo})
	if err != nil {
		t.Fatal(err)
	}
	name, err := jc.CreateTerminal(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	ts, err = c.Terminals(ctx(t), *rt.ConnectionInfo)
	if err != nil || len(ts) != 1 || ts[0].Name != name {
		t.Fatalf("terminals: %+v, %v (created %q)", ts, err, name)
	}
	if at := ts[0].LastActivity; at.IsZero() || time.Since(at) > 5*time.Minute || time.Since(at) < -time.Minute {
		t.Errorf("a new terminal's last activity %v", at)
	}
}
