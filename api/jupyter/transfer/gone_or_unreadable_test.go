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
	forEachEnvClient(t, func(t *testing.T, e *env, c *Copier) {
		if _, err := c.Download(context.Background(), e.P("missing.bin"), filepath.Join(t.TempDir(), "x"), nil); !errors.Is(err, proxy.ErrNotFound) || strings.Contains(err.Error(), "resume") {
			t.Errorf("download of a missing file: %v, want not found and no resume advice", err)
		}
		wantNoRenewal(t, c, "Jupyter's own 404")
	})
}

// In cp -r, an entry the listing names whose GET
// then answers Jupyter's 404 is skipped with a warning naming it, the
// rest is copied, and the download ends with proxy.ErrSkipped (exit 1), no
// resume advice. On the real server the file is removed between the
// listing and its GET, so the 404 is jupyter-server's own HTML page.
func TestRecursiveDownloadSkipsListedEntryThatIsGone(t *testing.T) {
	forEachEnvClient(t, func(t *testing.T, e *env, c *Copier) {
		ctx := context.Background()
		putTree(t, e, c, map[string]string{"tree/a.txt": "data of a.txt", "tree/b.txt": "data of b.txt", "tree/c.txt": "data of c.txt"})
		remote := e.P("tree")
		gone := remote + "/b.txt"
		if e.Be == jupytertest.Jupyter {
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
		wantNoRenewal(t, c, "Jupyter's 404 for a listed entry")
	})
}

// A listing asks for type=directory, so it needs no stat
// first. On both backends a file listed so is refused with 400 "… is not
// a directory" before the server reads it (the emulator as
// jupyter-server), which ListEach reports as ErrNotDir without calling
// each; a directory lists as before.
func TestListingOfAFileIsRefusedUnread(t *testing.T) {
	forEachEnvClient(t, func(t *testing.T, e *env, c *Copier) {
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

// unreadableLink is jupyter-server's 500 for a path through a symbolic
// link whose target it may not read (measured on Debian's 1.23.3 run as
// nobody): "Unhandled error" and a traceback ending in
// PermissionError.
const unreadableLink = `{"message": "Unhandled error", "reason": null, "traceback": "Traceback (most recent call last):\n  File \"/usr/lib/python3/dist-packages/tornado/web.py\", line 1735, in _execute\n    result = await result\n  File \"/usr/lib/python3/dist-packages/jupyter_core/paths.py\", line 342, in is_file_hidden_posix\n    stat_res = os.stat(abs_path)\nPermissionError: [Errno 13] Permission denied: '/content/lnk/s.txt'\n"}`

// Reading through a link to an unreadable target is a
// one-line permission hint, not "the Jupyter server failed: Unhandled
// error".
func TestUnreadableLinkTargetSaysPermission(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, PathPrefix: "api/contents/content/lnk", Status: 500,
		ContentType: "application/json", Body: unreadableLink, Times: -1})
	c := e.client()
	_, err := c.Download(context.Background(), "content/lnk/s.txt", filepath.Join(t.TempDir(), "s.txt"), nil)
	if !errors.Is(err, proxy.ErrPermission) {
		t.Fatalf("download through an unreadable link: %v, want permission denied", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "cannot read it") || strings.Contains(msg, "Unhandled error") || strings.ContainsAny(msg, "\n\r") {
		t.Errorf("message %q: want one line with the permission hint instead of \"Unhandled error\"", msg)
	}
	// Another unhandled failure keeps the traceback's last line, not a
	// bare "Unhandled error".
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, PathPrefix: "api/contents/content/eio", Status: 500, ContentType: "application/json",
		Body: `{"message": "Unhandled error", "reason": null, "traceback": "Traceback (most recent call last):\nOSError: [Errno 5] Input/output error: '/content/drive/x'\n"}`})
	_, err = c.Stat(context.Background(), "content/eio")
	if !errors.Is(err, proxy.ErrServer) || !strings.Contains(err.Error(), "OSError: [Errno 5] Input/output error") {
		t.Errorf("stat with an EIO: %v, want the traceback's last line", err)
	}
}

// In cp -r, an entry the listing names but the server may
// not read is skipped with a warning saying so ("permission denied"), not
// that it does not exist; the rest is copied.
func TestRecursiveDownloadSkipsUnreadableEntrySayingPermission(t *testing.T) {
	e, c := newEnvClient(t, jupytertest.Emulator)
	ctx := context.Background()
	putTree(t, e, c, map[string]string{"d/a.txt": "a", "d/lnk.txt": "l", "d/c.txt": "c"})
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, PathPrefix: "files/" + e.P("d/lnk.txt"), Status: 500,
		ContentType: "application/json", Body: unreadableLink, Times: -1})
	out := filepath.Join(t.TempDir(), "out")
	var warns []string
	err := c.DownloadPath(ctx, e.P("d"), out, false, CopyOptions{Recursive: true, Warn: func(s string) { warns = append(warns, s) }})
	if !errors.Is(err, proxy.ErrSkipped) {
		t.Fatalf("DownloadPath: %v, want proxy.ErrSkipped", err)
	}
	noLeftovers(t, out, "a.txt", "c.txt")
	text := strings.Join(warns, "\n")
	if want := "skipped rt-files:/" + e.P("d/lnk.txt") + ": the runtime's Jupyter server listed it but may not read it (permission denied)"; strings.Count(text, want) != 1 {
		t.Errorf("warnings lack %q once:\n%s", want, text)
	}
	if strings.Contains(text, "does not exist") {
		t.Errorf("warnings say an unreadable entry does not exist:\n%s", text)
	}
}
