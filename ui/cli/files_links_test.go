package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
)

// filesOnDisk is the emulator's files runtime with its files kept in a
// directory of the test's: it returns the environment and the directory
// that holds the runtime's /content (made by a first ls), where the test
// puts what the runtime should have, links included.
func filesOnDisk(t *testing.T) (*verbEnv, string) {
	t.Helper()
	files := t.TempDir()
	e := filesVerbEnv(t, colabfake.Options{FilesDir: files})
	if code, _, errs := e.run("ls", "rt-files:/content"); code != 0 {
		t.Fatalf("ls: %d %s", code, errs)
	}
	return e, filepath.Join(files, "rt-files", "content")
}

// cp -r down, against the emulator: links below the directory (to a
// sibling, the parent, /, a file) are skipped and counted, the rest is
// copied; a directory named through a link is refused naming -L, and
// copied with -L; the session opened for the check is closed again.
func TestCpDownSkipsRuntimeLinks(t *testing.T) {
	e, store := filesOnDisk(t)
	top := filepath.Join(store, "top")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(top, "d"), 0o755))
	must(os.MkdirAll(filepath.Join(store, "sib"), 0o755))
	must(os.WriteFile(filepath.Join(top, "d", "f.txt"), []byte("f"), 0o644))
	must(os.WriteFile(filepath.Join(store, "sib", "secret.txt"), []byte("s"), 0o644))
	must(os.Symlink("../sib", filepath.Join(top, "tosib")))
	must(os.Symlink("..", filepath.Join(top, "d", "up")))
	must(os.Symlink("/", filepath.Join(top, "slash")))
	must(os.Symlink("../sib/secret.txt", filepath.Join(top, "file.link")))
	must(os.Symlink("sib", filepath.Join(store, "rootlink")))

	out := filepath.Join(t.TempDir(), "out")
	code, _, errs := e.run("cp", "-r", "rt-files:/content/top", out)
	if code != 0 || !strings.Contains(errs, "symbolic link(s) in /content/top") {
		t.Fatalf("cp -r: exit %d\n%s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(out, "d", "f.txt")); err != nil {
		t.Errorf("d/f.txt not copied: %v", err)
	}
	for _, p := range []string{"tosib", "d/up", "slash", "file.link"} {
		if _, err := os.Lstat(filepath.Join(out, p)); err == nil {
			t.Errorf("the link %s was followed", p)
		}
	}

	out2 := filepath.Join(t.TempDir(), "out2")
	code, _, errs = e.run("cp", "-r", "rt-files:/content/rootlink", out2)
	if code == 0 || !strings.Contains(errs, "it is a symbolic link") || !strings.Contains(errs, "-L") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Fatalf("cp -r of a link: exit %d\n%s", code, errs)
	}
	if _, err := os.Lstat(filepath.Join(out2, "secret.txt")); err == nil {
		t.Error("the link named as the root was followed")
	}
	if code, _, errs := e.run("cp", "-r", "-L", "rt-files:/content/rootlink", out2); code != 0 {
		t.Fatalf("cp -r -L: exit %d\n%s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(out2, "secret.txt")); err != nil {
		t.Errorf("-L did not copy through the link: %v", err)
	}
	if n := len(e.srv.Sessions("rt-files")); n != 0 {
		t.Errorf("%d sessions left open", n)
	}
}

// run --download of a directory skips the links below it as cp -r down
// does, asking in the run's own session: a link to a sibling directory is
// not followed out of the tree named.
func TestRunDownloadSkipsRuntimeLinks(t *testing.T) {
	e, store := filesOnDisk(t)
	top := filepath.Join(store, "top")
	for _, err := range []error{
		os.MkdirAll(top, 0o755), os.MkdirAll(filepath.Join(store, "sib"), 0o755),
		os.WriteFile(filepath.Join(top, "mine.txt"), []byte("m"), 0o644),
		os.WriteFile(filepath.Join(store, "sib", "secret.txt"), []byte("s"), 0o644),
		os.Symlink("../sib", filepath.Join(top, "tosib")),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	script := writeFile(t, filepath.Join(dir, "noop.py"), "print('ok')\n")
	back := filepath.Join(dir, "back")
	code, _, errs := e.runRun("--runtime", "rt-files", "--download", "/content/top:"+back, script)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(back, "mine.txt")); err != nil {
		t.Errorf("mine.txt not downloaded: %v\n%s", err, errs)
	}
	if _, err := os.Lstat(filepath.Join(back, "tosib")); err == nil {
		t.Errorf("the link to a sibling directory was followed:\n%s", errs)
	}
}
