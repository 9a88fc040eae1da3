//go:build unix

package paint

import (
	"os"
	"os/signal"
	"syscall"
)

// Supported reports whether the Painter runs on this system: on Unix it
// learns the window's size from SIGWINCH.
const Supported = true

// watchSize calls changed on every SIGWINCH until the returned stop is
// called.
func watchSize(changed func()) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGWINCH)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-ch:
				changed()
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(ch); close(done) }
}
