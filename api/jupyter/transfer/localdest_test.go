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
	e, c := newEnvClient(t, jupytertest.Emulator)
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
	e, c := newEnvClient(t, jupytertest.Emulator)
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
	e, c := newEnvClient(t, jupytertest.Emulator)
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
	e, c := newEnvClient(t, jupytertest.Emulator)
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

// A remote name with control characters or bidirectional overrides never
// becomes a local file name as it is: a single file downloaded into a
// directory (cp RT:PATH ., the files pane's d) is refused in one line and
// nothing is written; the same file downloaded to a name the user gives
// arrives; a recursive download refuses the entry the same way.
func TestDownloadRefusesControlCharactersInTheLocalName(t *testing.T) {
	e, c := newEnvClient(t, jupytertest.Emulator)
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

// A download never replaces a local file unless told to (cp -f): a
// single file, named or into a directory, and a tree whose files exist
// locally are refused before anything is written, in one line naming the
// first file and counting the others; the directories the walk made are
// gone again. With Overwrite the same copies replace them.
func TestDownloadRefusesToReplaceALocalFile(t *testing.T) {
	e, c := newEnvClient(t, jupytertest.Emulator)
	ctx := context.Background()
	putTree(t, e, c, map[string]string{"a.txt": "remote", "proj/a.txt": "ra", "proj/b.txt": "rb", "proj/new/n.txt": "rn", "proj/sub/s.txt": "rs"})
	out := t.TempDir()
	mine := filepath.Join(out, "a.txt")
	os.WriteFile(mine, []byte("mine"), 0o644)
	for what, call := range map[string]func(o CopyOptions) error{
		"named":          func(o CopyOptions) error { return c.DownloadPath(ctx, e.P("a.txt"), mine, false, o) },
		"into a dir":     func(o CopyOptions) error { return c.DownloadPath(ctx, e.P("a.txt"), out, false, o) },
		"into a dir (/)": func(o CopyOptions) error { return c.DownloadPath(ctx, e.P("a.txt"), out+"/", true, o) },
	} {
		err := call(CopyOptions{})
		if !errors.Is(err, proxy.ErrLocalExists) || !strings.Contains(err.Error(), mine+" exists") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one ErrLocalExists line naming %s", what, err, mine)
		}
		if got := readOr(t, mine); got != "mine" {
			t.Fatalf("%s: the local file now holds %q", what, got)
		}
	}
	noLeftovers(t, out, "a.txt")

	// A tree: out/proj holds a.txt and b.txt and sub/ already.
	proj := mkdir(t, filepath.Join(out, "proj"))
	mkdir(t, filepath.Join(proj, "sub"))
	os.WriteFile(filepath.Join(proj, "a.txt"), []byte("la"), 0o644)
	os.WriteFile(filepath.Join(proj, "b.txt"), []byte("lb"), 0o644)
	var w warnings
	o := w.opts()
	err := c.DownloadPath(ctx, e.P("proj"), out, false, o)
	if !errors.Is(err, proxy.ErrLocalExists) || !strings.Contains(err.Error(), filepath.Join(proj, "a.txt")+" and 1 more file exist") {
		t.Fatalf("cp -r into a tree holding two of its files: %v, want ErrLocalExists naming a.txt and counting 1 more", err)
	}
	for name, want := range map[string]string{"a.txt": "la", "b.txt": "lb"} {
		if got := readOr(t, filepath.Join(proj, name)); got != want {
			t.Errorf("refused, yet %s holds %q", name, got)
		}
	}
	noLeftovers(t, proj, "a.txt", "b.txt", "sub") // new/ was made by the walk, then removed
	noLeftovers(t, filepath.Join(proj, "sub"))

	o.Overwrite = true
	if err := c.DownloadPath(ctx, e.P("proj"), out, false, o); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a.txt": "ra", "b.txt": "rb", "new/n.txt": "rn", "sub/s.txt": "rs"} {
		if got := readOr(t, filepath.Join(proj, filepath.FromSlash(name))); got != want {
			t.Errorf("with Overwrite %s holds %q, want %q", name, got, want)
		}
	}
	if err := c.DownloadPath(ctx, e.P("a.txt"), out, false, CopyOptions{Overwrite: true}); err != nil || readOr(t, mine) != "remote" {
		t.Errorf("a single file with Overwrite: %v, the file holds %q", err, readOr(t, mine))
	}
}

// cp -r up into an existing remote directory goes below it under the
// source's name; into the runtime's root that is a top-level directory,
// refused before any request writes; a hidden source name, which the
// runtime's Jupyter server refuses, is refused with a line saying how to
// name the destination.
func TestRecursiveUploadIntoAnExistingRemoteDirectory(t *testing.T) {
	e, c := newEnvClient(t, jupytertest.Emulator)
	ctx := context.Background()
	src := localTree(t, map[string]string{"a.txt": "a"})
	if err := c.MkdirAll(ctx, e.P("results")); err != nil {
		t.Fatal(err)
	}
	if err := c.UploadPath(ctx, src, e.P("results")+"/", true, CopyOptions{Recursive: true}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(remoteNames(t, c, e.P("results/tree")), ","); got != "a.txt" {
		t.Errorf("results/tree holds %q, want a.txt", got)
	}
	if err := c.UploadPath(ctx, src, "", true, CopyOptions{Recursive: true}); !errors.Is(err, proxy.ErrTopLevel) {
		t.Errorf("cp -r tree RT:/ = %v, want ErrTopLevel (it would be /tree)", err)
	}
	hidden := filepath.Join(t.TempDir(), ".cfg")
	mkdir(t, hidden)
	if err := c.UploadPath(ctx, hidden, e.P("results"), false, CopyOptions{Recursive: true}); !errors.Is(err, proxy.ErrLocal) || !strings.Contains(err.Error(), "RUNTIME:PATH/NAME") {
		t.Errorf("a hidden source into a directory: %v, want ErrLocal saying to name it in full", err)
	}
}

// The check for a local file is made again when the download ends: a
// file written at the name while the bytes were on their way (after the
// check before the first request) is not replaced, the part file is gone,
// and the refusal names it; with Overwrite it is.
func TestDownloadKeepsAFileWrittenWhileItRan(t *testing.T) {
	e, c := newEnvClient(t, jupytertest.Emulator)
	ctx := context.Background()
	putTree(t, e, c, map[string]string{"race.bin": "remote"})
	out := t.TempDir()
	mine := filepath.Join(out, "race.bin")
	for _, overwrite := range []bool{false, true} {
		os.Remove(mine)
		o := CopyOptions{Overwrite: overwrite, Progress: func(string, int64, int64) {
			if _, err := os.Lstat(mine); errors.Is(err, os.ErrNotExist) {
				os.WriteFile(mine, []byte("mine"), 0o644)
			}
		}}
		err := c.DownloadPath(ctx, e.P("race.bin"), out, false, o)
		switch got := readOr(t, mine); {
		case !overwrite && (!errors.Is(err, proxy.ErrLocalExists) || !strings.Contains(err.Error(), mine) || got != "mine"):
			t.Fatalf("a file written during the download: %v, it now holds %q", err, got)
		case overwrite && (err != nil || got != "remote"):
			t.Fatalf("with Overwrite: %v, the file holds %q", err, got)
		}
		noLeftovers(t, out, "race.bin")
	}
}
