package transfer

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// mustSymlink makes a link the test needs; failing to is a failure, not a
// skip.
func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatalf("cannot make the symbolic link this test needs: %v", err)
	}
}

// putTree uploads name → content under the test's remote directory,
// making the directories.
func putTree(t *testing.T, e *env, c *Copier, files map[string]string) {
	t.Helper()
	ctx := context.Background()
	for name, body := range files {
		if dir := filepath.Dir(name); dir != "." {
			if err := c.MkdirAll(ctx, e.P(filepath.ToSlash(dir))); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := c.Upload(ctx, e.P(name), strings.NewReader(body), int64(len(body)), nil); err != nil {
			t.Fatal(err)
		}
	}
}

// warnings collects CopyOptions.Warn lines.
type warnings struct {
	mu    sync.Mutex
	lines []string
}

func (w *warnings) opts() CopyOptions {
	return CopyOptions{Recursive: true, Warn: func(s string) { w.mu.Lock(); w.lines = append(w.lines, s); w.mu.Unlock() }}
}

// naming returns the lines that contain s.
func (w *warnings) naming(s string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, l := range w.lines {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return out
}

// mkdir makes the local directory p and returns it.
func mkdir(t *testing.T, p string) string {
	t.Helper()
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func readOr(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	if es, err := os.ReadDir(dir); err != nil || len(es) != 0 {
		t.Fatalf("%s holds %d entries (%v): a write went through a link in the destination", dir, len(es), err)
	}
}

func isLink(p string) bool {
	st, err := os.Lstat(p)
	return err == nil && st.Mode()&fs.ModeSymlink != 0
}

// cp -r into an existing destination whose sub is a link to elsewhere:
// the linked directory and a linked file are refused, each in
// one line naming it; nothing is written outside; the rest is copied and
// the copy fails at the end (exit 1), as GNU cp refuses and goes on.
func TestRecursiveDownloadRefusesLinksInTheDestination(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client()
	putTree(t, e, c, map[string]string{
		"d/a.txt": "a", "d/sub/s.txt": "s", "d/sub/deep/x.txt": "x", "d/link.txt": "l", "d/z/z.txt": "z",
	})
	// cp -r RT:d parent, parent/d existing: the copy goes into it.
	parent, outside := t.TempDir(), t.TempDir()
	out := mkdir(t, filepath.Join(parent, "d"))
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, outside, filepath.Join(out, "sub"))
	mustSymlink(t, victim, filepath.Join(out, "link.txt"))
	var w warnings
	err := c.DownloadPath(context.Background(), e.P("d"), parent, false, w.opts())
	if !errors.Is(err, proxy.ErrLocal) || !strings.Contains(err.Error(), "2 entries not copied") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("DownloadPath = %v, want one proxy.ErrLocal line saying 2 entries were not copied", err)
	}
	assertEmpty(t, outside)
	if got := readOr(t, victim); got != "precious" {
		t.Errorf("the linked file's target now holds %q", got)
	}
	for _, name := range []string{"sub", "link.txt"} {
		p := filepath.Join(out, name)
		if lines := w.naming(p); len(lines) != 1 || strings.Contains(lines[0], "\n") || !strings.Contains(lines[0], "symbolic link") {
			t.Errorf("warnings naming %s: %q, want exactly one line saying it is a symbolic link", p, lines)
		}
		if !isLink(p) {
			t.Errorf("%s is no longer the user's link", p)
		}
	}
	for name, want := range map[string]string{"a.txt": "a", "z/z.txt": "z"} {
		if got := readOr(t, filepath.Join(out, name)); got != want {
			t.Errorf("%s holds %q, want %q: the rest of the copy did not go on", name, got, want)
		}
	}
	noLeftovers(t, out, "a.txt", "link.txt", "sub", "z")
}

// A file where a remote directory goes, a directory where a remote file
// goes, and a link at a part path deeper down are refused the same way,
// and the copy goes on.
func TestRecursiveDownloadSkipsWhatIsInTheWay(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client()
	putTree(t, e, c, map[string]string{"d/f/in.txt": "i", "d/g.txt": "g", "d/s/p.txt": "p", "d/s/q.txt": "q"})
	parent := t.TempDir()
	out := mkdir(t, filepath.Join(parent, "d"))
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "f"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(out, "g.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(out, "s"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, victim, filepath.Join(out, "s", "p.txt"+PartSuffix))
	var w warnings
	err := c.DownloadPath(context.Background(), e.P("d"), parent, false, w.opts())
	if !errors.Is(err, proxy.ErrLocal) || !strings.Contains(err.Error(), "3 entries not copied") {
		t.Fatalf("DownloadPath = %v, want proxy.ErrLocal saying 3 entries were not copied", err)
	}
	if got := readOr(t, victim); got != "precious" {
		t.Errorf("the link at the part path was written through: %q", got)
	}
	if got := readOr(t, filepath.Join(out, "f")); got != "mine" {
		t.Errorf("the local file f holds %q", got)
	}
	if got := readOr(t, filepath.Join(out, "s", "q.txt")); got != "q" {
		t.Errorf("s/q.txt holds %q: the copy stopped", got)
	}
	for _, p := range []string{filepath.Join(out, "f"), filepath.Join(out, "g.txt"), filepath.Join(out, "s", "p.txt"+PartSuffix)} {
		if len(w.naming(p)) != 1 {
			t.Errorf("no single warning names %s: %q", p, w.lines)
		}
	}
}

// A single file downloaded into a directory (cp RT:PATH dir/, the files
// pane's d) refuses a link at its name there, and the re-check at the
// rename refuses one that appears during the transfer: nothing is
// written through either, and each link is left as it was.
func TestDownloadIntoRefusesALinkAtTheName(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client()
	putTree(t, e, c, map[string]string{"f.txt": "remote"})
	ctx := context.Background()
	out := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, victim, filepath.Join(out, "f.txt"))
	for what, call := range map[string]func() error{
		"DownloadPath into the directory": func() error { return c.DownloadPath(ctx, e.P("f.txt"), out, true, CopyOptions{}) },
		"DownloadInto":                    func() error { _, err := c.DownloadInto(ctx, e.P("f.txt"), out, "f.txt", nil); return err },
	} {
		err := call()
		if !errors.Is(err, proxy.ErrLocal) || !strings.Contains(err.Error(), filepath.Join(out, "f.txt")+" is a symbolic link") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one proxy.ErrLocal line naming the link", what, err)
		}
	}
	if got := readOr(t, victim); got != "precious" || !isLink(filepath.Join(out, "f.txt")) {
		t.Fatalf("victim %q, link kept %v", got, isLink(filepath.Join(out, "f.txt")))
	}
	noLeftovers(t, out, "f.txt")

	// A link placed at the name while the bytes arrive.
	out2 := t.TempDir()
	racer := e.client()
	racer.wrapPart = func(f partFile) partFile {
		return &linkOnSync{partFile: f, do: func() { mustSymlink(t, victim, filepath.Join(out2, "f.txt")) }}
	}
	_, err := racer.DownloadInto(ctx, e.P("f.txt"), out2, "f.txt", nil)
	if !errors.Is(err, proxy.ErrLocal) || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("a link that appeared before the rename: %v, want proxy.ErrLocal naming it", err)
	}
	if got := readOr(t, victim); got != "precious" || !isLink(filepath.Join(out2, "f.txt")) {
		t.Fatalf("after the race the victim holds %q, link kept %v", got, isLink(filepath.Join(out2, "f.txt")))
	}
	noLeftovers(t, out2, "f.txt")
}

