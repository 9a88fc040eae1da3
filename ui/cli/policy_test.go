package cli

import (
	"context"
	"testing"
	"time"

	"github.com/colabdash/colabdash/ui/ops"
)

// skipWaits makes the operations layer's waits between re-sends end at
// once for the test (the decisions stay state's): a reattach or a create
// re-sent "in 10 s" goes now.
func skipWaits(t *testing.T) {
	t.Helper()
	old := ops.Sleep
	ops.Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	t.Cleanup(func() { ops.Sleep = old })
}
