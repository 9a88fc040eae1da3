package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docsMan is the committed man pages, seen from this package's directory.
const docsMan = "../../../../docs/man"

// mangen DIR writes the same pages as docs/man (so a package built from
// it carries what the tree documents), creating DIR and replacing a
// symbolic link at a page's name instead of writing through it.
func TestWritesTheCommittedPages(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "share", "man1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "outside")
	if err := os.WriteFile(outside, []byte("keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "colabdash.1")); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	if code := run([]string{dir}, &stderr); code != 0 || stderr.Len() != 0 {
		t.Fatalf("mangen %s: exit %d %q", dir, code, stderr.String())
	}
	committed, err := os.ReadDir(docsMan)
	if err != nil {
		t.Fatal(err)
	}
	written, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(written) != len(committed) || len(committed) < 20 {
		t.Errorf("mangen wrote %d pages, docs/man holds %d", len(written), len(committed))
	}
	for _, e := range committed {
		want, _ := os.ReadFile(filepath.Join(docsMan, e.Name()))
		got, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil || string(got) != string(want) {
			t.Errorf("%s: %v, differs from docs/man's: %t", e.Name(), err, string(got) != string(want))
		}
	}
	if fi, err := os.Lstat(filepath.Join(dir, "colabdash.1")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("colabdash.1 is not a regular file: %v", err)
	}
	if b, _ := os.ReadFile(outside); string(b) != "keep\n" {
		t.Errorf("the link's target was written: %q", b)
	}
}

// Without DIR it says how it is used and exits 2, writing nothing.
func TestNeedsDir(t *testing.T) {
	for _, args := range [][]string{nil, {""}, {"a", "b"}} {
		var stderr strings.Builder
		if code := run(args, &stderr); code != 2 || !strings.Contains(stderr.String(), "usage: mangen DIR") {
			t.Errorf("mangen %q: exit %d %q", args, code, stderr.String())
		}
	}
}

// A directory that cannot be made is a one-line failure, exit 1.
func TestUnwritableDir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	if code := run([]string{filepath.Join(file, "man")}, &stderr); code != 1 || strings.Count(stderr.String(), "\n") != 1 || !strings.HasPrefix(stderr.String(), "mangen: ") {
		t.Errorf("mangen into a file's path: exit %d %q", code, stderr.String())
	}
}
