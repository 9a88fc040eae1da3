// Package pastetest checks the command lines colabdash prints for a user
// to paste, in tests: it asks a real POSIX shell which words a line makes.
package pastetest

import (
	"os/exec"
	"strings"
	"testing"
)

// ShellWords is what a POSIX shell makes of line, a command line colabdash
// printed: sh runs it with colabdash defined as a function that prints its
// arguments, so the result is exactly the argv a paste would run (without
// "colabdash"). Nothing but printf runs, whatever the line holds. A line
// that does not start with "colabdash " or that sh refuses fails t.
func ShellWords(t testing.TB, line string) []string {
	t.Helper()
	if !strings.HasPrefix(line, "colabdash ") {
		t.Fatalf("not a colabdash command line: %q", line)
	}
	out, err := exec.Command("sh", "-c", `colabdash() { printf '%s\0' "$@"; }; `+line).Output()
	if err != nil {
		t.Fatalf("sh -c %q: %v", line, err)
	}
	words := strings.Split(string(out), "\x00")
	return words[:len(words)-1]
}
