package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mustWrite writes b to path with mode perm (os.WriteFile), failing the
// test when it cannot.
func mustWrite(t *testing.T, path string, b []byte, perm os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, b, perm); err != nil {
		t.Fatal(err)
	}
}

// symlink makes a link in the test; a system that cannot is a failure,
// not a skip: these tests are the guard.
func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatalf("cannot make the symbolic link this test needs: %v", err)
	}
}

func openDir(t *testing.T, path string) *Dir {
	t.Helper()
	d, err := OpenDir(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// empty fails the test when dir holds anything: nothing was written
// outside the destination.
func empty(t *testing.T, dir string) {
	t.Helper()
	if es, err := os.ReadDir(dir); err != nil || len(es) != 0 {
		t.Fatalf("%s holds %v (%v): a write went through the link", dir, es, err)
	}
}

// out/sub -> /elsewhere: Sub refuses it with one line naming the path
// and where it leads, and creates nothing there.
func TestSubRefusesALinkedDirectory(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	symlink(t, outside, filepath.Join(root, "sub"))
	d := openDir(t, root)
	for _, create := range []bool{false, true} {
		_, err := d.Sub("sub", create)
		if !errors.Is(err, ErrSymlink) {
			t.Fatalf("Sub(create=%v) = %v, want ErrSymlink", create, err)
		}
		want := filepath.Join(root, "sub") + " (a link to " + outside + "): is a symbolic link, not followed"
		if !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("error %q, want one line starting %q", err, want)
		}
	}
	empty(t, outside)
}

// A link to a file is refused as well: no directory is made where it is,
// and a file in the way is ErrNotDir.
func TestSubCreatesMissingAndRefusesFiles(t *testing.T) {
	root := t.TempDir()
	d := openDir(t, root)
	s, err := d.Sub("new", true)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Path() != filepath.Join(root, "new") {
		t.Errorf("Path = %q", s.Path())
	}
	if st, err := os.Lstat(filepath.Join(root, "new")); err != nil || !st.IsDir() {
		t.Fatalf("Sub(create) made no directory: %v", err)
	}
	if _, err := d.Sub("missing", false); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Sub(missing, no create) = %v, want not exist", err)
	}
	mustWrite(t, filepath.Join(root, "file"), nil, 0o644)
	if _, err := d.Sub("file", true); !errors.Is(err, ErrNotDir) || !strings.Contains(err.Error(), "a regular file, not a directory") {
		t.Errorf("Sub(file) = %v, want ErrNotDir", err)
	}
	for _, bad := range []string{"", ".", "..", "a/b", "/abs"} {
		if _, err := d.Sub(bad, true); err == nil {
			t.Errorf("Sub(%q) was accepted", bad)
		}
	}
}

// OpenFile never opens through a link, also with O_CREATE: the link's
// target keeps its bytes and no file appears where a dangling link
// points.
func TestOpenFileRefusesLinks(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	victim := filepath.Join(outside, "victim")
	mustWrite(t, victim, []byte("precious"), 0o644)
	symlink(t, victim, filepath.Join(root, "f"))
	symlink(t, filepath.Join(outside, "new"), filepath.Join(root, "dangling"))
	d := openDir(t, root)
	for _, name := range []string{"f", "dangling"} {
		f, err := d.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
		if err == nil {
			f.Close()
		}
		if !errors.Is(err, ErrSymlink) || !strings.Contains(err.Error(), filepath.Join(root, name)) {
			t.Errorf("OpenFile(%s) = %v, want ErrSymlink naming it", name, err)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("the link's target holds %q", b)
	}
	if _, err := os.Lstat(filepath.Join(outside, "new")); err == nil {
		t.Error("a file was created where the dangling link points")
	}
	f, err := d.OpenFile("plain", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("ok"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if b, _ := os.ReadFile(filepath.Join(root, "plain")); string(b) != "ok" {
		t.Errorf("plain file holds %q", b)
	}
}

// Rename refuses a link (or a directory) at its target and leaves it;
// onto a plain name or file it renames.
func TestRenameRefusesALinkAtTheTarget(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	d := openDir(t, root)
	for _, n := range []string{"part", "old"} {
		mustWrite(t, filepath.Join(root, n), []byte(n), 0o644)
	}
	symlink(t, outside, filepath.Join(root, "link"))
	if err := os.Mkdir(filepath.Join(root, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := d.Rename("part", "link"); !errors.Is(err, ErrSymlink) {
		t.Errorf("Rename onto a link = %v, want ErrSymlink", err)
	}
	if st, err := os.Lstat(filepath.Join(root, "link")); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	if err := d.Rename("part", "dir"); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Rename onto a directory = %v, want ErrNotRegular", err)
	}
	if err := d.Rename("part", "old"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "old")); string(b) != "part" {
		t.Errorf("old holds %q after the rename", b)
	}
	empty(t, outside)
}

// The directory the user named may itself be a link (their choice, as
// with cp): OpenDir follows it, and writes land where it leads.
func TestOpenDirFollowsTheNamedDirectory(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "dest")
	symlink(t, real, link)
	d := openDir(t, link)
	f, err := d.OpenFile("x", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := os.Stat(filepath.Join(real, "x")); err != nil {
		t.Errorf("the file is not in the link's directory: %v", err)
	}
	file := filepath.Join(real, "x")
	if _, err := OpenDir(file); !errors.Is(err, ErrNotDir) {
		t.Errorf("OpenDir(a file) = %v, want ErrNotDir", err)
	}
	if _, err := OpenDir(filepath.Join(real, "nope")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenDir(missing) = %v, want not exist", err)
	}
}
