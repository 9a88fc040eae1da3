package transfer

import (
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/internal/proxytest"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// env is the test bed (internal/proxytest): the emulator's runtime proxy
// in front of its own Jupyter tree or of a real jupyter-server, with a
// Copier over a proxy client for the runtime.
type env struct{ *proxytest.Env }

func newEnv(t testing.TB, be jupytertest.Backend, o colabfake.Options) *env {
	t.Helper()
	return &env{proxytest.NewEnv(t, be, o)}
}

// newEnvClient is the test bed of backend be with the emulator's default
// options, and a Copier for its runtime: most tests' whole set-up.
func newEnvClient(t testing.TB, be jupytertest.Backend) (*env, *Copier) {
	t.Helper()
	e := newEnv(t, be, colabfake.Options{})
	return e, e.client()
}

// forEachEnvClient runs f as a subtest per backend, each on its own bed
// (newEnvClient): the set-up of most tests that run on both backends.
func forEachEnvClient(t *testing.T, f func(t *testing.T, e *env, c *Copier)) {
	jupytertest.ForEachBackend(t, func(t *testing.T, be jupytertest.Backend) {
		e, c := newEnvClient(t, be)
		f(t, e, c)
	})
}

// TestMain stops the shared real Jupyter server (if one was started)
// after the tests.
func TestMain(m *testing.M) { jupytertest.Main(m) }

// client returns a Copier over proxytest's client for the env's runtime.
func (e *env) client(mod ...func(*proxy.Options)) *Copier {
	e.T.Helper()
	return New(e.Client(mod...))
}

// newCopier is proxy.New then New, for a test's own server; options
// proxy.New refuses fail the test.
func newCopier(t testing.TB, o proxy.Options) *Copier {
	t.Helper()
	c, err := proxy.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return New(c)
}

// wantNoRenewal fails the test when c renewed its proxy token: what (the
// answer c got) says nothing about the token.
func wantNoRenewal(t testing.TB, c *Copier, what string) {
	t.Helper()
	if n := c.Renewals(); n != 0 {
		t.Errorf("%s renewed the token %d times, want 0", what, n)
	}
}
