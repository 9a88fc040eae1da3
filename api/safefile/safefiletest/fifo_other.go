//go:build !unix

package safefiletest

import "testing"

// FIFO skips the test: this system has no named pipes.
func FIFO(t testing.TB, dir, name string) string {
	t.Helper()
	t.Skip("no named pipes on this system")
	return ""
}
