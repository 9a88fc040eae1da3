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

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

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
	jupytertest.ForEachBackend(t, func(t *testing.T, be jupytertest.Backend) {
		e := newEnv(t, be, colabfake.Options{})
		c := e.client()
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
	jupytertest.ForEachBackend(t, func(t *testing.T, be jupytertest.Backend) {
		e := newEnv(t, be, colabfake.Options{})
		c := e.client()
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