// linkOnSync runs do when the part file is synced: just before the
// rename.
type linkOnSync struct {
	partFile
	do func()
}

func (l *linkOnSync) Sync() error { l.do(); return l.partFile.Sync() }

// What the user named is theirs to be a link, as with cp: a destination
// directory that is a link is copied into where it leads, and a file
// name that is a link is written through; a link to nothing is refused.
func TestDownloadFollowsTheNamedDestination(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client()
	putTree(t, e, c, map[string]string{"d/a.txt": "a", "f.txt": "remote"})
	ctx := context.Background()
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "dest")
	mustSymlink(t, real, link)
	if err := c.DownloadPath(ctx, e.P("d"), link, false, CopyOptions{Recursive: true}); err != nil {
		t.Fatal(err)
	}
	if got := readOr(t, filepath.Join(real, "d", "a.txt")); got != "a" { // an existing directory: into it, under d
		t.Errorf("the named linked directory: a.txt holds %q", got)
	}
	target := filepath.Join(real, "mine.txt")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	named := filepath.Join(t.TempDir(), "named.txt")
	mustSymlink(t, target, named)
	if _, err := c.Download(ctx, e.P("f.txt"), named, nil); err != nil {
		t.Fatal(err)
	}
	if got := readOr(t, target); got != "remote" || !isLink(named) {
		t.Errorf("the named link: its target holds %q, link kept %v", got, isLink(named))
	}
	dangling := filepath.Join(t.TempDir(), "dangling")
	nowhere := filepath.Join(t.TempDir(), "nowhere")
	mustSymlink(t, nowhere, dangling)
	if _, err := c.Download(ctx, e.P("f.txt"), dangling, nil); !errors.Is(err, proxy.ErrLocal) || !strings.Contains(err.Error(), "symbolic link to nothing") {
		t.Errorf("a dangling named link: %v, want proxy.ErrLocal", err)
	}
	if _, err := os.Lstat(nowhere); err == nil {
		t.Error("a file was created where the dangling link points")
	}
}
