//go:build unix

package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
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

// Remove takes away the link itself, never what it leads to; a name
// that is not there is an error naming its path.
func TestRemoveRemovesALinkNotItsTarget(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	victim := filepath.Join(outside, "victim")
	mustWrite(t, victim, []byte("precious"), 0o644)
	symlink(t, victim, filepath.Join(root, "link"))
	d := openDir(t, root)
	if err := d.Remove("link"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(root, "link")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the link is still there: %v", err)
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != "precious" {
		t.Errorf("the link's target: %q, %v", b, err)
	}
	err := d.Remove("link")
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != filepath.Join(root, "link") || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("removing a missing name: %v", err)
	}
	if err := d.Remove("../x"); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("Remove(../x) = %v, want a refusal", err)
	}
}

// Chtimes sets a file's times; on a link it sets the link's own, and the
// file it leads to keeps its time.
func TestChtimesNeverFollowsALink(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	victim := filepath.Join(outside, "victim")
	mustWrite(t, victim, nil, 0o644)
	vst, err := os.Stat(victim)
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(root, "f"), nil, 0o644)
	symlink(t, victim, filepath.Join(root, "link"))
	d := openDir(t, root)
	stamp := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, name := range []string{"f", "link"} {
		if err := d.Chtimes(name, stamp, stamp); err != nil {
			t.Fatalf("Chtimes(%s): %v", name, err)
		}
		if st, err := os.Lstat(filepath.Join(root, name)); err != nil || !st.ModTime().Equal(stamp) {
			t.Errorf("%s: mtime %v, %v; want %v", name, st.ModTime(), err, stamp)
		}
	}
	if st, err := os.Stat(victim); err != nil || !st.ModTime().Equal(vst.ModTime()) {
		t.Errorf("the link's target changed time: %v, %v", st.ModTime(), err)
	}
	err = d.Chtimes("missing", stamp, stamp)
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != filepath.Join(root, "missing") || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Chtimes of a missing name: %v", err)
	}
	if err := d.Chtimes("a/b", stamp, stamp); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("Chtimes(a/b) = %v, want a refusal", err)
	}
}

// A closed Dir writes nothing more, and closing it again (a deferred
// Close after an explicit one) is harmless however often.
func TestClosedDirWritesNothing(t *testing.T) {
	root := t.TempDir()
	d, err := OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if f, err := d.OpenFile("x", os.O_RDWR|os.O_CREATE, 0o644); err == nil {
		f.Close()
		t.Error("a closed Dir opened a file")
	}
	empty(t, root)
	for i := range 3 {
		if err := d.Close(); err != nil {
			t.Errorf("Close #%d after the first: %v", i+2, err)
		}
	}
}
