// Package jupytertest is the test bed of api/jupyter's packages: the
// emulator's runtime proxy in front of its own Jupyter file tree
// ("emulator") or of a real jupyter-server ("jupyter", started once per
// test binary), and a runtime to reach through it.
package jupytertest

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/client/clienttest"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/colabfaketest"
	"github.com/colabdash/colabdash/api/colabfake/realjupyter"
)

// Tests run the client against the emulator's runtime proxy, in two
// backends: the emulator's own Jupyter file tree ("emulator"), and a real
// jupyter-server behind the emulator's proxy ("jupyter", the Debian
// python3-jupyter-server package, started once per test binary; skipped
// with a clear message when it is not installed).

// T0 is the emulator clock's start.
var T0 = time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC)

// Backend is what serves the runtime's Jupyter API behind the proxy.
type Backend string

const (
	// Emulator is the emulator's own Jupyter file tree.
	Emulator Backend = "emulator"
	// Jupyter is the shared real jupyter-server.
	Jupyter Backend = "jupyter"
)

// Backends are both, in the order ForEachBackend runs them.
var Backends = []Backend{Emulator, Jupyter}

// jupyterServer is the shared real Jupyter server, started on first use.
var jupyterServer struct {
	once sync.Once
	srv  *realjupyter.Server
	skip string
}

// JupyterPython is the interpreter with jupyter_server importable:
// $COLABDASH_JUPYTER_PYTHON, else /usr/bin/python3 (Debian's package).
func JupyterPython() string { return realjupyter.Python() }

func startJupyter() {
	j := &jupyterServer
	srv, err := realjupyter.Start(realjupyter.Options{})
	if err != nil {
		j.skip = err.Error()
		return
	}
	j.srv = srv
}

// StopJupyter stops the shared real Jupyter server, if one was started
// (TestMain calls it after the tests).
func StopJupyter() {
	if s := jupyterServer.srv; s != nil {
		s.Stop()
	}
}

// RequireJupyter returns the real Jupyter server's URL or skips the test
// (fatal instead under COLABDASH_REQUIRE_JUPYTER=1).
func RequireJupyter(t testing.TB) string {
	t.Helper()
	jupyterServer.once.Do(startJupyter)
	if jupyterServer.skip != "" {
		if os.Getenv("COLABDASH_REQUIRE_JUPYTER") == "1" {
			t.Fatalf("COLABDASH_REQUIRE_JUPYTER=1 but %s", jupyterServer.skip)
		}
		t.Skip("SKIP real-Jupyter backend: " + jupyterServer.skip)
	}
	return jupyterServer.srv.URL
}

// Env is an emulator with one runtime, an MCP client to it (for
// get_runtime renewals) and the runtime.
type Env struct {
	T   testing.TB
	Be  Backend
	Srv *colabfake.Server
	Clk *colabfake.Clock
	Svc api.Service
	Rt  api.Runtime
	// Red is the redactor the test's clients share.
	Red *api.Redactor
	// Dir is the remote directory private to this test ("content", or
	// "content/<test>" on the shared real server).
	Dir     string
	onProxy func(*http.Request)
	mu      sync.Mutex
}

// NewEnv starts an emulator with one runtime ("runtimes/rt-files")
// whose proxy serves the backend be, stopped when the test ends.
func NewEnv(t testing.TB, be Backend, o colabfake.Options) *Env {
	t.Helper()
	e := &Env{T: t, Be: be, Clk: colabfake.NewClock(T0), Red: &api.Redactor{}}
	if be == Jupyter {
		o.JupyterUpstream = RequireJupyter(t)
	}
	if o.Now == nil {
		o.Now = e.Clk.Now
	}
	o.OnProxyRequest = func(r *http.Request) {
		e.mu.Lock()
		f := e.onProxy
		e.mu.Unlock()
		if f != nil {
			f(r)
		}
	}
	o.CreatesPerMinute = -1
	srv, ep := colabfaketest.Start(t, o)
	e.Srv = srv
	e.Svc = clienttest.New(t, ep)
	rt, err := srv.AddRuntime(api.Runtime{Name: "runtimes/rt-files", ConnectionInfo: &api.ConnectionInfo{}})
	if err != nil {
		t.Fatal(err)
	}
	e.Rt = rt
	e.Dir = "content"
	if be == Jupyter {
		// The real server's tree is shared by every test: each gets its own
		// directory, removed afterwards.
		name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())
		e.Dir = "content/" + name
		_ = os.RemoveAll(filepath.Join(jupyterServer.srv.Root, e.Dir))
		if err := os.MkdirAll(filepath.Join(jupyterServer.srv.Root, e.Dir), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.RemoveAll(filepath.Join(jupyterServer.srv.Root, e.Dir)) })
	}
	return e
}

// JupyterRoot is the shared real Jupyter server's root directory on this
// machine ("" before RequireJupyter started it).
func JupyterRoot() string {
	if jupyterServer.srv == nil {
		return ""
	}
	return jupyterServer.srv.Root
}

// SetOnProxy installs a hook run on every proxy request before its token
// is checked.
func (e *Env) SetOnProxy(f func(*http.Request)) {
	e.mu.Lock()
	e.onProxy = f
	e.mu.Unlock()
}

// Info is the runtime's connectionInfo as the emulator gave it.
func (e *Env) Info() api.ConnectionInfo { return *e.Rt.ConnectionInfo }

// Renew gets a fresh connectionInfo through get_runtime, as
// Options.Renew does in colabdash.
func (e *Env) Renew(ctx context.Context) (api.ConnectionInfo, error) {
	rt, err := e.Svc.GetRuntime(ctx, e.Rt.Name)
	if err != nil {
		return api.ConnectionInfo{}, err
	}
	if rt.ConnectionInfo == nil {
		return api.ConnectionInfo{}, fmt.Errorf("no connectionInfo")
	}
	return *rt.ConnectionInfo, nil
}

// P is a remote path inside the test's directory.
func (e *Env) P(name string) string { return e.Dir + "/" + name }

// ForEachBackend runs f as a subtest per backend.
func ForEachBackend(t *testing.T, f func(t *testing.T, be Backend)) {
	for _, be := range Backends {
		t.Run(string(be), func(t *testing.T) { f(t, be) })
	}
}
