package transfer

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// runLinkCode runs LinkCode for root with the real python3, as
// execute_code runs it on a runtime.
func runLinkCode(t *testing.T, root string) string {
	t.Helper()
	code, err := LinkCode(root)
	if err != nil {
		t.Fatal(err)
	}
	py := jupytertest.JupyterPython()
	if _, err := os.Stat(py); err != nil {
		t.Skipf("no python3 at %s", py)
	}
	out, err := exec.Command(py, "-c", code).Output()
	if err != nil {
		t.Fatalf("python: %v", err)
	}
	return string(out)
}

// The check's Python finds every link below the directory without
// following any, and a root whose name holds quotes, a backslash and a
// newline reaches Python as it is (a JSON literal, not spliced).
func TestLinkCodeFindsLinks(t *testing.T) {
	root := filepath.Join(t.TempDir(), "a \"q\" \\ '\n")
	must(t, os.MkdirAll(filepath.Join(root, "d", "deep"), 0o755))
	must(t, os.Symlink("/", filepath.Join(root, "d", "deep", "slash")))
	must(t, os.Symlink("..", filepath.Join(root, "up")))
	must(t, os.WriteFile(filepath.Join(root, "d", "f"), []byte("f"), 0o644))
	must(t, os.Symlink("d/f", filepath.Join(root, "f.link")))
	l, err := ParseLinks(runLinkCode(t, root))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(l.Paths)
	if want := []string{"d/deep/slash", "f.link", "up"}; l.Root || !slices.Equal(l.Paths, want) {
		t.Fatalf("links = %+v, want %q", l, want)
	}
	must(t, os.Symlink(root, root+"-link"))
	if l, err := ParseLinks(runLinkCode(t, root+"-link")); err != nil || !l.Root || len(l.Paths) != 0 {
		t.Fatalf("a root that is a link: %+v, %v", l, err)
	}
	if _, err := ParseLinks(runLinkCode(t, root+"-missing")); err == nil {
		t.Fatal("a missing root passed the check")
	}
}

func TestParseLinks(t *testing.T) {
	for _, c := range []struct{ out, err string }{
		{"", "no answer"},
		{"Traceback: NameError\n", "no answer"},
		{"colabdash-links {", "unreadable"},
		{`colabdash-links {"links":[]}`, "unreadable"},
		{`colabdash-links {"root_link":false,"links":["a"],"truncated":true,"error":""}`, "more than 10000"},
		{`colabdash-links {"root_link":false,"links":[],"truncated":false,"error":"Permission denied"}`, "could not read"},
		{`colabdash-links {"root_link":false,"links":["../x"],"truncated":false,"error":""}`, "not a path inside"},
		{`colabdash-links {"root_link":false,"links":["/x"],"truncated":false,"error":""}`, "not a path inside"},
		{"colabdash-links {\"root_link\":false,\"links\":[],\"truncated\":false,\"error\":\"\"}\ncolabdash-links {\"root_link\":false,\"links\":[],\"truncated\":false,\"error\":\"\"}", "two answers"},
	} {
		if _, err := ParseLinks(c.out); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("ParseLinks(%q) = %v, want %q", c.out, err, c.err)
		}
	}
	l, err := ParseLinks("noise\ncolabdash-links {\"root_link\":false,\"links\":[\"a/b\"],\"truncated\":false,\"error\":\"\"}\n")
	if err != nil || l.Root || !slices.Equal(l.Paths, []string{"a/b"}) {
		t.Fatalf("ParseLinks = %+v, %v", l, err)
	}
	if _, err := LinkCode("a\x00b"); err == nil {
		t.Fatal("LinkCode took a NUL")
	}
}

