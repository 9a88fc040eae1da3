package transfer

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
)

// The link check's Python counts the hidden names below the directory
// (a hidden directory once, not what it holds), the names a download
// cannot copy.
func TestLinkCodeCountsHiddenNames(t *testing.T) {
	root := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(root, ".git", "objects"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, ".git", "objects", ".o"), []byte("o"), 0o644))
	must(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, ".env"), []byte("e"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "sub", ".x"), []byte("x"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "sub", "a.txt"), []byte("a"), 0o644))
	l, err := ParseLinks(runLinkCode(t, root))
	if err != nil || l.Hidden != 3 {
		t.Fatalf("hidden = %d (%v), want 3 (.git, .env, sub/.x)", l.Hidden, err)
	}
	if l, err := ParseLinks(runLinkCode(t, filepath.Join(root, "sub", "a.txt")+"-none")); err == nil {
		t.Fatalf("a missing root: %+v", l)
	}
	must(t, os.RemoveAll(filepath.Join(root, ".git")))
	must(t, os.Remove(filepath.Join(root, ".env")))
	must(t, os.Remove(filepath.Join(root, "sub", ".x")))
	if l, err := ParseLinks(runLinkCode(t, root)); err != nil || l.Hidden != 0 {
		t.Fatalf("hidden = %d (%v) in a tree without hidden names, want 0", l.Hidden, err)
	}
}

// A recursive download warns of hidden names only when the runtime's
// check found some, and says how many; a tree without any downloads
// without a word. Without the check (-L) it still says some may be
// missing, since nothing counted them.
func TestDownloadWarnsOfHiddenNamesOnlyWhenThereAreSome(t *testing.T) {
	files := t.TempDir()
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{FilesDir: files})
	c := e.client()
	ctx := context.Background()
	proj := filepath.Join(t.TempDir(), "proj")
	must(t, os.MkdirAll(proj, 0o755))
	must(t, os.WriteFile(filepath.Join(proj, "a.txt"), []byte("a"), 0o644))
	if err := c.UploadPath(ctx, proj, e.P("proj"), false, CopyOptions{Recursive: true}); err != nil {
		t.Fatal(err)
	}
	hidden := 0
	check := func(context.Context, string) (Links, error) { return Links{Hidden: hidden}, nil }
	var warns []string
	o := CopyOptions{Recursive: true, Links: check, Warn: func(s string) { warns = append(warns, s) }}
	if err := c.DownloadPath(ctx, e.P("proj"), filepath.Join(t.TempDir(), "out"), false, o); err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 {
		t.Errorf("a tree without hidden names warned %q", warns)
	}
	hidden = 2
	if err := c.DownloadPath(ctx, e.P("proj"), filepath.Join(t.TempDir(), "out"), false, o); err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || !strings.HasPrefix(warns[0], "2 hidden names in /"+e.P("proj")+" not copied") {
		t.Errorf("warnings %q, want one counting 2 hidden names", warns)
	}
}
