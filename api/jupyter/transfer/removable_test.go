package transfer

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// Upload itself refuses a file directly in the root, whoever calls it (the
// files pane as well as cp): nothing is sent.
func TestUploadRefusesTopLevel(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client()
	ctx := context.Background()
	if _, err := c.Upload(ctx, "/data.csv", strings.NewReader("x"), 1, nil); !errors.Is(err, proxy.ErrTopLevel) {
		t.Fatalf("Upload(/data.csv) = %v, want proxy.ErrTopLevel", err)
	}
	if _, err := c.Stat(ctx, "data.csv"); err == nil {
		t.Fatal("/data.csv was created")
	}
	if _, err := c.Upload(ctx, "/content/data.csv", strings.NewReader("x"), 1, nil); err != nil {
		t.Fatalf("Upload(/content/data.csv) = %v", err)
	}
}
