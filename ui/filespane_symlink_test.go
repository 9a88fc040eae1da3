package ui

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
)

// The files pane's d asks before replacing data.csv; a link put in its
// place before y (issue 18) is not written through: the download goes
// into the directory the user meant and refuses the link there, instead
// of taking the joined path as a file name the user typed.
func TestFilesPaneReplaceDoesNotFollowALinkThatAppeared(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	e, m := emuModel(t, colabfake.Options{}, nil)
	putRemote(t, e, "rt-t4demo7k2p", "content/data.csv", "remote")
	if err := os.WriteFile("data.csv", []byte("local work"), 0o644); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "f", "down", "d")
	mustContain(t, flat(m.View()), "Replace data.csv?")
	if err := os.Remove("data.csv"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, "data.csv"); err != nil {
		t.Fatalf("cannot make the symbolic link this test needs: %v", err)
	}
	m = e.press(t, m, "y")
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Fatalf("y wrote through the link: its target holds %q\n%s", b, m.View())
	}
	if st, err := os.Lstat("data.csv"); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	mustContain(t, flat(m.View()), "data.csv is a symbolic link")
}
