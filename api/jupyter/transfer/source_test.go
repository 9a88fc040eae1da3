package transfer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// procFile returns a /proc file whose stat size is 0 but which holds
// bytes, and those bytes (stable for this process).
func procFile(t *testing.T) (string, []byte) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	const p = "/proc/self/environ"
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() != 0 || len(b) == 0 {
		t.Fatalf("%s: stat size %d, %d bytes read; the test needs size 0 with content", p, st.Size(), len(b))
	}
	return p, b
}

// A local file whose stat size is 0 but which holds bytes (such as
// /proc/self/environ) is read to its end and sent whole, by cp (file and
// -r's walk) and UploadFile (the files pane); never uploaded empty.
func TestUploadReadsAZeroSizeFileToItsEnd(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client()
	ctx := context.Background()
	p, want := procFile(t)
	check := func(what, remote string) {
		t.Helper()
		m, err := c.Stat(ctx, remote)
		if err != nil || m.Size != int64(len(want)) {
			t.Fatalf("%s: the runtime has %d bytes (%v), want %d", what, m.Size, err, len(want))
		}
		out := filepath.Join(t.TempDir(), "back")
		if _, err := download(t, c, remote, out); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(out); string(b) != string(want) {
			t.Fatalf("%s: the bytes that arrived differ from the file's", what)
		}
	}
	var res []FileResult
	if err := c.UploadPath(ctx, p, e.P("environ"), false, CopyOptions{OnFile: func(r FileResult) { res = append(res, r) }}); err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Bytes != int64(len(want)) {
		t.Errorf("reported %+v, want one file of %d bytes", res, len(want))
	}
	check("cp", e.P("environ"))
	m, n, err := c.UploadFile(ctx, "/proc/self/status", e.P("status"), nil)
	if err != nil || n == 0 || m.Size != n {
		t.Fatalf("UploadFile(/proc/self/status) = %d bytes sent, remote %d, %v; want the whole file", n, m.Size, err)
	}
	// A directory walked by cp -r -L: a link in it to a /proc file (-L:
	// the link leads out of the directory).
	dir := t.TempDir()
	if err := os.Symlink(p, filepath.Join(dir, "env")); err != nil {
		t.Fatalf("cannot make the symbolic link this test needs: %v", err)
	}
	if err := c.UploadPath(ctx, dir, e.P("tree"), false, CopyOptions{Recursive: true, FollowLinks: true}); err != nil {
		t.Fatal(err)
	}
	check("cp -r", e.P("tree/env"))
	// A truly empty file is still sent, empty.
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, n, err := c.UploadFile(ctx, empty, e.P("empty"), nil); err != nil || n != 0 {
		t.Fatalf("an empty file: %d bytes, %v", n, err)
	}
}

// Past what one request carries, such a file is refused in one line and
// nothing is left on the runtime.
func TestUploadRefusesAZeroSizeFileBeyondOneRequest(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client(func(o *proxy.Options) { o.ChunkSize = 30 })
	p, _ := procFile(t)
	err := c.UploadPath(context.Background(), p, e.P("environ"), false, CopyOptions{})
	if !errors.Is(err, proxy.ErrLocal) || !strings.Contains(err.Error(), p+" reports a size of 0 but holds more than 30 bytes") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("UploadPath = %v, want one proxy.ErrLocal line naming the file and the limit", err)
	}
	if got := remoteNames(t, c, e.Dir); len(got) != 0 {
		t.Errorf("the runtime holds %v", got)
	}
}

// Such a file holding exactly what one request carries is still sent
// whole: the limit is on more than one request's worth.
func TestUploadSendsAZeroSizeFileOfExactlyOneRequest(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client()
	p, want := procFile(t)
	// Options round ChunkSize down to a multiple of 3; the copier's own
	// is set to the file's length exactly.
	c.o.ChunkSize = int64(len(want))
	m, n, err := c.UploadFile(context.Background(), p, e.P("environ"), nil)
	if err != nil || n != int64(len(want)) || m.Size != n {
		t.Fatalf("UploadFile of %d bytes with %d-byte requests = %d bytes sent, remote %d, %v; want the whole file", len(want), c.o.ChunkSize, n, m.Size, err)
	}
}
