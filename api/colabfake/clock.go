package colabfake

import (
	"sync"
	"time"
)

// Clock is a settable fake clock for tests. Its Now method can be passed as
// Options.Now; the emulator reads it for every proxy-token expireTime and
// every per-minute quota window, and never sleeps on it. The zero Clock
// reads as the zero time; use NewClock. It is safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a Clock that reads t until it is Set or Advanced.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's current time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock to t (backwards too).
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// Advance moves the clock forward by d and returns the new time.
func (c *Clock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	return c.t
}
