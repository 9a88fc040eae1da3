package transfer

// The bounds of cp -r (tree.go, uptree.go): how deep and how large a
// tree may be.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// A recursive download walks a remote tree exactly proxy.MaxDepth (128)
// directories deep below its source and copies the file at the bottom;
// one directory deeper and it refuses the tree (ErrUnsafeName, saying
// how deep) instead of walking on.
func TestRecursiveDownloadDepthLimit(t *testing.T) {
	jupytertest.ForEachBackend(t, func(t *testing.T, be jupytertest.Backend) {
		files := t.TempDir()
		e := newEnv(t, be, colabfake.Options{FilesDir: files, TokenTTL: 24 * time.Hour})
		c := e.client()
		ctx := context.Background()
		if _, _, err := c.ListEach(ctx, e.Dir, func(proxy.Model) error { return nil }); err != nil { // the store exists
			t.Fatal(err)
		}
		// deep/l001/l002/…/l128/f.txt: each level named apart, so no
		// listing repeats another's (which would read as a loop).
		levels := make([]string, proxy.MaxDepth)
		for i := range levels {
			levels[i] = fmt.Sprintf("l%03d", i+1)
		}
		rel := filepath.Join(levels...)
		bottom := filepath.Join(storeDir(e, files), "deep", rel)
		must(t, os.MkdirAll(bottom, 0o755))
		must(t, os.WriteFile(filepath.Join(bottom, "f.txt"), []byte("bottom"), 0o644))

		out := filepath.Join(t.TempDir(), "out")
		if err := c.DownloadPath(ctx, e.P("deep"), out, false, CopyOptions{Recursive: true}); err != nil {
			t.Fatalf("download of a tree %d levels deep: %v", proxy.MaxDepth, err)
		}
		if got := readOr(t, filepath.Join(out, rel, "f.txt")); got != "bottom" {
			t.Errorf("the file %d levels down holds %q, want %q", proxy.MaxDepth, got, "bottom")
		}

		must(t, os.Mkdir(filepath.Join(bottom, "l129"), 0o755))
		err := c.DownloadPath(ctx, e.P("deep"), filepath.Join(t.TempDir(), "out"), false, CopyOptions{Recursive: true})
		if !errors.Is(err, proxy.ErrUnsafeName) || !strings.Contains(err.Error(), "deeper than 128 levels") {
			t.Fatalf("download of a tree %d levels deep = %v, want ErrUnsafeName saying it is deeper than 128 levels", proxy.MaxDepth+1, err)
		}
	})
}

// lowerMaxEntries bounds recursive walks to n entries for the test.
func lowerMaxEntries(t *testing.T, n int) {
	t.Helper()
	old := maxEntries
	maxEntries = n
	t.Cleanup(func() { maxEntries = old })
}

// A recursive copy, either way, copies a tree of exactly maxEntries
// entries (files and directories below the source); one entry more and
// it is refused, saying the tree has too many entries. (The bound is
// lowered to 5 for the test; it is a million.)
func TestRecursiveCopyEntryLimit(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client()
	ctx := context.Background()
	lowerMaxEntries(t, 5)
	// 5 entries: a.txt, b.txt, sub, sub/c.txt, sub/d.txt.
	five := map[string]string{"a.txt": "a", "b.txt": "b", "sub/c.txt": "c", "sub/d.txt": "d"}
	six := map[string]string{"e.txt": "e"}
	for k, v := range five {
		six[k] = v
	}

	t.Run("download", func(t *testing.T) {
		tree := map[string]string{}
		for k, v := range five {
			tree["d/"+k] = v
		}
		putTree(t, e, c, tree)
		out := filepath.Join(t.TempDir(), "out")
		if err := c.DownloadPath(ctx, e.P("d"), out, false, CopyOptions{Recursive: true}); err != nil {
			t.Fatalf("download of 5 entries with the bound at 5: %v", err)
		}
		if got := readOr(t, filepath.Join(out, "sub", "d.txt")); got != "d" {
			t.Errorf("sub/d.txt holds %q", got)
		}
		putTree(t, e, c, map[string]string{"d/e.txt": "e"})
		err := c.DownloadPath(ctx, e.P("d"), filepath.Join(t.TempDir(), "out"), false, CopyOptions{Recursive: true})
		if !errors.Is(err, proxy.ErrUnsafeName) || !strings.Contains(err.Error(), "more than a million entries") {
			t.Fatalf("download of 6 entries with the bound at 5 = %v, want ErrUnsafeName saying there are too many entries", err)
		}
	})

	t.Run("upload", func(t *testing.T) {
		src := localTree(t, five)
		if err := c.UploadPath(ctx, src, e.P("up5"), false, CopyOptions{Recursive: true}); err != nil {
			t.Fatalf("upload of 5 entries with the bound at 5: %v", err)
		}
		if got := strings.Join(remoteNames(t, c, e.P("up5/sub")), ","); got != "c.txt,d.txt" {
			t.Errorf("the runtime's up5/sub holds %s", got)
		}
		err := c.UploadPath(ctx, localTree(t, six), e.P("up6"), false, CopyOptions{Recursive: true})
		if !errors.Is(err, proxy.ErrLocal) || !strings.Contains(err.Error(), "more than a million entries") {
			t.Fatalf("upload of 6 entries with the bound at 5 = %v, want ErrLocal saying there are too many entries", err)
		}
		if _, err := c.Stat(ctx, e.P("up6")); !errors.Is(err, proxy.ErrNotFound) {
			t.Errorf("the refused upload made its destination: stat = %v", err)
		}
	})
}
