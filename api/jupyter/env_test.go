package jupyter

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/client"
	"github.com/colabdash/colabdash/api/colabfake"
)

// Tests run the client against the emulator's runtime proxy, in two
// backends: the emulator's own Jupyter file tree ("emulator"), and a real
// jupyter-server behind the emulator's proxy ("jupyter", the Debian
// python3-jupyter-server package, started once per test binary; skipped
// with a clear message when it is not installed).

var t0 = time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC)

type backend string

const (
	backendEmulator backend = "emulator"
	backendJupyter  backend = "jupyter"
)

var backends = []backend{backendEmulator, backendJupyter}

// jupyterServer is the shared real Jupyter server, started on first use.
var jupyterServer struct {
	once sync.Once
	url  string // with ?token= none: auth disabled
	root string
	cmd  *exec.Cmd
	skip string
}

// jupyterPython is the interpreter with jupyter_server importable:
// $COLABDASH_JUPYTER_PYTHON, else /usr/bin/python3 (Debian's package).
func jupyterPython() string {
	if p := os.Getenv("COLABDASH_JUPYTER_PYTHON"); p != "" {
		return p
	}
	return "/usr/bin/python3"
}

func startJupyter() {
	j := &jupyterServer
	py := jupyterPython()
	if err := exec.Command(py, "-c", "import jupyter_server").Run(); err != nil {
		j.skip = fmt.Sprintf("jupyter-server is not installed for %s (apt-get install python3-jupyter-server): %v", py, err)
		return
	}
	root, err := os.MkdirTemp("", "colabdash-jupyter-")
	if err != nil {
		j.skip = err.Error()
		return
	}
	_ = os.MkdirAll(filepath.Join(root, "content"), 0o755)
	_ = os.MkdirAll(filepath.Join(root, ".home"), 0o755)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		j.skip = err.Error()
		return
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(py, "-m", "jupyter_server", "--allow-root", "--no-browser", "--ip=127.0.0.1",
		fmt.Sprintf("--port=%d", port), "--port-retries=0", "--ServerApp.token=", "--ServerApp.password=",
		"--ServerApp.disable_check_xsrf=True", "--FileContentsManager.delete_to_trash=False",
		"--ServerApp.root_dir="+root)
	cmd.Env = append(os.Environ(), "HOME="+filepath.Join(root, ".home"), "JUPYTER_RUNTIME_DIR="+filepath.Join(root, ".home"),
		"JUPYTER_CONFIG_DIR="+filepath.Join(root, ".home"), "JUPYTER_DATA_DIR="+filepath.Join(root, ".home"))
	logf, _ := os.Create(filepath.Join(root, ".home", "jupyter.log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		j.skip = "starting jupyter-server: " + err.Error()
		return
	}
	j.cmd, j.root = cmd, root
	j.url = fmt.Sprintf("http://127.0.0.1:%d/", port)
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(j.url + "api/status")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	b, _ := os.ReadFile(filepath.Join(root, ".home", "jupyter.log"))
	j.skip = "jupyter-server did not answer within 60 s: " + string(b)
}

func stopJupyter() {
	j := &jupyterServer
	if j.cmd != nil && j.cmd.Process != nil {
		_ = j.cmd.Process.Kill()
		_ = j.cmd.Wait()
	}
	if j.root != "" {
		_ = os.RemoveAll(j.root)
	}
}

// requireJupyter returns the real Jupyter server's URL or skips the test.
func requireJupyter(t testing.TB) string {
	t.Helper()
	jupyterServer.once.Do(startJupyter)
	if jupyterServer.skip != "" {
		if os.Getenv("COLABDASH_REQUIRE_JUPYTER") == "1" {
			t.Fatalf("COLABDASH_REQUIRE_JUPYTER=1 but %s", jupyterServer.skip)
		}
		t.Skip("SKIP real-Jupyter backend: " + jupyterServer.skip)
	}
	return jupyterServer.url
}

// env is an emulator with one runtime, an MCP client to it (for
// get_runtime renewals) and the runtime.
type env struct {
	t       testing.TB
	be      backend
	srv     *colabfake.Server
	clk     *colabfake.Clock
	svc     api.Service
	rt      api.Runtime
	red     *api.Redactor
	dir     string // remote directory private to this test ("content/<test>")
	onProxy func(*http.Request)
	mu      sync.Mutex
}

func newEnv(t testing.TB, be backend, o colabfake.Options) *env {
	t.Helper()
	e := &env{t: t, be: be, clk: colabfake.NewClock(t0), red: &api.Redactor{}}
	if be == backendJupyter {
		o.JupyterUpstream = requireJupyter(t)
	}
	if o.Now == nil {
		o.Now = e.clk.Now
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
	srv, ep, err := colabfake.Start(context.Background(), "127.0.0.1:0", o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	e.srv = srv
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	hc := oauth2.NewClient(context.Background(), oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "test"}))
	c, err := client.New(ctx, client.Options{Endpoint: ep, HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	e.svc = c
	rt, err := srv.AddRuntime(api.Runtime{Name: "runtimes/rt-files", ConnectionInfo: &api.ConnectionInfo{}})
	if err != nil {
		t.Fatal(err)
	}
	e.rt = rt
	e.dir = "content"
	if be == backendJupyter {
		// The real server's tree is shared by every test: each gets its own
		// directory, removed afterwards.
		name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())
		e.dir = "content/" + name
		_ = os.RemoveAll(filepath.Join(jupyterServer.root, e.dir))
		if err := os.MkdirAll(filepath.Join(jupyterServer.root, e.dir), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.RemoveAll(filepath.Join(jupyterServer.root, e.dir)) })
	}
	return e
}

// setOnProxy installs a hook run on every proxy request before its token
// is checked.
func (e *env) setOnProxy(f func(*http.Request)) {
	e.mu.Lock()
	e.onProxy = f
	e.mu.Unlock()
}

// client returns a jupyter Client for the env's runtime, renewing through
// get_runtime, on the emulator's clock.
func (e *env) client(mod ...func(*Options)) *Client {
	e.t.Helper()
	o := Options{
		Runtime:    e.rt.Name,
		Info:       *e.rt.ConnectionInfo,
		Now:        e.clk.Now,
		Redactor:   e.red,
		RetryDelay: 10 * time.Millisecond,
		Renew: func(ctx context.Context) (api.ConnectionInfo, error) {
			rt, err := e.svc.GetRuntime(ctx, e.rt.Name)
			if err != nil {
				return api.ConnectionInfo{}, err
			}
			if rt.ConnectionInfo == nil {
				return api.ConnectionInfo{}, fmt.Errorf("no connectionInfo")
			}
			return *rt.ConnectionInfo, nil
		},
	}
	for _, m := range mod {
		m(&o)
	}
	c, err := New(o)
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

// p is a remote path inside the test's directory.
func (e *env) p(name string) string { return e.dir + "/" + name }

// forEachBackend runs f as a subtest per backend.
func forEachBackend(t *testing.T, f func(t *testing.T, be backend)) {
	for _, be := range backends {
		t.Run(string(be), func(t *testing.T) { f(t, be) })
	}
}
