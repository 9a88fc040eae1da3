//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// colabdash NAME runs colabdash-NAME from PATH with its arguments as
// given, the profile in effect and its endpoint in its environment, and
// exits with its exit code; --help lists it; a built-in command is never
// shadowed by a program of its name.
func TestExtensionOnPathRuns(t *testing.T) {
	home := isolate(t)
	bin := t.TempDir()
	rec := t.TempDir()
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > \"$REC_DIR/argv\"\n" +
		"printf '%s\\n%s\\n' \"$COLABDASH_PROFILE\" \"$COLABDASH_ENDPOINT\" > \"$REC_DIR/env\"\necho hello from the extension\nexit 7\n"
	for _, name := range []string{"colabdash-hello", "colabdash-status"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("REC_DIR", rec)
	writeFile(t, filepath.Join(home, ".config", "colabdash", "config.yaml"),
		"profile: work\nprofiles:\n  work:\n    credentials: adc\n    endpoint: https://127.0.0.1:9/mcp\n")

	code, out, errs := runCLI(t, "hello", "a b", "--json", "$(touch PWNED)")
	if code != 7 || out != "hello from the extension\n" || errs != "" {
		t.Fatalf("colabdash hello: exit %d, stdout %q, stderr %q; want the extension's exit 7 and output", code, out, errs)
	}
	argv, _ := os.ReadFile(filepath.Join(rec, "argv"))
	if got := strings.Split(strings.TrimSuffix(string(argv), "\x00"), "\x00"); strings.Join(got, "|") != "a b|--json|$(touch PWNED)" {
		t.Errorf("the extension's args: %q", got)
	}
	env, _ := os.ReadFile(filepath.Join(rec, "env"))
	if string(env) != "work\nhttps://127.0.0.1:9/mcp\n" {
		t.Errorf("the extension's COLABDASH_PROFILE and COLABDASH_ENDPOINT: %q", env)
	}
	t.Setenv("COLABDASH_PROFILE", "default")
	runCLI(t, "hello")
	if env, _ := os.ReadFile(filepath.Join(rec, "env")); !strings.HasPrefix(string(env), "default\nhttps://") {
		t.Errorf("COLABDASH_PROFILE=default: the extension saw %q", env)
	}

	_, help, _ := runCLI(t, "--help")
	if !strings.Contains(help, "Extensions (colabdash-NAME programs on PATH") || !strings.Contains(help, "  hello ") {
		t.Errorf("--help does not list the extension:\n%s", help)
	}
	if strings.Contains(help, "  status  ") && strings.Contains(help, filepath.Join(bin, "colabdash-status")) {
		t.Errorf("--help lists a program shadowing the built-in status:\n%s", help)
	}
	os.Remove(filepath.Join(rec, "argv"))
	if code, _, _ := runCLI(t, "status", "--demo"); code != 0 {
		t.Errorf("status with a colabdash-status on PATH: exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(rec, "argv")); err == nil {
		t.Error("colabdash status ran the colabdash-status program")
	}
	if code, _, errs := runCLI(t, "nosuch"); code != 2 || !strings.Contains(errs, `unknown command "nosuch"`) {
		t.Errorf("no such command or extension: exit %d, stderr %q", code, errs)
	}
}
