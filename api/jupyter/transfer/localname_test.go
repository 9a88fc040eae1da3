package transfer

import (
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

// A remote name with control characters or bidirectional overrides never
// becomes a local file name as it is: a single file downloaded into a
// directory (cp RT:PATH ., the files pane's d) is refused in one line and
// nothing is written; the same file downloaded to a name the user gives
// arrives; a recursive download refuses the entry the same way.
func TestDownloadRefusesControlCharactersInTheLocalName(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client()
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "src")
	writeRandom(t, src, 100, 31)
	evil := "evil\x1b[31mRED\x1b]0;pwned\a.txt"
	if err := c.MkdirAll(ctx, e.P("d")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{evil, "txt\u202e.exe", "del\x7f.txt", "c1\u009b31m.txt"} {
		if _, err := upload(t, c, src, e.P("d/"+name)); err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		err := c.DownloadPath(ctx, e.P("d/"+name), out, false, CopyOptions{})
		if !errors.Is(err, proxy.ErrUnsafeName) || strings.ContainsAny(err.Error(), "\n\x1b\a\x7f\u202e\u009b") ||
			!strings.Contains(err.Error(), "local file name of your own") {
			t.Fatalf("%q into a directory: %v, want one plain proxy.ErrUnsafeName line asking for a local name", name, err)
		}
		noLeftovers(t, out)
		// Named by the user: the bytes arrive under that name.
		if err := c.DownloadPath(ctx, e.P("d/"+name), filepath.Join(out, "mine.txt"), false, CopyOptions{}); err != nil {
			t.Fatalf("%q to a name of the user's: %v", name, err)
		}
		noLeftovers(t, out, "mine.txt")
	}
	out := filepath.Join(t.TempDir(), "tree")
	err := c.DownloadPath(ctx, e.P("d"), out, false, CopyOptions{Recursive: true})
	if !errors.Is(err, proxy.ErrUnsafeName) || strings.ContainsAny(err.Error(), "\n\x1b") {
		t.Fatalf("recursive download of names with control characters: %v", err)
	}
	ents, _ := os.ReadDir(out)
	for _, de := range ents {
		if proxy.LocalName(de.Name()) != nil {
			t.Fatalf("the recursive download wrote %q", de.Name())
		}
	}
}
