//go:build unix

package shell

import (
	"os"
	"os/signal"
	"syscall"
)

// notifyResize delivers SIGWINCH on ch until stop is called.
func notifyResize(ch chan os.Signal) (stop func()) {
	signal.Notify(ch, syscall.SIGWINCH)
	return func() { signal.Stop(ch) }
}

// hangups are the signals that end a shell session (the terminal went
// away, or the process is asked to stop): the local terminal is restored
// first.
var hangups = []os.Signal{syscall.SIGHUP, syscall.SIGTERM, os.Interrupt}
