package safefile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// oldFile is a new directory holding name with content and mode perm:
// the file a WriteAtomic test replaces, and its path.
func oldFile(t *testing.T, name, content string, perm os.FileMode) (dir, path string) {
	t.Helper()
	dir = t.TempDir()
	path = filepath.Join(dir, name)
	mustWrite(t, path, []byte(content), perm)
	return dir, path
}

func TestWriteAtomicReplacesWholeFileWithMode(t *testing.T) {
	dir, path := oldFile(t, "state.json", "old contents, longer than the new", 0o644)
	if err := WriteAtomic(path, []byte("new"), 0o600); err != nil {
		t.Fatalf("WriteAtomic: %v", err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "new" {
		t.Fatalf("read back %q, %v; want \"new\"", b, err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	if err := WriteAtomic(path, []byte("shared"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); runtime.GOOS != "windows" && st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644 whatever the umask", st.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the file (no part file left)", len(entries))
	}
}

func TestWriteAtomicReplacesSymlinkWithoutFollowing(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks")
	}
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "victim")
	mustWrite(t, outside, []byte("keep"), 0o600)
	path := filepath.Join(dir, "out.ipynb")
	if err := os.Symlink(outside, path); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(path, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(outside); string(b) != "keep" {
		t.Errorf("the link's target became %q: the write followed the link", b)
	}
	if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() {
		t.Errorf("path is %v (%v), want a regular file", st.Mode(), err)
	}
}

func TestWriteAtomicFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	// A directory where the file should go: the rename fails.
	path := filepath.Join(dir, "taken")
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(path, "inside"), nil, 0o600)
	if err := WriteAtomic(path, []byte("x"), 0o600); err == nil {
		t.Fatal("WriteAtomic over a non-empty directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries after a failed write, want 1 (the part file removed)", len(entries))
	}
	if err := WriteAtomic(filepath.Join(dir, "missing", "f"), []byte("x"), 0o600); err == nil {
		t.Error("WriteAtomic into a missing directory succeeded")
	}
}
