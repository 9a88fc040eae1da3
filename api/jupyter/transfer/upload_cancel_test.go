package transfer

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// An upload over an existing file that is cancelled once the old file is
// being deleted (the part is complete and verified) still renames the
// new one into place: the runtime never ends with neither the old file
// nor the new one.
func TestUploadCancelledWhileReplacingKeepsAFile(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	// A chunked upload (3-byte pieces): only it replaces through a DELETE.
	c := e.client(func(o *proxy.Options) { o.ChunkSize = 3 })
	ctx := context.Background()
	if _, err := c.Upload(ctx, e.P("x.txt"), strings.NewReader("old"), 3, nil); err != nil {
		t.Fatal(err)
	}
	uctx, cancel := context.WithCancel(ctx)
	defer cancel()
	e.SetOnProxy(func(r *http.Request) {
		if r.Method == http.MethodDelete && strings.HasSuffix(r.URL.Path, "/x.txt") {
			cancel() // the user closed the pane just now
		}
	})
	_, err := c.Upload(uctx, e.P("x.txt"), strings.NewReader("new!"), 4, nil)
	e.SetOnProxy(nil)
	m, serr := c.Stat(ctx, e.P("x.txt"))
	if serr != nil || m.Size != 4 {
		t.Fatalf("after a cancel while replacing (upload: %v): stat %+v %v, want the new 4-byte file", err, m, serr)
	}
	if err != nil {
		t.Fatalf("the replacement finished but Upload said %v", err)
	}
}
