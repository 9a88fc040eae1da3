package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// A rename that must not replace: into a free name it renames; onto a
// file written there since any check (or a link, or a directory) it
// fails with fs.ErrExist, and both stay as they were.
func TestRenameNoReplaceNeverReplaces(t *testing.T) {
	root := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		mustWrite(t, filepath.Join(root, name), []byte(body), 0o600)
	}
	d, err := OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	write("part", "new")
	if err := d.RenameNoReplace("part", "free"); err != nil {
		t.Fatalf("into a free name: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "free")); string(b) != "new" {
		t.Fatalf("renamed file holds %q", b)
	}
	if _, err := os.Lstat(filepath.Join(root, "part")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the part file is still there: %v", err)
	}
	if err := os.Mkdir(filepath.Join(root, "dir"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("free", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	write("taken", "mine")
	for _, to := range []string{"taken", "link", "dir"} {
		write("part", "new")
		if err := d.RenameNoReplace("part", to); !errors.Is(err, fs.ErrExist) {
			t.Fatalf("onto %s: %v, want fs.ErrExist", to, err)
		}
		if b, _ := os.ReadFile(filepath.Join(root, "part")); string(b) != "new" {
			t.Fatalf("onto %s: the part file holds %q", to, b)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(root, "taken")); string(b) != "mine" {
		t.Fatalf("the file at the name was replaced: %q", b)
	}
}
