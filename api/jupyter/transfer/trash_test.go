package transfer

import (
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/realjupyter"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// methodLog records the methods and paths of proxy requests.
type methodLog struct {
	mu  sync.Mutex
	got []string
}

func (l *methodLog) hook(r *http.Request) {
	l.mu.Lock()
	l.got = append(l.got, r.Method+" "+r.URL.Path)
	l.mu.Unlock()
}

func (l *methodLog) count(method string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, g := range l.got {
		if strings.HasPrefix(g, method+" ") {
			n++
		}
	}
	return n
}

// Replacing a file that fits one request is one PUT onto
// its name, no DELETE, so nothing goes to the server's trash; a chunked
// replace needs the DELETE and says so (deleted), and with the trash on
// the old copy is there and the runtime's disk use does not drop.
func TestReplaceWithoutDeleteWhenOneRequestFits(t *testing.T) {
	jupytertest.ForEachBackend(t, func(t *testing.T, be jupytertest.Backend) {
		e := newEnv(t, be, colabfake.Options{DeleteToTrash: true})
		c := e.client()
		ctx := context.Background()
		if _, err := c.Upload(ctx, e.P("keep.txt"), strings.NewReader("old content"), 11, nil); err != nil {
			t.Fatal(err)
		}
		var log methodLog
		e.SetOnProxy(log.hook)
		m, deleted, err := c.upload(ctx, e.P("keep.txt"), strings.NewReader("newcontent"), 10, nil)
		e.SetOnProxy(nil)
		if err != nil || m.Size != 10 || deleted {
			t.Fatalf("replace: %+v deleted=%v %v", m, deleted, err)
		}
		if n := log.count(http.MethodDelete); n != 0 {
			t.Errorf("a one-request replace sent %d DELETEs (%v), want none", n, log.got)
		}
		if n := log.count(http.MethodPatch); n != 0 {
			t.Errorf("a one-request replace renamed (%v), want a PUT onto the name", log.got)
		}
		if be == jupytertest.Emulator {
			if names := e.Srv.TrashNames(e.Rt.Name); len(names) != 0 {
				t.Errorf("trash holds %v after a one-request replace", names)
			}
		}
		out := filepath.Join(t.TempDir(), "keep.txt")
		if _, err := c.Download(ctx, e.P("keep.txt"), out, nil); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(out); string(b) != "newcontent" {
			t.Errorf("content %q", b)
		}

		// Chunked (3-byte pieces): the old file is deleted first.
		cc := e.client(func(o *proxy.Options) { o.ChunkSize = 3 })
		_, deleted, err = cc.upload(ctx, e.P("keep.txt"), strings.NewReader("chunked new"), 11, nil)
		if err != nil || !deleted {
			t.Fatalf("chunked replace: deleted=%v %v, want deleted", deleted, err)
		}
	})
}

// The emulator's --delete-to-trash: DELETE moves files (and non-empty
// directories, hidden files included) to /root/.local/share/Trash; disk
// use does not drop until the purge program runs through execute_code.
func TestEmulatorDeleteToTrash(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{DeleteToTrash: true})
	c := e.client()
	ctx := context.Background()
	big := strings.Repeat("x", 5<<20)
	if err := c.MkdirAll(ctx, "content/trashme"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Upload(ctx, "content/trashme/big.bin", strings.NewReader(big), int64(len(big)), nil); err != nil {
		t.Fatal(err)
	}
	before := e.Srv.DiskUsage(e.Rt.Name)
	if err := c.RemoveAll(ctx, "content/trashme", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Stat(ctx, "content/trashme"); !errors.Is(err, proxy.ErrNotFound) {
		t.Fatalf("after rm -r: %v, want not found", err)
	}
	if after := e.Srv.DiskUsage(e.Rt.Name); after < before {
		t.Errorf("disk use dropped from %d to %d with the trash on", before, after)
	}
	if names := e.Srv.TrashNames(e.Rt.Name); len(names) != 1 || names[0] != "trashme" { // the directory, in one DELETE
		t.Errorf("trash holds %v, want trashme (moved whole)", names)
	}
	res, err := e.Svc.ExecuteCode(ctx, api.ExecuteCodeRequest{Runtime: e.Rt.Name, Code: PurgeCode})
	if err != nil {
		t.Fatal(err)
	}
	n, ok := ParsePurged(res.Stdout)
	if !ok || n < int64(len(big)) {
		t.Errorf("purge printed %q, want the bytes freed (at least %d)", res.Stdout, len(big))
	}
	if after := e.Srv.DiskUsage(e.Rt.Name); after > before-int64(len(big)) {
		t.Errorf("disk use %d after the purge, want at most %d", after, before-int64(len(big)))
	}
	if names := e.Srv.TrashNames(e.Rt.Name); len(names) != 0 {
		t.Errorf("trash holds %v after the purge", names)
	}
	// An empty trash: the purge frees nothing and says so (0 bytes), which
	// is read as such, not as output it cannot read.
	res, err = e.Svc.ExecuteCode(ctx, api.ExecuteCodeRequest{Runtime: e.Rt.Name, Code: PurgeCode})
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := ParsePurged(res.Stdout); !ok || n != 0 {
		t.Errorf("purge of an empty trash printed %q, read as %d, %v; want 0 bytes freed", res.Stdout, n, ok)
	}
}

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
	wantNoRenewal(t, c, "a permission error")
}
