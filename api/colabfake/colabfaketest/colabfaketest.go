// Package colabfaketest starts the Colab emulator (api/colabfake) for a
// test, with the set-up every such test repeats. It is test support only:
// no production package imports it.
package colabfaketest

import (
	"context"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
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
