// Package safefiletest makes the local files a bounded reader or a
// careful writer must refuse or handle without blocking: a link to a file
// that never ends, a named pipe nobody writes to. It is test support
// only, shared by the tests of api/safefile and of every package that
// reads or writes the user's files through it (auth, config, transfer).
package safefiletest

import (
	"os"
	"path/filepath"
	"testing"
)

// EndlessLink makes name in dir a symbolic link to /dev/zero, a file that
// never ends (read whole, it once grew to 22 GB), and returns its path.
// Where there is no /dev/zero the test is skipped.
func EndlessLink(t testing.TB, dir, name string) string {
	t.Helper()
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skipf("no /dev/zero here: %v", err)
	}
	p := filepath.Join(dir, name)
	if err := os.Symlink("/dev/zero", p); err != nil {
		t.Fatal(err)
	}
	return p
}
