package transfer

import (
	"os"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// The test bed (internal/jupytertest): the emulator's runtime proxy in
// front of its own Jupyter tree or of a real jupyter-server.

type backend = jupytertest.Backend

const (
	backendEmulator = jupytertest.Emulator
	backendJupyter  = jupytertest.Jupyter
)

var t0 = jupytertest.T0

// env is the test bed with this package's client.
type env struct{ *jupytertest.Env }

func newEnv(t testing.TB, be backend, o colabfake.Options) *env {
	t.Helper()
	return &env{jupytertest.NewEnv(t, be, o)}
}

// TestMain stops the shared real Jupyter server (if one was started)
// after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	jupytertest.StopJupyter()
	os.Exit(code)
}

// client returns a client for the env's runtime, renewing through
// get_runtime, on the emulator's clock.
func (e *env) client(mod ...func(*proxy.Options)) *Copier {
	e.T.Helper()
	o := proxy.Options{
		Runtime:    e.Rt.Name,
		Info:       e.Info(),
		Now:        e.Clk.Now,
		Redactor:   e.Red,
		RetryDelay: 10 * time.Millisecond,
		Renew:      e.Renew,
	}
	for _, m := range mod {
		m(&o)
	}
	c, err := proxy.New(o)
	if err != nil {
		e.T.Fatal(err)
	}
	return New(c)
}

// p is a remote path inside the test's directory.
func (e *env) p(name string) string { return e.P(name) }

func forEachBackend(t *testing.T, f func(t *testing.T, be backend)) { jupytertest.ForEachBackend(t, f) }

func requireJupyter(t testing.TB) string { return jupytertest.RequireJupyter(t) }

// newCopier is proxy.New then New, for a test's own server.
func newCopier(o proxy.Options) (*Copier, error) {
	c, err := proxy.New(o)
	if err != nil {
		return nil, err
	}
	return New(c), nil
}
