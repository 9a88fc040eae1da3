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

// cp -r up checks links when it sends, not only when it plans: a file,
// or a directory above one, swapped for a link to a secret after the
// plan (here from Planned, called before the first file moves) is
// refused in one line and its secret never reaches the runtime; the rest
// is copied. A link to a file inside the source, allowed when planned,
// is refused once it leads out.
func TestUploadTreeChecksLinksWhenItSends(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client()
	ctx := context.Background()
	outside := t.TempDir()
	secret := filepath.Join(outside, "id_rsa")
	if err := os.WriteFile(secret, []byte("SECRET KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(outside, "sub"), 0o755)
	os.WriteFile(filepath.Join(outside, "sub", "b.txt"), []byte("SECRET KEY"), 0o600)
	src := filepath.Join(t.TempDir(), "proj")
	os.MkdirAll(filepath.Join(src, "sub"), 0o755)
	for name, body := range map[string]string{"a.txt": "alpha", "ok.txt": "fine", "sub/b.txt": "bravo", "inner.txt": "inner"} {
		os.WriteFile(filepath.Join(src, filepath.FromSlash(name)), []byte(body), 0o644)
	}
	if err := os.Symlink("inner.txt", filepath.Join(src, "l.txt")); err != nil {
		t.Fatal(err)
	}
	swap := func(name, target string) {
		p := filepath.Join(src, filepath.FromSlash(name))
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	var warns []string
	err := c.UploadPath(ctx, src, "content/proj", false, CopyOptions{Recursive: true,
		Warn: func(s string) { warns = append(warns, s) },
		Planned: func(int, int64) {
			swap("a.txt", secret)
			swap("sub", filepath.Join(outside, "sub"))
			swap("l.txt", secret)
		}})
	if !errors.Is(err, proxy.ErrLocal) {
		t.Errorf("upload with files swapped for links: %v, want ErrLocal", err)
	}
	for _, name := range []string{"a.txt", "sub/b.txt", "l.txt"} {
		if m, serr := c.Stat(ctx, "content/proj/"+name); serr == nil {
			t.Errorf("%s swapped for a link was uploaded (%d bytes)", name, m.Size)
		}
	}
	if m, serr := c.Stat(ctx, "content/proj/ok.txt"); serr != nil || m.Size != 4 {
		t.Errorf("the rest was not copied: %v", serr)
	}
	if all := strings.Join(warns, "\n"); !strings.Contains(all, "symbolic link") {
		t.Errorf("warnings %q, want each refusal named", all)
	}
}
