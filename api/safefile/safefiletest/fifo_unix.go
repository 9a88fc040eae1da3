//go:build unix

package safefiletest

import (
	"path/filepath"
	"syscall"
	"testing"
)

// FIFO makes a named pipe, mode 0600, named name in dir and returns its
// path: opening it to read blocks until a writer comes, and to write until
// a reader does. Where there are no named pipes the test is skipped.
func FIFO(t testing.TB, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
