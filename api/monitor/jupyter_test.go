package monitor

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/realjupyter"
)

// startJupyter starts a real jupyter-server with ipykernel on loopback for
// this test and returns its URL, or skips the test when it is not
// installed (fails under COLABDASH_REQUIRE_JUPYTER=1, as CI sets).
func startJupyter(t *testing.T) string {
	t.Helper()
	return realjupyter.Require(t, realjupyter.Options{Kernels: true}).URL
}

// Against a real jupyter-server behind the emulator's proxy: a kernel
// started there is listed with Jupyter's own execution_state,
// last_activity and connections; the resources route, which a stock
// server lacks, is "not offered" at once, without renewing the token.
func TestKernelsAndNotOfferedOnRealJupyter(t *testing.T) {
	up := startJupyter(t)
	e := newEnv(t, colabfake.Options{Seed: colabfake.SeedEmpty, JupyterUpstream: up})
	rt, err := e.srv.AddRuntime(api.Runtime{Name: "runtimes/rt-real", ConnectionInfo: &api.ConnectionInfo{}})
	if err != nil {
		t.Fatal(err)
	}
	ci := *rt.ConnectionInfo
	c := New(Options{})
	ks, err := c.Kernels(ctx(t), ci)
	if err != nil || len(ks) != 0 {
		t.Fatalf("kernels of a fresh server: %+v, %v", ks, err)
	}

	req, _ := http.NewRequest(http.MethodPost, ci.URL+"api/kernels", nil)
	req.Header.Set(TokenHeader, ci.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var started struct {
		ID string `json:"id"`
	}
	err = json.NewDecoder(resp.Body).Decode(&started)
	resp.Body.Close()
	if err != nil || started.ID == "" {
		t.Fatalf("starting a kernel: HTTP %d, %v", resp.StatusCode, err)
	}
	t.Cleanup(func() {
		req, _ := http.NewRequest(http.MethodDelete, ci.URL+"api/kernels/"+started.ID, nil)
		req.Header.Set(TokenHeader, ci.Token)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	})
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
	if k.ID != started.ID || k.Name != "python3" || k.Connections != 0 || k.LastActivity.IsZero() ||
		time.Since(k.LastActivity) > 5*time.Minute || time.Since(k.LastActivity) < -time.Minute {
		t.Errorf("kernel %+v", k)
	}

	renewals := 0
	renew := func(cx context.Context) (api.ConnectionInfo, error) {
		renewals++
		return e.renew("rt-real")(cx)
	}
	_, _, err = WithRenewal(ctx(t), ci, renew, c.Resources)
	if !errors.Is(err, ErrNotOffered) || renewals != 0 {
		t.Fatalf("resources on a stock server: %v (%d renewals)", err, renewals)
	}
}
