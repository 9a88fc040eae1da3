package ops

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/client"
	"github.com/colabdash/colabdash/api/colabfake"
)

// startEmu starts the emulator on loopback and a client for it with the
// client's default retries, and makes the drivers' waits instant,
// recording them.
func startEmu(t *testing.T, o colabfake.Options) (*colabfake.Server, api.Service, *waits) {
	t.Helper()
	if o.CreatesPerMinute == 0 {
		o.CreatesPerMinute = -1
	}
	srv, ep, err := colabfake.Start(context.Background(), "127.0.0.1:0", o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	hc := oauth2.NewClient(context.Background(), oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "test"}))
	c, err := client.New(context.Background(), client.Options{Endpoint: ep, HTTPClient: &http.Client{Transport: hc.Transport},
		BaseDelay: time.Millisecond, Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
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
