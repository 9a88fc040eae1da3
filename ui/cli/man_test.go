package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The hidden `man DIR` writes the same pages as docs/man (so a package
// built from it carries what the tree documents), creating DIR, replacing
// a symbolic link at a page's name instead of writing through it; it is
// not itself documented, and works with a broken config file.
func TestManWritesThePages(t *testing.T) {
	home := isolate(t)
	broken := writeFile(t, filepath.Join(home, "broken.yaml"), "theme: blue\n")
	dir := filepath.Join(t.TempDir(), "share", "man1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "outside")
	writeFile(t, outside, "keep\n")
	if err := os.Symlink(outside, filepath.Join(dir, "colabdash.1")); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCLI(t, "--config", broken, "man", dir); code != 0 || out != "" || errs != "" {
		t.Fatalf("man %s: exit %d %q %q", dir, code, out, errs)
	}
	committed, err := os.ReadDir(filepath.Join(repoRoot, referenceManDir))
	if err != nil {
		t.Fatal(err)
	}
	written, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(written) != len(committed) || len(committed) < 20 {
		t.Errorf("man wrote %d pages, docs/man holds %d", len(written), len(committed))
	}
	for _, e := range committed {
		want, _ := os.ReadFile(filepath.Join(repoRoot, referenceManDir, e.Name()))
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
	if b, _ := os.ReadFile(filepath.Join(dir, "colabdash.1")); strings.Contains(string(b), "colabdash-man") {
		t.Error("the hidden man command is listed in colabdash.1")
	}
	if code, _, errs := runCLI(t, "man"); code != 2 || !strings.Contains(errs, "man needs DIR") {
		t.Errorf("man without DIR: exit %d %q", code, errs)
	}
}
