package ops

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
)

func TestStateDir(t *testing.T) {
	abs := t.TempDir()
	t.Setenv("XDG_STATE_HOME", abs)
	if got := StateDir(); got != filepath.Join(abs, "colabdash") {
		t.Errorf("with XDG_STATE_HOME: %q", got)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", "relative/dir")
	if got := StateDir(); got != filepath.Join(home, ".local", "state", "colabdash") {
		t.Errorf("with a relative XDG_STATE_HOME: %q, want below HOME", got)
	}
	t.Setenv("XDG_STATE_HOME", "")
	if got := StateDir(); got != filepath.Join(home, ".local", "state", "colabdash") {
		t.Errorf("without XDG_STATE_HOME: %q", got)
	}
	if runtime.GOOS != "windows" && runtime.GOOS != "plan9" {
		t.Setenv("HOME", "")
		if got := StateDir(); got != "" {
			t.Errorf("with neither: %q, want \"\"", got)
		}
	}
}

func TestLastSpecRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "colabdash")
	ls := &LastSpec{Spec: api.RuntimeSpecKey{Variant: "GPU", Accelerator: "T4", Shape: "STANDARD"}, Version: "2025.07"}
	if err := SaveLastSpec(dir, ls); err != nil {
		t.Fatalf("SaveLastSpec: %v", err)
	}
	got, err := LoadLastSpec(dir)
	if err != nil || *got != *ls {
		t.Fatalf("LoadLastSpec = %+v, %v; want %+v", got, err, ls)
	}
	b, _ := os.ReadFile(filepath.Join(dir, LastSpecFile))
	if !strings.HasSuffix(string(b), "}\n") || !strings.Contains(string(b), `"runtimeSpec"`) {
		t.Errorf("the file reads %q, want indented JSON ending in a newline", b)
	}
	if runtime.GOOS != "windows" {
		if st, _ := os.Stat(dir); st.Mode().Perm() != 0o700 {
			t.Errorf("state directory mode %v, want 0700", st.Mode().Perm())
		}
		if st, _ := os.Stat(filepath.Join(dir, LastSpecFile)); st.Mode().Perm() != 0o600 {
			t.Errorf("state file mode %v, want 0600", st.Mode().Perm())
		}
	}
}

func TestLastSpecRefusals(t *testing.T) {
	if err := SaveLastSpec("", &LastSpec{}); err != nil {
		t.Errorf("SaveLastSpec with no state directory: %v, want nothing stored and no error", err)
	}
	if _, err := LoadLastSpec(""); err == nil {
		t.Error("LoadLastSpec with no state directory succeeded")
	}
	dir := t.TempDir()
	if _, err := LoadLastSpec(dir); err == nil {
		t.Error("LoadLastSpec of a missing file succeeded")
	}
	for body, why := range map[string]string{
		"not json":                      "invalid JSON",
		`{"runtimeSpec":{"shape":"X"}}`: "no variant",
	} {
		if err := WriteStateFile(dir, LastSpecFile, []byte(body)); err != nil {
			t.Fatal(err)
		}
		if ls, err := LoadLastSpec(dir); err == nil {
			t.Errorf("LoadLastSpec of %s = %+v, want an error", why, ls)
		}
	}
	if err := WriteStateFile(dir, LastSpecFile, []byte(strings.Repeat(" ", 1<<20))); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadLastSpec(dir); err == nil {
		t.Error("LoadLastSpec of a 1 MiB file succeeded: the read is not bounded")
	}
}

func TestWriteStateFileFailsWhereNoDirectoryCanBe(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteStateFile(filepath.Join(blocker, "colabdash"), "x", []byte("y")); err == nil {
		t.Error("WriteStateFile below a regular file succeeded")
	}
}
