//go:build linux || freebsd || netbsd || openbsd || solaris || dragonfly

package clipboard

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeCopier writes a program name into dir that saves its arguments and
// its stdin into dir/name.out.
func fakeCopier(t *testing.T, dir, name string) string {
	t.Helper()
	out := filepath.Join(dir, name+".out")
	cat, err := exec.LookPath("cat") // PATH holds dir alone in the tests
	if err != nil {
		t.Skip("no cat: ", err)
	}
	script := "#!/bin/sh\necho \"$@\" > '" + out + "'\n'" + cat + "' >> '" + out + "'\n"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	return out
}

// The text reaches the first clipboard program on PATH, on its stdin:
// xclip before xsel, and wl-copy first under Wayland.
func TestNativeCopyUsesTheFirstProgramFound(t *testing.T) {
	dir := t.TempDir()
	xclip, xsel, wl := fakeCopier(t, dir, "xclip"), fakeCopier(t, dir, "xsel"), fakeCopier(t, dir, "wl-copy")
	t.Setenv("PATH", dir)
	t.Setenv("WAYLAND_DISPLAY", "")
	if err := nativeCopy("token $(x) 'quoted'\n"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(xclip); string(b) != "-in -selection clipboard\ntoken $(x) 'quoted'\n" {
		t.Errorf("xclip got %q", b)
	}
	if _, err := os.Stat(xsel); err == nil {
		t.Error("xsel ran as well")
	}
	t.Setenv("WAYLAND_DISPLAY", "wayland-0")
	if err := nativeCopy("on wayland"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(wl); string(b) != "\non wayland" {
		t.Errorf("wl-copy got %q", b)
	}
}

// Without any clipboard program the error says what to install; a
// program that fails is named.
func TestNativeCopyErrors(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	t.Setenv("WAYLAND_DISPLAY", "")
	if err := nativeCopy("x"); err == nil || !strings.Contains(err.Error(), "xclip, xsel") {
		t.Errorf("no program: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "xsel"), []byte("#!/bin/sh\nexit 3\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := nativeCopy("x"); err == nil || !strings.HasPrefix(err.Error(), "xsel: ") {
		t.Errorf("a failing xsel: %v", err)
	}
}
