package transfer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// A download never replaces a local file unless told to (cp -f): a
// single file, named or into a directory, and a tree whose files exist
// locally are refused before anything is written, in one line naming the
// first file and counting the others; the directories the walk made are
// gone again. With Overwrite the same copies replace them.
func TestDownloadRefusesToReplaceALocalFile(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client()
	ctx := context.Background()
	putTree(t, e, c, map[string]string{"a.txt": "remote", "proj/a.txt": "ra", "proj/b.txt": "rb", "proj/new/n.txt": "rn", "proj/sub/s.txt": "rs"})
	out := t.TempDir()
	mine := filepath.Join(out, "a.txt")
	os.WriteFile(mine, []byte("mine"), 0o644)
	for what, call := range map[string]func(o CopyOptions) error{
		"named":          func(o CopyOptions) error { return c.DownloadPath(ctx, e.P("a.txt"), mine, false, o) },
		"into a dir":     func(o CopyOptions) error { return c.DownloadPath(ctx, e.P("a.txt"), out, false, o) },
		"into a dir (/)": func(o CopyOptions) error { return c.DownloadPath(ctx, e.P("a.txt"), out+"/", true, o) },
	} {
		err := call(CopyOptions{})
		if !errors.Is(err, proxy.ErrLocalExists) || !strings.Contains(err.Error(), mine+" exists") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one ErrLocalExists line naming %s", what, err, mine)
		}
		if got := readOr(t, mine); got != "mine" {
			t.Fatalf("%s: the local file now holds %q", what, got)
		}
	}
	noLeftovers(t, out, "a.txt")

	// A tree: out/proj holds a.txt and b.txt and sub/ already.
	proj := mkdir(t, filepath.Join(out, "proj"))
	mkdir(t, filepath.Join(proj, "sub"))
	os.WriteFile(filepath.Join(proj, "a.txt"), []byte("la"), 0o644)
	os.WriteFile(filepath.Join(proj, "b.txt"), []byte("lb"), 0o644)
	var w warnings
	o := w.opts()
	err := c.DownloadPath(ctx, e.P("proj"), out, false, o)
	if !errors.Is(err, proxy.ErrLocalExists) || !strings.Contains(err.Error(), filepath.Join(proj, "a.txt")+" and 1 more file exist") {
		t.Fatalf("cp -r into a tree holding two of its files: %v, want ErrLocalExists naming a.txt and counting 1 more", err)
	}
	for name, want := range map[string]string{"a.txt": "la", "b.txt": "lb"} {
		if got := readOr(t, filepath.Join(proj, name)); got != want {
			t.Errorf("refused, yet %s holds %q", name, got)
		}
	}
	noLeftovers(t, proj, "a.txt", "b.txt", "sub") // new/ was made by the walk, then removed
	noLeftovers(t, filepath.Join(proj, "sub"))

	o.Overwrite = true
	if err := c.DownloadPath(ctx, e.P("proj"), out, false, o); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a.txt": "ra", "b.txt": "rb", "new/n.txt": "rn", "sub/s.txt": "rs"} {
		if got := readOr(t, filepath.Join(proj, filepath.FromSlash(name))); got != want {
			t.Errorf("with Overwrite %s holds %q, want %q", name, got, want)
		}
	}
	if err := c.DownloadPath(ctx, e.P("a.txt"), out, false, CopyOptions{Overwrite: true}); err != nil || readOr(t, mine) != "remote" {
		t.Errorf("a single file with Overwrite: %v, the file holds %q", err, readOr(t, mine))
	}
}

// cp -r up into an existing remote directory goes below it under the
// source's name; into the runtime's root that is a top-level directory,
// refused before any request writes; a hidden source name, which the
// runtime's Jupyter server refuses, is refused with a line saying how to
// name the destination.
func TestRecursiveUploadIntoAnExistingRemoteDirectory(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client()
	ctx := context.Background()
	src := localTree(t, map[string]string{"a.txt": "a"})
	if err := c.MkdirAll(ctx, e.P("results")); err != nil {
		t.Fatal(err)
	}
	if err := c.UploadPath(ctx, src, e.P("results")+"/", true, CopyOptions{Recursive: true}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(remoteNames(t, c, e.P("results/tree")), ","); got != "a.txt" {
		t.Errorf("results/tree holds %q, want a.txt", got)
	}
	if err := c.UploadPath(ctx, src, "", true, CopyOptions{Recursive: true}); !errors.Is(err, proxy.ErrTopLevel) {
		t.Errorf("cp -r tree RT:/ = %v, want ErrTopLevel (it would be /tree)", err)
	}
	hidden := filepath.Join(t.TempDir(), ".cfg")
	mkdir(t, hidden)
	if err := c.UploadPath(ctx, hidden, e.P("results"), false, CopyOptions{Recursive: true}); !errors.Is(err, proxy.ErrLocal) || !strings.Contains(err.Error(), "RUNTIME:PATH/NAME") {
		t.Errorf("a hidden source into a directory: %v, want ErrLocal saying to name it in full", err)
	}
}

// The check for a local file is made again when the download ends: a
// file written at the name while the bytes were on their way (after the
// check before the first request) is not replaced, the part file is gone,
// and the refusal names it; with Overwrite it is.
func TestDownloadKeepsAFileWrittenWhileItRan(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client()
	ctx := context.Background()
	putTree(t, e, c, map[string]string{"race.bin": "remote"})
	out := t.TempDir()
	mine := filepath.Join(out, "race.bin")
	for _, overwrite := range []bool{false, true} {
		os.Remove(mine)
		o := CopyOptions{Overwrite: overwrite, Progress: func(string, int64, int64) {
			if _, err := os.Lstat(mine); errors.Is(err, os.ErrNotExist) {
				os.WriteFile(mine, []byte("mine"), 0o644)
			}
		}}
		err := c.DownloadPath(ctx, e.P("race.bin"), out, false, o)
		switch got := readOr(t, mine); {
		case !overwrite && (!errors.Is(err, proxy.ErrLocalExists) || !strings.Contains(err.Error(), mine) || got != "mine"):
			t.Fatalf("a file written during the download: %v, it now holds %q", err, got)
		case overwrite && (err != nil || got != "remote"):
			t.Fatalf("with Overwrite: %v, the file holds %q", err, got)
		}
		noLeftovers(t, out, "race.bin")
	}
}
