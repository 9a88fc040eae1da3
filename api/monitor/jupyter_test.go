package monitor

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake/colabfaketest"
	"github.com/colabdash/colabdash/api/colabfake/realjupyter"
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
