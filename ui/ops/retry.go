package ops

import (
	"context"
	"time"
)

// Sleep is how the blocking drivers (Create, WaitListed, Exec) wait
// between sends: d, or until ctx ends, when it returns ctx's error. Tests
// of the front ends replace it so that a re-send decided for later goes
// at once; the decisions themselves (state's deciders) do not change.
var Sleep = func(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Now is the drivers' clock, read for the deciders' At. Tests may fix it.
var Now = time.Now
