//go:build unix

package safefile

import (
	"os"
	"syscall"
)

// openNoBlock opens path for reading with O_NONBLOCK, so opening a FIFO
// with no writer returns at once (the type check then rejects it) instead
// of blocking until a writer appears. O_NONBLOCK changes nothing for a
// regular file.
func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
