package kit

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

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

// The dashboard connects a profile in a command whose context ends when
// the command returns, and switches back to demo later: the demo's
// emulator must outlive that context, answer until the Connection is
// closed, and stop then (a later connection starts a fresh one).
func TestDemoOutlivesTheConnectingContextUntilClosed(t *testing.T) {
	lg := Logs{Red: &api.Redactor{}, Log: slog.New(slog.DiscardHandler)}
	for round := range 2 { // switched to demo, away, and back
		ctx, cancel := context.WithCancel(context.Background())
		conn, err := ConnectDemo(ctx, lg)
		cancel() // the connecting command has returned
		if err != nil {
			t.Fatal(err)
		}
		rts, err := conn.Svc.ListRuntimes(context.Background())
		if err != nil || len(rts) == 0 {
			conn.Close()
			t.Fatalf("round %d: list_runtimes after the connecting context ended = %d runtimes, %v; want the demo's", round, len(rts), err)
		}
		conn.Close() // switched away
		probe := &http.Client{Timeout: 5 * time.Second}
		if resp, err := probe.Get(conn.Endpoint); err == nil {
			resp.Body.Close()
			t.Fatalf("round %d: the emulator at %s still answers after Close (%s)", round, conn.Endpoint, resp.Status)
		}
	}
}
