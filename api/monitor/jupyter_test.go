package monitor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
)

// startJupyter starts Debian's jupyter-server (with ipykernel) on
// loopback for this test and returns its URL, or skips the test when it
// is not installed (fails under COLABDASH_REQUIRE_JUPYTER=1, as CI sets).
func startJupyter(t *testing.T) string {
	t.Helper()
	py := os.Getenv("COLABDASH_JUPYTER_PYTHON")
	if py == "" {
		py = "/usr/bin/python3"
	}
	if err := exec.Command(py, "-c", "import jupyter_server, ipykernel").Run(); err != nil {
		msg := fmt.Sprintf("jupyter-server or ipykernel is not installed for %s (apt-get install python3-jupyter-server python3-ipykernel): %v", py, err)
		if os.Getenv("COLABDASH_REQUIRE_JUPYTER") == "1" {
			t.Fatal(msg)
		}
		t.Skip("SKIP real-Jupyter backend: " + msg)
	}
	root := t.TempDir()
	home := filepath.Join(root, ".home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(py, "-m", "jupyter_server", "--allow-root", "--no-browser", "--ip=127.0.0.1",
		fmt.Sprintf("--port=%d", port), "--port-retries=0", "--ServerApp.token=", "--ServerApp.password=",
		"--ServerApp.disable_check_xsrf=True", "--ServerApp.root_dir="+root)
	cmd.Env = append(os.Environ(), "HOME="+home, "JUPYTER_RUNTIME_DIR="+home, "JUPYTER_CONFIG_DIR="+home, "JUPYTER_DATA_DIR="+home)
	logf, err := os.Create(filepath.Join(home, "jupyter.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		logf.Close()
	})
	u := fmt.Sprintf("http://127.0.0.1:%d/", port)
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get(u + "api/status"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return u
			}
		}
	}
	b, _ := os.ReadFile(filepath.Join(home, "jupyter.log"))
	t.Fatalf("jupyter-server did not answer within 60 s: %s", b)
	return ""
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
