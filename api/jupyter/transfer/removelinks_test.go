package transfer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// linkBed is a runtime tree with symbolic links in it, made on this
// machine where the backend serves it from: base (a remote path) is host
// here, and root is the host path of the runtime's root.
type linkBed struct {
	c          *Copier
	base, host string
	root       string
}

// newLinkBed serves a tree for the recursive-delete rule from the
// emulator or a real jupyter-server, its trash on or off:
//
//	base/keep.txt
//	base/sib/s.txt           a sibling of a
//	base/a/f.txt
//	base/a/tosib     -> ../sib         a link to a sibling
//	base/a/toparent  -> ..             a link to the parent
//	base/a/toroot    -> (the root)     a link to the runtime's root
//	base/a/tofile    -> ../keep.txt    a link to a file
//	base/lnk         -> sib            a link named as the target
func newLinkBed(t *testing.T, be jupytertest.Backend, trash bool) *linkBed {
	t.Helper()
	b := &linkBed{}
	switch {
	case be == jupytertest.Emulator:
		dir := t.TempDir()
		e := newEnv(t, be, colabfake.Options{FilesDir: dir, DeleteToTrash: trash})
		b.c, b.base = e.client(), "content/bed"
		b.root = filepath.Join(dir, "rt-files")
	case trash:
		url, root, _ := startOwnJupyter(t, ownJupyter{trash: true})
		e := newEnv(t, jupytertest.Emulator, colabfake.Options{JupyterUpstream: url})
		b.c, b.base, b.root = e.client(), "content/bed", root
	default:
		e := newEnv(t, be, colabfake.Options{})
		b.c, b.base, b.root = e.client(), e.P("bed"), jupytertest.JupyterRoot()
	}
	b.host = filepath.Join(b.root, filepath.FromSlash(b.base))
	a := filepath.Join(b.host, "a")
	for _, d := range []string{filepath.Join(b.host, "sib"), a} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{"keep.txt": "keep", "sib/s.txt": "sibling", "a/f.txt": "inside"} {
		if err := os.WriteFile(filepath.Join(b.host, filepath.FromSlash(name)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	toRoot, err := filepath.Rel(a, b.root)
	if err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"a/tosib": "../sib", "a/toparent": "..", "a/toroot": toRoot,
		"a/tofile": "../keep.txt", "lnk": "sib"} {
		if err := os.Symlink(target, filepath.Join(b.host, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// intact fails the test unless everything outside base/a (and base/lnk
// itself) is still there: the sibling's file, the parent's, the root's
// /content.
func (b *linkBed) intact(t *testing.T) {
	t.Helper()
	for _, p := range []string{"keep.txt", "sib/s.txt"} {
		if _, err := os.Stat(filepath.Join(b.host, filepath.FromSlash(p))); err != nil {
			t.Errorf("%s outside the tree removed: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(b.root, "content")); err != nil {
		t.Errorf("the root's /content removed: %v", err)
	}
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

// A recursive delete never removes anything outside the path named,
// whatever links it holds (to a sibling, the parent, the root, a file),
// and a link named as the target is removed itself, never what it points
// to: with the server's trash on, in one DELETE; with it off (the server
// deletes only empty directories), it refuses and removes nothing.
func TestRemoveAllNeverFollowsLinks(t *testing.T) {
	jupytertest.ForEachBackend(t, func(t *testing.T, be jupytertest.Backend) {
		for _, trash := range []bool{false, true} {
			name := map[bool]string{false: "trash off", true: "trash on"}[trash]
			t.Run(name, func(t *testing.T) {
				b := newLinkBed(t, be, trash)
				ctx := context.Background()
				var removed []string
				progress := func(p string) { removed = append(removed, p) }

				err := b.c.RemoveAll(ctx, b.base+"/a/tofile", progress)
				if err != nil || exists(filepath.Join(b.host, "a", "tofile")) {
					t.Errorf("rm of a link to a file: %v; the link is still there: %v", err, exists(filepath.Join(b.host, "a", "tofile")))
				}
				b.intact(t)

				err = b.c.RemoveAll(ctx, b.base+"/lnk", progress)
				switch {
				case trash && (err != nil || exists(filepath.Join(b.host, "lnk"))):
					t.Errorf("rm -r of a link to a directory: %v, link still there: %v; want the link removed", err, exists(filepath.Join(b.host, "lnk")))
				case !trash && !errors.Is(err, proxy.ErrNotRemoved):
					t.Errorf("rm -r of a link to a non-empty directory, trash off: %v; want ErrNotRemoved", err)
				}
				b.intact(t)

				removed = nil
				err = b.c.RemoveAll(ctx, b.base+"/a", progress)
				switch {
				case trash && err != nil:
					t.Errorf("rm -r of a directory holding links: %v", err)
				case trash && exists(filepath.Join(b.host, "a")):
					t.Error("rm -r left the directory")
				case !trash && !errors.Is(err, proxy.ErrNotRemoved):
					t.Errorf("rm -r of a non-empty directory, trash off: %v; want ErrNotRemoved", err)
				case !trash && (len(removed) != 0 || !exists(filepath.Join(b.host, "a", "f.txt"))):
					t.Errorf("a refused rm -r removed %v", removed)
				}
				b.intact(t)
			})
		}
	})
}