// A recursive download never follows a link out of the tree it was
// named: links to a sibling directory, to the parent, to / and to a file
// (which Jupyter lists as a directory, or as a file) are skipped and
// counted (as many as the listings show: the emulator's need not list
// a link to /), everything else is copied; a directory named through a link
// is refused unless -L; a check that cannot run refuses, naming -L.
// Against the emulator and the real jupyter-server, the check being the
// real Python run on the tree the server serves.
func TestDownloadSkipsLinks(t *testing.T) {
	jupytertest.ForEachBackend(t, func(t *testing.T, be jupytertest.Backend) {
		files := t.TempDir()
		e := newEnv(t, be, colabfake.Options{FilesDir: files, TokenTTL: 24 * time.Hour})
		c := e.client()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if _, _, err := c.ListEach(ctx, e.Dir, func(proxy.Model) error { return nil }); err != nil {
			t.Fatal(err)
		}
		store := storeDir(e, files)
		top := filepath.Join(store, "top")
		must(t, os.MkdirAll(filepath.Join(top, "d"), 0o755))
		must(t, os.MkdirAll(filepath.Join(store, "sib"), 0o755))
		must(t, os.WriteFile(filepath.Join(top, "d", "f.txt"), []byte("f"), 0o644))
		must(t, os.WriteFile(filepath.Join(store, "sib", "secret.txt"), []byte("s"), 0o644))
		must(t, os.WriteFile(filepath.Join(store, "outside.txt"), []byte("o"), 0o644))
		must(t, os.Symlink("../sib", filepath.Join(top, "tosib")))
		must(t, os.Symlink("..", filepath.Join(top, "d", "up")))
		must(t, os.Symlink("/", filepath.Join(top, "slash")))
		must(t, os.Symlink("../outside.txt", filepath.Join(top, "file.link")))
		must(t, os.Symlink("top", filepath.Join(store, "rootlink")))
		checked := 0
		check := func(ctx context.Context, remote string) (Links, error) {
			checked++
			rel := strings.TrimPrefix(strings.TrimPrefix(remote, e.Dir), "/")
			return ParseLinks(runLinkCode(t, filepath.Join(store, rel)))
		}
		out := filepath.Join(t.TempDir(), "out")
		var warns []string
		o := CopyOptions{Recursive: true, Links: check, Warn: func(s string) { warns = append(warns, s) }}
		if err := c.DownloadPath(ctx, e.P("top"), out, false, o); err != nil {
			t.Fatalf("err = %v\nwarnings: %q", err, warns)
		}
		if b, err := os.ReadFile(filepath.Join(out, "d", "f.txt")); err != nil || string(b) != "f" {
			t.Errorf("d/f.txt = %q, %v", b, err)
		}
		var got []string
		_ = filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if p != out {
				r, _ := filepath.Rel(out, p)
				got = append(got, r)
			}
			return nil
		})
		if want := []string{"d", "d/f.txt"}; !slices.Equal(got, want) {
			t.Errorf("copied %q, want only %q", got, want)
		}
		if text := strings.Join(warns, "\n"); !strings.Contains(text, " symbolic link(s) in /"+e.P("top")+": a link is never followed") {
			t.Errorf("warnings lack the count of links skipped:\n%s", text)
		}
		if checked != 1 {
			t.Errorf("the check ran %d times", checked)
		}

		// The tree named through a link: refused, nothing written.
		out2 := filepath.Join(t.TempDir(), "out2")
		err := c.DownloadPath(ctx, e.P("rootlink"), out2, false, o)
		if !errors.Is(err, proxy.ErrLinks) || !strings.Contains(err.Error(), "it is a symbolic link") || !strings.Contains(err.Error(), "-L") {
			t.Fatalf("download of a link: %v", err)
		}
		if _, err := os.Lstat(out2); err == nil {
			t.Error("the refused download created its destination")
		}

		// A check that cannot run refuses and names -L.
		o.Links = func(context.Context, string) (Links, error) { return Links{}, errors.New("execute_code failed") }
		err = c.DownloadPath(ctx, e.P("top"), out2, false, o)
		if !errors.Is(err, proxy.ErrLinks) || !strings.Contains(err.Error(), "could not check") || !strings.Contains(err.Error(), "-L") {
			t.Fatalf("download with a failing check: %v", err)
		}
	})
}

// The emulator answers the link check by its first line.
func TestLinkMarkerIsTheEmulators(t *testing.T) {
	if LinkMarker != colabfake.LinkMarker {
		t.Fatalf("LinkMarker %q, the emulator's %q", LinkMarker, colabfake.LinkMarker)
	}
}
