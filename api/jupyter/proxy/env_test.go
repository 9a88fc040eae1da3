package proxy

import (
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
)

// env is the test bed (internal/jupytertest): the emulator's runtime proxy
// in front of its own Jupyter tree or of a real jupyter-server, with this
// package's client.
type env struct{ *jupytertest.Env }

func newEnv(t testing.TB, be jupytertest.Backend, o colabfake.Options) *env {
	t.Helper()
	return &env{jupytertest.NewEnv(t, be, o)}
}

// TestMain stops the shared real Jupyter server (if one was started)
// after the tests.
func TestMain(m *testing.M) { jupytertest.Main(m) }

// client returns a client for the env's runtime, renewing through
// get_runtime, on the emulator's clock.
func (e *env) client(mod ...func(*Options)) *Client {
	e.T.Helper()
	o := Options{
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
	c, err := New(o)
	if err != nil {
		e.T.Fatal(err)
	}
	return c
}
