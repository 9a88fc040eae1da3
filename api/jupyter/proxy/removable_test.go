package proxy

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
)

// Removable is the one rule for deletes (the files pane and `colabdash
// rm`): /content itself, the root and every top-level directory are
// refused however the path is written; anything deeper is allowed.
func TestRemovableRefusesContentAndTopLevel(t *testing.T) {
	for _, p := range []string{"", "/", "content", "/content", "content/", "//content", "usr", "/usr/",
		"content/sub/..", "content/..", "content/./", "etc"} {
		err := Removable("rt-abc", p)
		if !errors.Is(err, ErrProtected) {
			t.Errorf("Removable(%q) = %v, want ErrProtected", p, err)
			continue
		}
		if strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "refusing to remove") {
			t.Errorf("Removable(%q): %q is not one line saying it refuses", p, err)
		}
	}
	for _, p := range []string{"content/x", "/content/sample_data", "usr/lib", "content/a/../b"} {
		if err := Removable("rt-abc", p); err != nil {
			t.Errorf("Removable(%q) = %v, want nil", p, err)
		}
	}
}

// Creatable keeps uploads out of the root: what colabdash creates it can
// remove (seen in use: cp ./data.csv rt:/ made a /data.csv rm refused).
func TestCreatableRefusesTopLevel(t *testing.T) {
	for _, p := range []string{"", "/", "data.csv", "/proj/", "content/../data.csv", "content"} {
		if err := Creatable("rt-abc", p); !errors.Is(err, ErrTopLevel) || strings.Contains(err.Error(), "..") {
			t.Errorf("Creatable(%q) = %v, want ErrTopLevel naming the cleaned path", p, err)
		}
		if Removable("rt-abc", p) == nil {
			t.Errorf("Removable(%q) allows what Creatable refuses", p)
		}
	}
	for _, p := range []string{"content/x", "/tmp/x", "content/a/../b"} {
		if err := Creatable("rt-abc", p); err != nil {
			t.Errorf("Creatable(%q) = %v, want nil", p, err)
		}
	}
}

// RemoveAll itself refuses /content: nothing is deleted, whoever calls it.
func TestRemoveAllRefusesContent(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client()
	ctx := context.Background()
	if err := c.MkdirAll(ctx, "content/keep"); err != nil {
		t.Fatal(err)
	}
	called := 0
	for _, p := range []string{"content", "/content", "content/keep/.."} {
		if err := c.RemoveAll(ctx, p, func(string) { called++ }); !errors.Is(err, ErrProtected) {
			t.Fatalf("RemoveAll(%q) = %v, want ErrProtected", p, err)
		}
	}
	if _, err := c.Stat(ctx, "content/keep"); err != nil || called != 0 {
		t.Fatalf("after the refused RemoveAll: %v, %d removed", err, called)
	}
}
