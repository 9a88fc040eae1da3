//go:build !unix

package shell

import "os"

// notifyResize: no SIGWINCH here; the size sent on open stays.
func notifyResize(chan os.Signal) (stop func()) { return func() {} }

var hangups = []os.Signal{os.Interrupt}
