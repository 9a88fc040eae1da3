//go:build unix

package safefile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A directory swapped for a link after Sub opened it (the race a
// check-then-write by path loses) cannot redirect the write: the open
// directory is written, never the link's target.
func TestSubHoldsTheDirectoryNotThePath(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	d := openDir(t, root)
	sub, err := d.Sub("sub", true)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if err := os.Rename(filepath.Join(root, "sub"), filepath.Join(root, "moved")); err != nil {
		t.Fatal(err)
	}
	symlink(t, outside, filepath.Join(root, "sub"))
	f, err := sub.OpenFile("x", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := sub.Rename("x", "y"); err != nil {
		t.Fatal(err)
	}
	empty(t, outside)
	if _, err := os.Stat(filepath.Join(root, "moved", "y")); err != nil {
		t.Errorf("the write did not land in the directory Sub opened: %v", err)
	}
}

// A FIFO where a file is opened does not block the open (O_NONBLOCK);
// the caller sees its type.
func TestOpenFileDoesNotBlockOnAFIFO(t *testing.T) {
	root := t.TempDir()
	if err := mkfifo(filepath.Join(root, "p")); err != nil {
		t.Fatal(err)
	}
	d := openDir(t, root)
	f, err := d.OpenFile("p", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("Stat = %v, %v; want a named pipe", st, err)
	}
	if m, err := d.Mode("p"); err != nil || m&os.ModeNamedPipe == 0 {
		t.Errorf("Mode = %v, %v", m, err)
	}
}

func mkfifo(p string) error { return syscall.Mkfifo(p, 0o600) }
