package transfer

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// stockNotFound is the shape of a stock jupyter-server's 404 for an
// unknown route or a /files/ miss (measured on Debian's 1.23.3):
// text/html, its "Jupyter Server" page.
const stockNotFound = "<!DOCTYPE HTML>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>Jupyter Server</title>\n</head>\n" +
	"<body><div class=\"error\"><h1>404 : Not Found</h1>\n<p>You are requesting a page that does not exist!</p></div></body></html>\n"

// Jupyter's own 404 for /files/ (HTML on the real
// server) is "not found", with no renewal and no resume advice.
func TestDownloadOfMissingFileIsNotFound(t *testing.T) {
	jupytertest.ForEachBackend(t, func(t *testing.T, be jupytertest.Backend) {
		e := newEnv(t, be, colabfake.Options{})
		c := e.client()
		if _, err := c.Download(context.Background(), e.P("missing.bin"), filepath.Join(t.TempDir(), "x"), nil); !errors.Is(err, proxy.ErrNotFound) || strings.Contains(err.Error(), "resume") {
			t.Errorf("download of a missing file: %v, want not found and no resume advice", err)
		}
		if n := c.Renewals(); n != 0 {
			t.Errorf("Jupyter's own 404 renewed the token %d times, want 0", n)
		}
	})
}

// In cp -r, an entry the listing names whose GET
// then answers Jupyter's 404 is skipped with a warning naming it, the
// rest is copied, and the download ends with proxy.ErrSkipped (exit 1), no
// resume advice. On the real server the file is removed between the
// listing and its GET, so the 404 is jupyter-server's own HTML page.
func TestRecursiveDownloadSkipsListedEntryThatIsGone(t *testing.T) {
	jupytertest.ForEachBackend(t, func(t *testing.T, be jupytertest.Backend) {
		e := newEnv(t, be, colabfake.Options{})
		c := e.client()
		ctx := context.Background()
		src := t.TempDir()
		for _, n := range []string{"a.txt", "b.txt", "c.txt"} {
			if err := os.WriteFile(filepath.Join(src, n), []byte("data of "+n), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		remote := e.P("tree")
		if err := c.UploadPath(ctx, src, remote, false, CopyOptions{Recursive: true}); err != nil {
			t.Fatal(err)
		}
		gone := remote + "/b.txt"
		if be == jupytertest.Jupyter {
			var once sync.Once
			e.SetOnProxy(func(r *http.Request) {
				if strings.HasSuffix(r.URL.Path, "/files/"+gone) {
					once.Do(func() { _ = os.Remove(filepath.Join(jupytertest.JupyterRoot(), gone)) })
				}
			})
		} else {
			e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, PathPrefix: "files/" + gone, Status: 404,
				ContentType: "text/html", Body: stockNotFound, Times: -1})
		}
		dst := filepath.Join(t.TempDir(), "out")
		var warns []string
		err := c.DownloadPath(ctx, remote, dst, false, CopyOptions{Recursive: true, Warn: func(s string) { warns = append(warns, s) }})
		if !errors.Is(err, proxy.ErrSkipped) || !strings.Contains(err.Error(), "/"+gone) || strings.Contains(err.Error(), "resume") {
			t.Fatalf("DownloadPath: %v, want proxy.ErrSkipped naming /%s, without resume advice", err, gone)
		}
		noLeftovers(t, dst, "a.txt", "c.txt")
		named := false
		for _, w := range warns {
			named = named || strings.Contains(w, "skipped rt-files:/"+gone+": the runtime's Jupyter server listed it but answers that it does not exist")
		}
		if !named {
			t.Errorf("warnings %q: none names the skipped entry as gone", warns)
		}
		if n := c.Renewals(); n != 0 {
			t.Errorf("Jupyter's 404 renewed the token %d times", n)
		}
	})
}

// A listing asks for type=directory, so it needs no stat
// first. On both backends a file listed so is refused with 400 "… is not
// a directory" before the server reads it (the emulator as
// jupyter-server), which ListEach reports as ErrNotDir without calling
// each; a directory lists as before.
func TestListingOfAFileIsRefusedUnread(t *testing.T) {
	jupytertest.ForEachBackend(t, func(t *testing.T, be jupytertest.Backend) {
		e := newEnv(t, be, colabfake.Options{})
		c := e.client()
		ctx := context.Background()
		local := filepath.Join(t.TempDir(), "f.txt")
		must(t, os.WriteFile(local, []byte("file bytes"), 0o644))
		if _, err := upload(t, c, local, e.P("f.txt")); err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodGet, e.Rt.ConnectionInfo.URL+"api/contents/"+e.P("f.txt")+"?content=1&type=directory", nil)
		req.Header.Set(proxy.TokenHeader, e.Rt.ConnectionInfo.Token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "is not a directory") || strings.Contains(string(body), "file bytes") {
			t.Errorf("GET type=directory of a file: %d %s", resp.StatusCode, body)
		}
		_, n, err := c.ListEach(ctx, e.P("f.txt"), func(proxy.Model) error { t.Error("each called for a file"); return nil })
		if !errors.Is(err, proxy.ErrNotDir) || n != 0 {
			t.Errorf("ListEach of a file: %d entries, %v; want ErrNotDir", n, err)
		}
		if l, err := c.List(ctx, e.Dir); err != nil || len(l.Entries) != 1 || l.Entries[0].Name != "f.txt" {
			t.Errorf("List of its directory = %+v, %v", l, err)
		}
	})
}
