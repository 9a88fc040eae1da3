package transfer

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

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
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client()
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
