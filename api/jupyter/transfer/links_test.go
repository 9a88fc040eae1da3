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
		e, c, store := newStoreEnv(t, be)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
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

// linkBed is a runtime tree with symbolic links in it, made on this
// machine where the backend serves it from: base (a remote path) is host
// here, and root is the host path of the runtime's root.
type linkBed struct {
	c          *Copier
	base, host string
	root       string
}

// newLinkBed serves a tree for the recursive-delete rule from the
// emulator or a real jupyter-server, its trash on or off:
//
//	base/keep.txt
//	base/sib/s.txt           a sibling of a
//	base/a/f.txt
//	base/a/tosib     -> ../sib         a link to a sibling
//	base/a/toparent  -> ..             a link to the parent
//	base/a/toroot    -> (the root)     a link to the runtime's root
//	base/a/tofile    -> ../keep.txt    a link to a file
//	base/lnk         -> sib            a link named as the target
func newLinkBed(t *testing.T, be jupytertest.Backend, trash bool) *linkBed {
	t.Helper()
	b := &linkBed{}
	switch {
	case be == jupytertest.Emulator:
		dir := t.TempDir()
		e := newEnv(t, be, colabfake.Options{FilesDir: dir, DeleteToTrash: trash})
		b.c, b.base = e.client(), "content/bed"
		b.root = filepath.Join(dir, "rt-files")
	case trash:
		url, root, _ := startOwnJupyter(t, ownJupyter{trash: true})
		e := newEnv(t, jupytertest.Emulator, colabfake.Options{JupyterUpstream: url})
		b.c, b.base, b.root = e.client(), "content/bed", root
	default:
		e := newEnv(t, be, colabfake.Options{})
		b.c, b.base, b.root = e.client(), e.P("bed"), jupytertest.JupyterRoot()
	}
	b.host = filepath.Join(b.root, filepath.FromSlash(b.base))
	a := filepath.Join(b.host, "a")
	for _, d := range []string{filepath.Join(b.host, "sib"), a} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{"keep.txt": "keep", "sib/s.txt": "sibling", "a/f.txt": "inside"} {
		if err := os.WriteFile(filepath.Join(b.host, filepath.FromSlash(name)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	toRoot, err := filepath.Rel(a, b.root)
	if err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"a/tosib": "../sib", "a/toparent": "..", "a/toroot": toRoot,
		"a/tofile": "../keep.txt", "lnk": "sib"} {
		if err := os.Symlink(target, filepath.Join(b.host, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// intact fails the test unless everything outside base/a (and base/lnk
// itself) is still there: the sibling's file, the parent's, the root's
// /content.
func (b *linkBed) intact(t *testing.T) {
	t.Helper()
	for _, p := range []string{"keep.txt", "sib/s.txt"} {
		if _, err := os.Stat(filepath.Join(b.host, filepath.FromSlash(p))); err != nil {
			t.Errorf("%s outside the tree removed: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(b.root, "content")); err != nil {
		t.Errorf("the root's /content removed: %v", err)
	}
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

// A recursive delete never removes anything outside the path named,
// whatever links it holds (to a sibling, the parent, the root, a file),
// and a link named as the target is removed itself, never what it points
// to: with the server's trash on, in one DELETE; with it off (the server
// deletes only empty directories), it refuses and removes nothing.
func TestRemoveAllNeverFollowsLinks(t *testing.T) {
	jupytertest.ForEachBackend(t, func(t *testing.T, be jupytertest.Backend) {
		for _, trash := range []bool{false, true} {
			name := map[bool]string{false: "trash off", true: "trash on"}[trash]
			t.Run(name, func(t *testing.T) {
				b := newLinkBed(t, be, trash)
				ctx := context.Background()
				var removed []string
				progress := func(p string) { removed = append(removed, p) }

				err := b.c.RemoveAll(ctx, b.base+"/a/tofile", progress)
				if err != nil || exists(filepath.Join(b.host, "a", "tofile")) {
					t.Errorf("rm of a link to a file: %v; the link is still there: %v", err, exists(filepath.Join(b.host, "a", "tofile")))
				}
				b.intact(t)

				err = b.c.RemoveAll(ctx, b.base+"/lnk", progress)
				switch {
				case trash && (err != nil || exists(filepath.Join(b.host, "lnk"))):
					t.Errorf("rm -r of a link to a directory: %v, link still there: %v; want the link removed", err, exists(filepath.Join(b.host, "lnk")))
				case !trash && !errors.Is(err, proxy.ErrNotRemoved):
					t.Errorf("rm -r of a link to a non-empty directory, trash off: %v; want ErrNotRemoved", err)
				}
				b.intact(t)

				removed = nil
				err = b.c.RemoveAll(ctx, b.base+"/a", progress)
				switch {
				case trash && err != nil:
					t.Errorf("rm -r of a directory holding links: %v", err)
				case trash && exists(filepath.Join(b.host, "a")):
					t.Error("rm -r left the directory")
				case !trash && !errors.Is(err, proxy.ErrNotRemoved):
					t.Errorf("rm -r of a non-empty directory, trash off: %v; want ErrNotRemoved", err)
				case !trash && (len(removed) != 0 || !exists(filepath.Join(b.host, "a", "f.txt"))):
					t.Errorf("a refused rm -r removed %v", removed)
				}
				b.intact(t)
			})
		}
	})
}

// Guards what a symbolic link inside a directory sent by cp -r uploads:
// a link to a file inside the directory is followed (its bytes go under
// the link's name); a link that leads out of it (a cloned repository's
// link to ~/.ssh/id_rsa) is skipped and named in a warning, the rest
// still copied; with FollowLinks (cp -L) it is followed too.
func TestUploadTreeFollowsLinksOnlyInside(t *testing.T) {
	e, c := newEnvClient(t, jupytertest.Emulator)
	home := t.TempDir()
	secret := filepath.Join(home, "id_rsa")
	must(t, os.WriteFile(secret, []byte("PRIVATE KEY BYTES"), 0o600))
	src := filepath.Join(t.TempDir(), "repo")
	must(t, os.MkdirAll(filepath.Join(src, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(src, "data.csv"), []byte("a,b\n"), 0o644))
	must(t, os.Symlink("../data.csv", filepath.Join(src, "sub", "same.csv")))
	must(t, os.Symlink(secret, filepath.Join(src, "key")))
	rel, err := filepath.Rel(filepath.Join(src, "sub"), secret)
	must(t, err)
	must(t, os.Symlink(rel, filepath.Join(src, "sub", "relkey"))) // ../../../…/id_rsa
	for _, follow := range []bool{false, true} {
		dst := e.P("repo-" + map[bool]string{false: "inside", true: "all"}[follow])
		var warnings []string
		err := c.UploadPath(context.Background(), src, dst, false, CopyOptions{Recursive: true, FollowLinks: follow,
			Warn: func(s string) { warnings = append(warnings, s) }})
		if err != nil {
			t.Fatalf("FollowLinks %v: %v", follow, err)
		}
		top, sub := strings.Join(remoteNames(t, c, dst), ","), strings.Join(remoteNames(t, c, dst+"/sub"), ",")
		switch {
		case !follow && (top != "data.csv,sub" || sub != "same.csv"):
			t.Errorf("without FollowLinks the runtime has %s and sub/%s, want data.csv,sub and sub/same.csv", top, sub)
		case follow && (top != "data.csv,key,sub" || sub != "relkey,same.csv"):
			t.Errorf("with FollowLinks the runtime has %s and sub/%s, want every link followed", top, sub)
		}
		all := strings.Join(warnings, "\n")
		if got := strings.Count(all, "outside "+src); (follow && got != 0) || (!follow && got != 2) {
			t.Errorf("FollowLinks %v: warnings %q", follow, warnings)
		}
	}
}

// cp -r up checks links when it sends, not only when it plans: a file,
// or a directory above one, swapped for a link to a secret after the
// plan (here from Planned, called before the first file moves) is
// refused in one line and its secret never reaches the runtime; the rest
// is copied. A link to a file inside the source, allowed when planned,
// is refused once it leads out.
func TestUploadTreeChecksLinksWhenItSends(t *testing.T) {
	_, c := newEnvClient(t, jupytertest.Emulator)
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
