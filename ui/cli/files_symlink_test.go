package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/ui/cli/kit"
)

// cp -r into a destination whose sub is a link to a directory outside,
// without tmux: outside stays empty, every other file is
// copied, exactly one line names out/sub, and the exit code is 1, as GNU
// cp refuses and goes on.
func TestCpRecursiveRefusesALinkedDirectoryInTheDestination(t *testing.T) {
	_, flags := filesEmu(t)
	cli := func(args ...string) (int, string, string) {
		t.Helper()
		return runCLI(t, append(args, flags...)...)
	}
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
