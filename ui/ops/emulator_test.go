package ops

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/client"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/ops/opstest"
)

// startEmu starts the emulator on loopback and a client for it with the
// client's default retries, and makes the drivers' waits instant,
// recording them.
func startEmu(t *testing.T, o colabfake.Options) (*colabfake.Server, api.Service, *waits) {
	t.Helper()
	if o.CreatesPerMinute == 0 {
		o.CreatesPerMinute = -1
	}
	srv, c := opstest.Emulator(t, o, client.Options{BaseDelay: time.Millisecond,
		Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }})
	w := &waits{}
	old := Sleep
	Sleep = func(ctx context.Context, d time.Duration) error {
		w.add(d)
		return ctx.Err()
	}
	t.Cleanup(func() { Sleep = old })
	return srv, c, w
}

// waits records the drivers' waits.
type waits struct {
	mu sync.Mutex
	ds []time.Duration
}

func (w *waits) add(d time.Duration) { w.mu.Lock(); w.ds = append(w.ds, d); w.mu.Unlock() }

func (w *waits) all() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.ds...)
}

func cpu() api.RuntimeSpecKey {
	return api.RuntimeSpecKey{Variant: api.VariantCPU, Accelerator: api.AcceleratorNone, Shape: api.ShapeStandard}
}
