package transfer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// The bounds of cp -r (tree.go, uptree.go): how deep and how large a
// tree may be.

// A recursive download walks a remote tree exactly proxy.MaxDepth (128)
// directories deep below its source and copies the file at the bottom;
// one directory deeper and it refuses the tree (ErrUnsafeName, saying
// how deep) instead of walking on.
func TestRecursiveDownloadDepthLimit(t *testing.T) {
	jupytertest.ForEachBackend(t, func(t *testing.T, be jupytertest.Backend) {
		e, c, store := newStoreEnv(t, be)
		ctx := context.Background()
		// deep/l001/l002/…/l128/f.txt: each level named apart, so no
		// listing repeats another's (which would read as a loop).
		levels := make([]string, proxy.MaxDepth)
		for i := range levels {
			levels[i] = fmt.Sprintf("l%03d", i+1)
		}
		rel := filepath.Join(levels...)
		bottom := filepath.Join(store, "deep", rel)
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
	e, c := newEnvClient(t, jupytertest.Emulator)
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

// localChain makes root/l001/l002/… (levels directories, each named
// apart so that no listing repeats another's) with f.txt at the bottom
// and returns the bottom's path below root.
func localChain(t *testing.T, root string, levels int) string {
	t.Helper()
	parts := make([]string, levels)
	for i := range parts {
		parts[i] = fmt.Sprintf("l%03d", i+1)
	}
	rel := filepath.Join(parts...)
	must(t, os.MkdirAll(filepath.Join(root, rel), 0o755))
	must(t, os.WriteFile(filepath.Join(root, rel, "f.txt"), []byte("bottom"), 0o644))
	return rel
}

// One depth limit in both directions: a tree proxy.MaxDepth levels deep
// uploads and downloads back whole; one level deeper is refused by the
// upload before any request (nothing is created on the runtime), in the
// download's words.
func TestDepthLimitIsTheSameBothWays(t *testing.T) {
	forEachEnvClient(t, func(t *testing.T, e *env, c *Copier) {
		ctx := context.Background()
		src := filepath.Join(t.TempDir(), "deep")
		rel := localChain(t, src, proxy.MaxDepth)
		if err := c.UploadPath(ctx, src, e.P("deep"), false, CopyOptions{Recursive: true}); err != nil {
			t.Fatalf("upload of a tree %d levels deep: %v", proxy.MaxDepth, err)
		}
		out := filepath.Join(t.TempDir(), "out")
		if err := c.DownloadPath(ctx, e.P("deep"), out, false, CopyOptions{Recursive: true}); err != nil {
			t.Fatalf("download of the tree it uploaded: %v", err)
		}
		if got := readOr(t, filepath.Join(out, rel, "f.txt")); got != "bottom" {
			t.Errorf("the file %d levels down holds %q", proxy.MaxDepth, got)
		}

		tooDeep := filepath.Join(t.TempDir(), "toodeep")
		localChain(t, tooDeep, proxy.MaxDepth+1)
		err := c.UploadPath(ctx, tooDeep, e.P("toodeep"), false, CopyOptions{Recursive: true})
		if !errors.Is(err, proxy.ErrUnsafeName) || !strings.Contains(err.Error(), proxy.DepthText()) {
			t.Errorf("upload of a tree %d levels deep: %v, want ErrUnsafeName saying %q", proxy.MaxDepth+1, err, proxy.DepthText())
		}
		if _, err := c.Stat(ctx, e.P("toodeep")); !errors.Is(err, proxy.ErrNotFound) {
			t.Errorf("the refused upload created its destination: %v", err)
		}
	})
}

// A chain of look-alike directories (every level named "a", made on one
// tick of the emulator's clock, so every listing but the last is the
// same) is no loop once the links below it were listed and are skipped:
// its download copies it whole, 120 levels down.
func TestLookAlikeChainIsNoLoopWhenLinksAreChecked(t *testing.T) {
	forEachEnvClient(t, func(t *testing.T, e *env, c *Copier) {
		ctx := context.Background()
		src := filepath.Join(t.TempDir(), "chain")
		rel := filepath.Join(slices.Repeat([]string{"a"}, 120)...)
		must(t, os.MkdirAll(filepath.Join(src, rel), 0o755))
		must(t, os.WriteFile(filepath.Join(src, rel, "f.txt"), []byte("bottom"), 0o644))
		if err := c.UploadPath(ctx, src, e.P("chain"), false, CopyOptions{Recursive: true}); err != nil {
			t.Fatalf("upload: %v", err)
		}
		noLinks := func(context.Context, string) (Links, error) { return Links{}, nil }
		out := filepath.Join(t.TempDir(), "out")
		var warned []string
		o := CopyOptions{Recursive: true, Links: noLinks, Warn: func(s string) { warned = append(warned, s) }}
		if err := c.DownloadPath(ctx, e.P("chain"), out, false, o); err != nil {
			t.Fatalf("download: %v (warnings %q)", err, warned)
		}
		if got := readOr(t, filepath.Join(out, rel, "f.txt")); got != "bottom" {
			t.Errorf("the file 120 levels down holds %q (warnings %q)", got, warned)
		}
	})
}
