package transfer

import (
	"bytes"
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

// A proxy on the way refuses a request as too large (an
// HTML 413, nginx's page). The upload says so in words and sends that
// data again in smaller pieces, down to MinChunkSize, and keeps the size
// that worked; below that it fails with the same words and the file on
// the runtime is untouched.
func TestUploadShrinksPiecesAfterProxy413(t *testing.T) {
	jupytertest.ForEachBackend(t, func(t *testing.T, be jupytertest.Backend) {
		e := newEnv(t, be, colabfake.Options{ProxyMaxBody: 3_000_000})
		c := e.client(func(o *proxy.Options) { o.ChunkSize = 6_000_000 })
		ctx := context.Background()
		data := bytes.Repeat([]byte("0123456789abcdef"), 5_000_000/16) // 5 MB: one 6.7 MB request at first
		m, err := c.Upload(ctx, e.P("big.bin"), bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			t.Fatalf("upload behind a 3 MB proxy limit: %v", err)
		}
		if m.Size != int64(len(data)) {
			t.Fatalf("size %d, want %d", m.Size, len(data))
		}
		out := filepath.Join(t.TempDir(), "big.bin")
		if _, err := c.Download(ctx, e.P("big.bin"), out, nil); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(out); !bytes.Equal(b, data) {
			t.Fatal("the file on the runtime differs from the one sent")
		}
		if cs := c.chunkSize(); cs >= 3_000_000 || cs < MinChunkSize {
			t.Errorf("piece size kept after the 413s: %d", cs)
		}
		names := remoteNames(t, c, e.Dir)
		if strings.Join(names, ",") != "big.bin" {
			t.Errorf("remote directory holds %v, want only big.bin", names)
		}
	})
}

func TestUpload413BelowTheFloorFails(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{ProxyMaxBody: 1_000_000})
	c := e.client()
	ctx := context.Background()
	if _, err := c.Upload(ctx, e.P("x.bin"), strings.NewReader("old"), 3, nil); err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("z"), 3_000_000)
	_, err := c.Upload(ctx, e.P("x.bin"), bytes.NewReader(data), int64(len(data)), nil)
	if !errors.Is(err, proxy.ErrServer) {
		t.Fatalf("upload behind a 1 MB proxy limit: %v, want a server error", err)
	}
	msg := err.Error()
	for _, w := range []string{"a proxy between this machine and the runtime refused a", "MB request as too large (HTTP 413)", "even in pieces of 1.0 MB"} {
		if !strings.Contains(msg, w) {
			t.Errorf("%q\nwant it to contain %q", msg, w)
		}
	}
	m, serr := c.Stat(ctx, e.P("x.bin"))
	if serr != nil || m.Size != 3 {
		t.Errorf("the old file after a refused upload: %+v %v, want it untouched", m, serr)
	}
	if names := remoteNames(t, c, e.Dir); strings.Join(names, ",") != "x.bin" {
		t.Errorf("remote directory holds %v, want only x.bin (no part file)", names)
	}
}
