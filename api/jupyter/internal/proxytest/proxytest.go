// Package proxytest is the test bed of the packages built on the proxy
// client (api/jupyter/forward, api/jupyter/transfer): jupytertest's
// emulator and runtime, with a proxy client for that runtime. The proxy
// package's own tests build their client in-package, since this package
// imports proxy.
package proxytest

import (
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// RetryDelay is the first pause between a test client's transfer
// attempts: short, so a test of a retry does not wait 200 ms.
const RetryDelay = 10 * time.Millisecond

// Env is jupytertest's bed: an emulator with one runtime whose proxy
// serves the chosen backend.
type Env struct{ *jupytertest.Env }

// NewEnv starts the bed (jupytertest.NewEnv), stopped when the test ends;
// with backend jupytertest.Jupyter it skips the test when no real
// jupyter-server can start.
func NewEnv(t testing.TB, be jupytertest.Backend, o colabfake.Options) *Env {
	t.Helper()
	return &Env{jupytertest.NewEnv(t, be, o)}
}

// Client returns a proxy client for the Env's runtime: renewing its
// token through get_runtime, on the emulator's clock, sharing the Env's
// redactor, retrying after RetryDelay. Each mod edits the options first;
// options proxy.New refuses fail the test.
func (e *Env) Client(mod ...func(*proxy.Options)) *proxy.Client {
	e.T.Helper()
	o := proxy.Options{
		Runtime:    e.Rt.Name,
		Info:       e.Info(),
		Now:        e.Clk.Now,
		Redactor:   e.Red,
		RetryDelay: RetryDelay,
		Renew:      e.Renew,
	}
	for _, m := range mod {
		m(&o)
	}
	c, err := proxy.New(o)
	if err != nil {
		e.T.Fatal(err)
	}
	return c
}
