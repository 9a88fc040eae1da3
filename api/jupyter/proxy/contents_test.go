package proxy

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
)

// Guards Mkdir and MkdirAll on both backends: Mkdir answers the new
// directory's model and refuses a missing parent (ErrNoParent) or a file
// in the way (ErrNotDir); MkdirAll creates every missing level in order,
// accepts what exists (and the root), and refuses a file in the way.
func TestMkdirAndMkdirAll(t *testing.T) {
	jupytertest.ForEachBackend(t, func(t *testing.T, be jupytertest.Backend) {
		e := newEnv(t, be, colabfake.Options{})
		c := e.client()
		ctx := context.Background()
		m, err := c.Mkdir(ctx, e.P("one"))
		if err != nil || m.Name != "one" || !m.IsDir() {
			t.Fatalf("Mkdir = %+v, %v; want the new directory's model", m, err)
		}
		if _, err := c.Mkdir(ctx, e.P("none/two")); !errors.Is(err, ErrNoParent) {
			t.Fatalf("Mkdir below a missing directory: %v, want ErrNoParent", err)
		}
		deep := e.P("a/b/c")
		if err := c.MkdirAll(ctx, deep); err != nil {
			t.Fatalf("MkdirAll: %v", err)
		}
		for _, p := range []string{e.P("a"), e.P("a/b"), deep} {
			if m, err := c.Stat(ctx, p); err != nil || !m.IsDir() {
				t.Fatalf("after MkdirAll, %s: %+v, %v", p, m, err)
			}
		}
		if err := c.MkdirAll(ctx, "/"+deep+"/"); err != nil {
			t.Fatalf("MkdirAll of what exists: %v", err)
		}
		if err := c.MkdirAll(ctx, ""); err != nil {
			t.Fatalf("MkdirAll of the root: %v", err)
		}
		putText(t, c, e.P("f"), "x")
		if _, err := c.Mkdir(ctx, e.P("f/sub")); !errors.Is(err, ErrNotDir) {
			t.Fatalf("Mkdir below a file: %v, want ErrNotDir", err)
		}
		// Below a file, the real server's stat fails itself (500
		// NotADirectoryError) before MkdirAll reaches the file.
		if err := c.MkdirAll(ctx, e.P("f/sub/deeper")); !errors.Is(err, ErrNotDir) && !errors.Is(err, ErrServer) {
			t.Fatalf("MkdirAll through a file: %v, want ErrNotDir (or the server's own error)", err)
		}
		if err := c.MkdirAll(ctx, e.P("f")); !errors.Is(err, ErrNotDir) {
			t.Fatalf("MkdirAll of a file: %v, want ErrNotDir", err)
		}
	})
}

// putText writes a small text file through the contents API (PUT).
func putText(t *testing.T, c *Client, p, text string) {
	t.Helper()
	resp, err := c.Do(context.Background(), &Request{Op: "put", Method: http.MethodPut, Path: "api/contents/" + EscapePath(p),
		Body: jsonBody(map[string]string{"type": "file", "format": "text", "content": text}), Remote: p})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

// Guards explainWrite on a server that answers a mkdir below a missing
// directory with Jupyter's 404 instead of a 500 (older servers do): the
// parent is stat'ed, and a missing one is ErrNoParent naming it, a file
// in its place ErrNotDir, never "not found" for the new directory.
func TestMkdirJupyter404Explained(t *testing.T) {
	for parent, want := range map[string]error{"missing": ErrNoParent, "file": ErrNotDir} {
		c := serve(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			switch {
			case r.Method == http.MethodPut:
				w.WriteHeader(http.StatusNotFound)
				io.WriteString(w, `{"message": "No such file or directory", "reason": null}`)
			case parent == "file":
				io.WriteString(w, `{"name": "p", "path": "content/p", "type": "file", "size": 1}`)
			default:
				w.WriteHeader(http.StatusNotFound)
				io.WriteString(w, `{"message": "No such file or directory: content/p", "reason": null}`)
			}
		})
		_, err := c.Mkdir(context.Background(), "content/p/new")
		var je *Error
		if !errors.Is(err, want) || !errors.As(err, &je) || je.Path != "content/p" {
			t.Errorf("parent %s: Mkdir = %v, want %v naming content/p", parent, err, want)
		}
	}
}
