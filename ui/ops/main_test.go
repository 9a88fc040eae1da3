package ops

import (
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/client"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/ops/opstest"
)

// emulator starts api/colabfake on loopback with o (the demo seed when o
// names none) and returns it with a client that does not retry by
// itself.
func emulator(t *testing.T, o colabfake.Options) (*colabfake.Server, api.Service) {
	t.Helper()
	if o.Seed == "" {
		o.Seed = colabfake.SeedDemo
	}
	return opstest.Emulator(t, o, client.Options{MaxAttempts: 1})
}

// firstRuntime is the first runtime the emulator lists.
func firstRuntime(t *testing.T, srv *colabfake.Server) api.Runtime {
	t.Helper()
	rts := srv.Runtimes()
	if len(rts) == 0 {
		t.Fatal("the emulator lists no runtime")
	}
	return rts[0]
}
