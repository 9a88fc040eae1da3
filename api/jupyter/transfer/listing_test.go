package transfer

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// A listing naming an entry twice, or as both a file and a
// directory, is an error for that entry (a warning naming it, nothing
// written for it); the rest is copied and the copy ends with an error.
func TestDownloadDuplicateEntries(t *testing.T) {
	entry := func(name, typ string) string {
		return fmt.Sprintf(`{"name":%q,"path":"content/d/%s","type":%q,"size":%s,"last_modified":"2026-11-01T00:00:00Z"}`,
			name, name, typ, map[string]string{"file": "10", "directory": "null"}[typ])
	}
	c := fixture(t, func(p string) string {
		if p != "content/d" {
			return `{"name":"x","path":"` + p + `","type":"directory","content":[]}`
		}
		return `{"name":"d","path":"content/d","type":"directory","content":[` + strings.Join([]string{
			entry("both", "file"), entry("ok.txt", "file"), entry("both", "directory"), entry("twice.txt", "file"), entry("twice.txt", "file"),
		}, ",") + `]}`
	})
	out := filepath.Join(t.TempDir(), "out")
	var warns []string
	err := c.DownloadPath(context.Background(), "content/d", out, false, CopyOptions{Recursive: true, Warn: func(s string) { warns = append(warns, s) }})
	if !errors.Is(err, proxy.ErrBadListing) || !strings.Contains(err.Error(), "2 entries not copied") {
		t.Fatalf("err = %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(out, "ok.txt")); err != nil || string(b) != "data of content/d/ok.txt" {
		t.Errorf("ok.txt = %q, %v", b, err)
	}
	for _, name := range []string{"both", "twice.txt"} {
		if _, err := os.Lstat(filepath.Join(out, name)); err == nil {
			t.Errorf("%s was written", name)
		}
	}
	text := strings.Join(warns, "\n")
	for _, want := range []string{"skipped /content/d/both: the runtime's listing names it more than once (as file, directory)",
		"skipped /content/d/twice.txt: the runtime's listing names it more than once (as file, file)"} {
		if strings.Count(text, want) != 1 {
			t.Errorf("warnings lack %q once:\n%s", want, text)
		}
	}
}

// newStoreEnv is a test bed whose remote directory e.Dir is a directory
// on this machine, so that a test lays out what the runtime serves with
// os calls (links, loops, deep trees): the bed, its client, and that
// directory (the emulator's file store, or the real jupyter-server's
// root), which exists. Tokens last a day: the trees may be slow to walk.
func newStoreEnv(t *testing.T, be jupytertest.Backend) (*env, *Copier, string) {
	t.Helper()
	files := t.TempDir()
	e := newEnv(t, be, colabfake.Options{FilesDir: files, TokenTTL: 24 * time.Hour})
	c := e.client()
	if _, _, err := c.ListEach(context.Background(), e.Dir, func(proxy.Model) error { return nil }); err != nil { // the store exists
		t.Fatal(err)
	}
	if e.Be == jupytertest.Jupyter {
		return e, c, filepath.Join(jupytertest.JupyterRoot(), e.Dir)
	}
	return e, c, filepath.Join(files, api.LastSegment(e.Rt.Name), e.Dir)
}

// A directory loop on the runtime (symbolic links to the
// directory itself and to its parent, which Jupyter lists as plain
// directories) is caught by listings that repeat an ancestor's, reported
// once each, and not copied again down to the depth limit; the rest is
// copied.
func TestDownloadDirectoryLoop(t *testing.T) {
	jupytertest.ForEachBackend(t, func(t *testing.T, be jupytertest.Backend) {
		e, c, store := newStoreEnv(t, be)
		ctx := context.Background()
		top := filepath.Join(store, "top")
		for _, d := range []string{"d/sub"} {
			if err := os.MkdirAll(filepath.Join(top, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		must(t, os.WriteFile(filepath.Join(top, "d", "f.txt"), []byte("f"), 0o644))
		must(t, os.WriteFile(filepath.Join(top, "d", "sub", "g.txt"), []byte("g"), 0o644))
		must(t, os.Symlink(".", filepath.Join(top, "d", "self")))
		must(t, os.Symlink("..", filepath.Join(top, "d", "up")))
		out := filepath.Join(t.TempDir(), "out")
		var warns []string
		err := c.DownloadPath(ctx, e.P("top"), out, false, CopyOptions{Recursive: true, Warn: func(s string) { warns = append(warns, s) }})
		if !errors.Is(err, proxy.ErrBadListing) || !strings.Contains(err.Error(), "2 entries not copied") {
			t.Fatalf("err = %v\nwarnings: %q", err, warns)
		}
		for _, f := range []string{"d/f.txt", "d/sub/g.txt"} {
			if _, err := os.Stat(filepath.Join(out, f)); err != nil {
				t.Errorf("%s not copied: %v", f, err)
			}
		}
		for _, f := range []string{"d/self/f.txt", "d/self/self", "d/up/d"} {
			if _, err := os.Lstat(filepath.Join(out, f)); err == nil {
				t.Errorf("%s copied again", f)
			}
		}
		text := strings.Join(warns, "\n")
		for _, want := range []string{
			"skipped /" + e.P("top/d/self") + ": its listing repeats that of /" + e.P("top/d") + " (a directory loop",
			"skipped /" + e.P("top/d/up") + ": its listing repeats that of /" + e.P("top") + " (a directory loop",
		} {
			if strings.Count(text, want) != 1 {
				t.Errorf("warnings lack %q once:\n%s", want, text)
			}
		}
	})
}

// A directory loop is caught whatever order the runtime lists
// the looping directory's entries in (os.listdir's order, which a FUSE
// mount such as Drive's need not keep from one listing to the next), a
// name it lists twice included: the first repeat is reported and nothing
// below it is copied.
func TestDownloadDirectoryLoopListedInAnotherOrder(t *testing.T) {
	c := fixture(t, func(p string) string {
		entry := func(name, typ string) string {
			return fmt.Sprintf(`{"name":%q,"path":"%s/%s","type":%q,"size":%s,"last_modified":"2026-11-01T00:00:00Z"}`,
				name, p, name, typ, map[string]string{"file": "10", "directory": "null"}[typ])
		}
		l := []string{entry("both", "file"), entry("both", "directory"), entry("f.txt", "file"), entry("sub", "directory")}
		if p != "content/d" { // sub, a link to d, listed in the reverse order
			l = []string{l[3], l[2], l[1], l[0]}
		}
		return `{"name":"d","path":"` + p + `","type":"directory","content":[` + strings.Join(l, ",") + `]}`
	})
	out := filepath.Join(t.TempDir(), "out")
	var warns []string
	err := c.DownloadPath(context.Background(), "content/d", out, false, CopyOptions{Recursive: true, Warn: func(s string) { warns = append(warns, s) }})
	if !errors.Is(err, proxy.ErrBadListing) {
		t.Fatalf("err = %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(out, "f.txt")); err != nil || string(b) != "data of content/d/f.txt" {
		t.Errorf("f.txt = %q, %v", b, err)
	}
	if _, err := os.Lstat(filepath.Join(out, "sub", "f.txt")); err == nil {
		t.Error("sub/f.txt was copied: the loop at sub was not caught")
	}
	text := strings.Join(warns, "\n")
	if want := "skipped /content/d/sub: its listing repeats that of /content/d (a directory loop"; strings.Count(text, want) != 1 {
		t.Errorf("warnings lack %q once:\n%s", want, text)
	}
}

// A listing's print does not depend on the order of its
// entries, however many there are and whichever names repeat; another
// size, type or time is another print.
func TestListingPrintIgnoresOrder(t *testing.T) {
	lm := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var l []proxy.Model
	for i := range 30 {
		name := fmt.Sprintf("n%02d", i%12) // every name two or three times
		typ := []string{"file", "directory", "notebook"}[i%3]
		l = append(l, proxy.Model{Name: name, Type: typ, Size: int64(i % 5), LastModified: lm.Add(time.Duration(i%7) * time.Microsecond)})
	}
	want, ok := printOf(l)
	if !ok {
		t.Fatal("no print for a listing of 30 entries")
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		m := slices.Clone(l)
		r.Shuffle(len(m), func(i, j int) { m[i], m[j] = m[j], m[i] })
		if got, _ := printOf(m); got != want {
			t.Fatal("the same 30 entries in another order have another print")
		}
	}
	for _, change := range []func(*proxy.Model){
		func(m *proxy.Model) { m.Size++ },
		func(m *proxy.Model) { m.Type = "file" },
		func(m *proxy.Model) { m.LastModified = m.LastModified.Add(time.Microsecond) },
		func(m *proxy.Model) { m.Created = m.LastModified },
		func(m *proxy.Model) { m.Name = "other" },
	} {
		m := slices.Clone(l)
		change(&m[1])
		if got, _ := printOf(m); got == want {
			t.Errorf("a changed entry %+v kept the listing's print", m[1])
		}
	}
}

// fixture is a client of jupytertest.ContentsServer(body).
func fixture(t *testing.T, body func(path string) string) *Copier {
	t.Helper()
	u := jupytertest.ContentsServer(t, body)
	return newCopier(t, proxy.Options{Runtime: "rt-x", Info: api.ConnectionInfo{URL: u, Token: "t"}})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Colab's ")]}'" guard before JSON replies is stripped
// where JSON is decoded (stat, listings, writes, Jupyter's error bodies),
// and never from a file's bytes, even a file that starts with it.
func TestXSSIPrefixStripped(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{XSSI: true, ManyFiles: 3, TokenTTL: 24 * time.Hour})
	c := e.client()
	ctx := context.Background()
	// The emulator does send it.
	req, _ := http.NewRequest(http.MethodGet, e.Rt.ConnectionInfo.URL+"api/contents/content?content=0", nil)
	req.Header.Set(proxy.TokenHeader, e.Rt.ConnectionInfo.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 5)
	_, _ = resp.Body.Read(head)
	resp.Body.Close()
	if string(head) != ")]}'\n" {
		t.Fatalf("the emulator sent %q first", head)
	}
	if _, err := c.Mkdir(ctx, "content/x"); err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(t.TempDir(), "guard.txt")
	must(t, os.WriteFile(local, []byte(")]}'\nnot a guard"), 0o644))
	if _, err := upload(t, c, local, "content/x/guard.txt"); err != nil {
		t.Fatal(err)
	}
	l, err := c.List(ctx, "content/x")
	if err != nil || len(l.Entries) != 1 || l.Entries[0].Name != "guard.txt" {
		t.Fatalf("List = %+v, %v", l, err)
	}
	if l, err := c.List(ctx, colabfake.SyntheticDir); err != nil || len(l.Entries) != 3 {
		t.Fatalf("synthetic List = %+v, %v", l, err)
	}
	if _, err := c.Stat(ctx, "content/none"); !errors.Is(err, proxy.ErrNotFound) {
		t.Fatalf("Stat of a missing file: %v (Jupyter's JSON 404 behind the guard)", err)
	}
	out := filepath.Join(t.TempDir(), "out.txt")
	if _, err := c.Download(ctx, "content/x/guard.txt", out, nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != ")]}'\nnot a guard" {
		t.Fatalf("downloaded %q", b)
	}
}
