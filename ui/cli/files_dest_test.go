package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/ui/cli/kit"
)

// cp behaves as cp and scp: a directory copied into an existing local
// directory lands below it under its own name (results/proj), leaving
// results/a.txt as it was; a file copied into a directory keeps its name;
// a download that would replace a local file refuses in one line naming
// it and -f/--force, writing nothing, and -f replaces it.
func TestCpIntoAnExistingDirectoryAndNoSilentReplace(t *testing.T) {
	_, flags := filesEmu(t)
	cli := cliWith(t, flags)
	src := filepath.Join(t.TempDir(), "proj")
	writeFile(t, filepath.Join(src, "a.txt"), "remote a")
	if code, out, errs := runCopied(t, append([]string{"cp", "-r", src, "rt-files:"}, flags...)...); code != 0 || !strings.Contains(out, "rt-files:/content/proj/a.txt") {
		t.Fatalf("cp -r proj rt-files: exit %d %q %q; want it in /content/proj", code, out, errs)
	}
	dir := t.TempDir()
	results := filepath.Join(dir, "results")
	mine := writeFile(t, filepath.Join(results, "a.txt"), "mine")
	if code, out, errs := cli("cp", "-r", "rt-files:/content/proj", results+"/"); code != 0 {
		t.Fatalf("cp -r into an existing directory: exit %d %q %q", code, out, errs)
	}
	if b, _ := os.ReadFile(mine); string(b) != "mine" {
		t.Errorf("results/a.txt now holds %q: the copy merged into results", b)
	}
	if b, err := os.ReadFile(filepath.Join(results, "proj", "a.txt")); err != nil || string(b) != "remote a" {
		t.Errorf("results/proj/a.txt: %q, %v; want the copy there", b, err)
	}
	// A single file into a directory keeps its name.
	into := filepath.Join(dir, "into")
	os.Mkdir(into, 0o755)
	if code, _, errs := cli("cp", "rt-files:proj/a.txt", into+"/"); code != 0 {
		t.Fatalf("cp RT:proj/a.txt dir/: exit %d %q", code, errs)
	}
	if b, _ := os.ReadFile(filepath.Join(into, "a.txt")); string(b) != "remote a" {
		t.Errorf("dir/a.txt holds %q", b)
	}
	// The same download again would replace it: refused, then -f.
	for _, args := range [][]string{
		{"cp", "rt-files:proj/a.txt", into + "/"},
		{"cp", "rt-files:proj/a.txt", mine},
		{"cp", "-r", "rt-files:/content/proj", results},
	} {
		os.WriteFile(filepath.Join(into, "a.txt"), []byte("mine"), 0o644)
		os.WriteFile(mine, []byte("mine"), 0o644)
		os.WriteFile(filepath.Join(results, "proj", "a.txt"), []byte("mine"), 0o644)
		code, out, errs := cli(args...)
		if code == 0 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "a.txt exists") || !strings.Contains(errs, "-f/--force") || out != "" {
			t.Errorf("%q over a local file: exit %d, out %q, err %q; want one line naming it and -f/--force", args, code, out, errs)
		}
		for _, p := range []string{filepath.Join(into, "a.txt"), mine, filepath.Join(results, "proj", "a.txt")} {
			if b, _ := os.ReadFile(p); string(b) != "mine" {
				t.Fatalf("%q refused, yet %s holds %q", args, p, b)
			}
		}
		if code, _, errs := cli(append([]string{args[0], "-f"}, args[1:]...)...); code != 0 {
			t.Errorf("%q -f: exit %d %q", args, code, errs)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(results, "proj", "a.txt")); string(b) != "remote a" {
		t.Errorf("after cp -r -f results/proj/a.txt holds %q", b)
	}
	if _, err := os.Stat(filepath.Join(results, "proj", "proj")); err == nil {
		t.Error("cp -r -f RT:proj results made results/proj/proj")
	}
}

