// Package plugintest gives the tests of plugins (ui/plugin) and of the
// dashboard that runs them a plugin command that records how it was run:
// its argv and its environment, in files a test reads back.
package plugintest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Recorder writes an executable /bin/sh script named "record" into dir
// and returns its path. Run with REC_DIR in its environment, it writes
// its arguments, each followed by a NUL, to $REC_DIR/argv and its whole
// environment (env -0) to $REC_DIR/env, then prints "recorded
// $COLABDASH_RUNTIME" and a newline. A failure to write it fails t.
func Recorder(t testing.TB, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "record")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > \"$REC_DIR/argv\"\nenv -0 > \"$REC_DIR/env\"\necho \"recorded $COLABDASH_RUNTIME\"\n"
	if err := os.WriteFile(p, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	return p
}

// Ran reports whether a Recorder run with REC_DIR=dir has recorded its
// arguments since the last Reset.
func Ran(t testing.TB, dir string) bool {
	t.Helper()
	_, err := os.Stat(filepath.Join(dir, "argv"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return err == nil
}

// Recorded is what a Recorder run with REC_DIR=dir recorded: its
// arguments and its environment (name to value). It fails t at once when
// the recorder has not run.
func Recorded(t testing.TB, dir string) (argv []string, env map[string]string) {
	t.Helper()
	a, err := os.ReadFile(filepath.Join(dir, "argv"))
	if err != nil {
		t.Fatalf("the recorder did not run: %v", err)
	}
	argv = strings.Split(strings.TrimSuffix(string(a), "\x00"), "\x00")
	e, err := os.ReadFile(filepath.Join(dir, "env"))
	if err != nil {
		t.Fatal(err)
	}
	env = map[string]string{}
	for _, kv := range strings.Split(string(e), "\x00") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return argv, env
}

// Reset removes what a Recorder recorded in dir, so that Ran says whether
// it runs again.
func Reset(t testing.TB, dir string) {
	t.Helper()
	for _, f := range []string{"argv", "env"} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}

// Created is the paths, of names in each of dirs, that exist: the files a
// hostile runtime name or argument would have made (touch NAME) had it
// run as shell code.
func Created(dirs []string, names ...string) []string {
	var made []string
	for _, d := range dirs {
		for _, n := range names {
			if _, err := os.Stat(filepath.Join(d, n)); err == nil {
				made = append(made, filepath.Join(d, n))
			}
		}
	}
	return made
}
