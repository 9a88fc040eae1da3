// Package colabfaketest starts the Colab emulator (api/colabfake) for a
// test, with the set-up every such test repeats. It is test support only:
// no production package imports it.
package colabfaketest

import (
	"context"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/realjupyter"
)

// Start starts the Colab emulator with o on a loopback port,
// closed when the test ends: the server and its MCP endpoint URL
// ("http://127.0.0.1:PORT/mcp"). A failure to start fails the test.
func Start(t testing.TB, o colabfake.Options) (*colabfake.Server, string) {
	t.Helper()
	srv, ep, err := colabfake.Start(context.Background(), "127.0.0.1:0", o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv, ep
}

// RealJupyterOptions is the emulator's options for runtimes whose proxy
// fronts a real jupyter-server that starts kernels (realjupyter.Require,
// which skips the test where none can start, or fails it under
// COLABDASH_REQUIRE_JUPYTER=1), with no seeded runtimes.
func RealJupyterOptions(t testing.TB) colabfake.Options {
	t.Helper()
	return colabfake.Options{Seed: colabfake.SeedEmpty,
		JupyterUpstream: realjupyter.Require(t, realjupyter.Options{Kernels: true}).URL}
}
