package kit

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/ops"
)

// The demo's Jupyter servers keep a trash, as Colab's do: rm -r of a
// non-empty directory (one DELETE) moves it there whole instead of being
// refused, and emptying the trash then frees its bytes.
func TestDemoDeletesNonEmptyDirectoryToTrash(t *testing.T) {
	ctx := context.Background()
	lg := Logs{Red: &api.Redactor{}, Log: slog.New(slog.DiscardHandler)}
	conn, err := ConnectDemo(ctx, lg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rt := api.RuntimeName("rt-t4demo7k2p")
	jc, _, err := ops.OpenJupyter(ctx, conn.Svc, rt, ops.JupyterOptions{Redactor: lg.Red})
	if err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(t.TempDir(), "proj")
	if err := os.MkdirAll(filepath.Join(proj, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"a.txt", "sub/b.txt"} {
		if err := os.WriteFile(filepath.Join(proj, f), []byte("data of "+f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := jc.UploadPath(ctx, proj, "content/proj", false, jupyter.CopyOptions{Recursive: true}); err != nil {
		t.Fatal(err)
	}
	if err := jc.RemoveAll(ctx, "content/proj", func(string) {}); err != nil {
		t.Fatalf("rm -r of a non-empty directory in the demo: %v", err)
	}
	if _, err := jc.Stat(ctx, "content/proj"); !errors.Is(err, jupyter.ErrNotFound) {
		t.Fatalf("after rm -r, stat = %v, want not found", err)
	}
	se, err := conn.Svc.CreateSession(ctx, rt, state.NewSessionID())
	if err != nil {
		t.Fatal(err)
	}
	res, err := conn.Svc.ExecuteCode(ctx, api.ExecuteCodeRequest{Session: se.Name, Code: jupyter.PurgeCode})
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := jupyter.ParsePurged(res.Stdout); !ok || n < int64(len("data of a.txt")+len("data of sub/b.txt")) {
		t.Errorf("emptying the demo's trash freed %q, want the removed files' bytes", res.Stdout)
	}
}
