package safefile

import (
	"os"
	"strings"
	"syscall"
	"testing"
)

// A write that fails half-way (here the process's file size limit; a
// full disk alike) leaves the old file whole and no part file: never a
// half-written config or state file.
func TestWriteAtomicFailedWriteKeepsTheOldFile(t *testing.T) {
	dir, path := oldFile(t, "last-spec.json", "old", 0o600)
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	// Go ignores SIGXFSZ, so a write past the limit fails with EFBIG.
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 16, Max: old.Max}); err != nil {
		t.Fatalf("cannot lower the file size limit: %v", err)
	}
	err := WriteAtomic(path, []byte(strings.Repeat("new ", 64)), 0o600)
	if rerr := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); rerr != nil {
		t.Fatalf("cannot restore the file size limit: %v", rerr)
	}
	if err == nil {
		t.Error("a write past the file size limit succeeded")
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("the file holds %q, want the old contents", b)
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("the directory holds %d entries, want the file alone", len(es))
	}
}
