package transfer

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
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
