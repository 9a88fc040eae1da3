package transfer

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/realjupyter"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// ownJupyter says how startOwnJupyter runs its server.
type ownJupyter struct {
	trash    bool // delete_to_trash at its default (on), else off
	asNobody bool // run as nobody (setpriv; needs root), so root-only files are unreadable to it
}

// startOwnJupyter starts a real jupyter-server of its own (not the shared
// one, which runs as root with its trash off), its HOME (and so its
// trash) in a temporary directory, and returns its URL, root and HOME.
// It is skipped (or fails under COLABDASH_REQUIRE_JUPYTER=1) as
// requireJupyter is; asNobody is skipped when not run as root, and fails
// then in CI (which runs as root).
func startOwnJupyter(t *testing.T, o ownJupyter) (url, root, home string) {
	t.Helper()
	s := realjupyter.Require(t, realjupyter.Options{Trash: o.trash, AsNobody: o.asNobody})
	return s.URL, s.Root, s.Home
}

// On a real jupyter-server with its trash on: a chunked
// replace and rm move the old data to ~/.local/share/Trash/files; a
// one-request replace leaves nothing there; PurgeCode, run by the same
// Python, empties the trash and prints the bytes freed.
func TestRealJupyterTrash(t *testing.T) {
	url, root, home := startOwnJupyter(t, ownJupyter{trash: true})
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{JupyterUpstream: url})
	c := e.client()
	ctx := context.Background()
	trash := filepath.Join(home, ".local", "share", "Trash", "files")
	up := func(c *Copier, name, body string) bool {
		t.Helper()
		_, deleted, err := c.upload(ctx, "content/"+name, strings.NewReader(body), int64(len(body)), nil)
		if err != nil {
			t.Fatal(err)
		}
		return deleted
	}
	up(c, "keep.txt", "old content")
	if up(c, "keep.txt", "newcontent") {
		t.Error("a one-request replace deleted the old file")
	}
	if ents, _ := os.ReadDir(trash); len(ents) != 0 {
		t.Errorf("trash holds %d entries after a one-request replace, want none", len(ents))
	}
	if !up(e.client(func(o *proxy.Options) { o.ChunkSize = 3 }), "keep.txt", "chunked new") {
		t.Error("a chunked replace did not report its DELETE")
	}
	if b, err := os.ReadFile(filepath.Join(trash, "keep.txt")); err != nil || string(b) != "newcontent" {
		t.Errorf("trash copy of keep.txt: %q %v, want the replaced version", b, err)
	}
	if err := c.RemoveAll(ctx, "content/keep.txt", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "content", "keep.txt")); !os.IsNotExist(err) {
		t.Errorf("keep.txt still there: %v", err)
	}
	ents, _ := os.ReadDir(trash)
	if len(ents) != 2 {
		t.Errorf("trash holds %d entries after rm, want 2 (both old versions)", len(ents))
	}
	cmd := exec.Command(jupytertest.JupyterPython(), "-c", PurgeCode)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_DATA_HOME=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("PurgeCode: %v: %s", err, out)
	}
	if n, ok := ParsePurged(string(out)); !ok || n < int64(len("newcontent")+len("chunked new")) {
		t.Errorf("PurgeCode printed %q, want the bytes freed", out)
	}
	if ents, _ := os.ReadDir(trash); len(ents) != 0 {
		t.Errorf("trash still holds %d entries after PurgeCode", len(ents))
	}
}

// On a real jupyter-server run as nobody: a link to a
// root-only directory is left out of the listing, and reading through
// it is a permission error with a hint, not "Unhandled error".
func TestRealJupyterUnreadableLinkTarget(t *testing.T) {
	url, root, _ := startOwnJupyter(t, ownJupyter{asNobody: true})
	secret := filepath.Join(root, "secret")
	if err := os.Mkdir(secret, 0o700); err != nil { // root's, mode 700
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(secret, "s.txt"), []byte("hidden"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(root, "content", "lnk")); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{JupyterUpstream: url})
	c := e.client()
	_, err := c.Download(context.Background(), "content/lnk/s.txt", filepath.Join(t.TempDir(), "s.txt"), nil)
	if !errors.Is(err, proxy.ErrPermission) || !strings.Contains(err.Error(), "cannot read it") || strings.Contains(err.Error(), "Unhandled error") {
		t.Fatalf("download through a link to a root-only directory: %v, want permission denied with the hint", err)
	}
	if n := c.Renewals(); n != 0 {
		t.Errorf("renewed %d times for a permission error", n)
	}
}