// A relative remote path is relative to /content everywhere, as
// "rt-files:" alone is /content: ls rt-files:proj lists /content/proj,
// cp x rt-files:x uploads /content/x, rm rt-files:x removes it, and ".."
// never climbs above /.
func TestRelativeRemotePathsAreUnderContent(t *testing.T) {
	_, flags := filesEmu(t)
	cli := cliWith(t, flags)
	t.Chdir(t.TempDir())
	writeFile(t, "x.txt", "x")
	if code, out, errs := runCopied(t, append([]string{"cp", "x.txt", "rt-files:x.txt"}, flags...)...); code != 0 || !strings.Contains(out, "rt-files:/content/x.txt") {
		t.Fatalf("cp x.txt rt-files:x.txt: exit %d %q %q; want /content/x.txt", code, out, errs)
	}
	if code, out, errs := cli("ls", "rt-files:x.txt"); code != 0 || !strings.HasSuffix(out, "  x.txt\n") {
		t.Fatalf("ls rt-files:x.txt: exit %d %q %q", code, out, errs)
	}
	if code, out, errs := cli("ls", "rt-files:../../.."); code != 0 || !strings.Contains(out, "content/") {
		t.Fatalf("ls rt-files:../../..: exit %d %q %q; want the root, never above it", code, out, errs)
	}
	if code, out, errs := cli("rm", "rt-files:x.txt"); code != 0 || out != "removed rt-files:/content/x.txt\n" {
		t.Fatalf("rm rt-files:x.txt: exit %d %q %q", code, out, errs)
	}
	if code, _, errs := cli("ls", "rt-files:x.txt"); code != kit.ExitNotFound || !strings.Contains(errs, "rt-files:/content/x.txt") {
		t.Fatalf("ls after rm: exit %d %q", code, errs)
	}
}

// cp -r into a destination whose sub is a link to a directory outside,
// without tmux: outside stays empty, every other file is
// copied, exactly one line names out/sub, and the exit code is 1, as GNU
// cp refuses and goes on.
func TestCpRecursiveRefusesALinkedDirectoryInTheDestination(t *testing.T) {
	_, flags := filesEmu(t)
	cli := cliWith(t, flags)
	src := t.TempDir()
	writeFile(t, filepath.Join(src, "a.txt"), "a")
	writeFile(t, filepath.Join(src, "sub", "s.txt"), "s")
	writeFile(t, filepath.Join(src, "z", "z.txt"), "z")
	if code, out, errs := cli("cp", "-r", src, "rt-files:/content/tree"); code != 0 {
		t.Fatalf("cp -r up: exit %d %q %q", code, out, errs)
	}
	// parent/tree exists: the copy goes into it, under its own name.
	parent, outside := t.TempDir(), t.TempDir()
	out := filepath.Join(parent, "tree")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(out, "sub")
	if err := os.Symlink(outside, sub); err != nil {
		t.Fatalf("cannot make the symbolic link this test needs: %v", err)
	}
	code, stdout, stderr := cli("cp", "-r", "rt-files:/content/tree", parent)
	if code != kit.ExitFailure {
		t.Errorf("exit %d, want 1; stdout %q, stderr %q", code, stdout, stderr)
	}
	if es, err := os.ReadDir(outside); err != nil || len(es) != 0 {
		t.Fatalf("outside holds %d entries (%v): cp -r wrote through out/sub", len(es), err)
	}
	for name, want := range map[string]string{"a.txt": "a", "z/z.txt": "z"} {
		if b, err := os.ReadFile(filepath.Join(out, name)); err != nil || string(b) != want {
			t.Errorf("%s: %q, %v; want %q: the rest was not copied", name, b, err, want)
		}
	}
	var naming []string
	for _, l := range strings.Split(stdout+stderr, "\n") {
		if strings.Contains(l, sub) {
			naming = append(naming, l)
		}
	}
	if len(naming) != 1 || !strings.Contains(naming[0], "symbolic link") {
		t.Errorf("lines naming %s: %q, want exactly one saying it is a symbolic link\nstderr: %s", sub, naming, stderr)
	}
	if st, err := os.Lstat(sub); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("out/sub is no longer the user's link: %v", err)
	}
}
