package marker

import (
	"os"
	"path/filepath"
	"testing"
)

// Remove takes away a key's marker and no other; a link at its name is
// left where it is, and so is its target.
func TestRemoveOnlyAPlainMarker(t *testing.T) {
	d := Dir{State: t.TempDir(), Name: "opened"}
	for _, k := range []string{"a", "b"} {
		if _, err := d.Create(k); err != nil {
			t.Fatal(err)
		}
	}
	if !d.Remove("a") || d.Exists("a") || !d.Exists("b") {
		t.Fatalf("Remove a: a exists %v, b exists %v", d.Exists("a"), d.Exists("b"))
	}
	if d.Remove("a") {
		t.Error("a second Remove reports a removal")
	}
	target := filepath.Join(t.TempDir(), "keep")
	if err := os.WriteFile(target, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, d.File("c")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if d.Remove("c") {
		t.Error("a link at the marker's name was removed")
	}
	if _, err := os.Lstat(d.File("c")); err != nil {
		t.Errorf("the link is gone: %v", err)
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("the link's target is gone: %v", err)
	}
}
