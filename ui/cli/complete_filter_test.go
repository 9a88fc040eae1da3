package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/termtext/termtexttest"
)

// Shell completion against a server whose names carry escape sequences,
// BEL, C1 controls, bidirectional overrides and NUL: what the shell
// receives (cobra's __complete answer, which the bash, zsh, fish and
// PowerShell scripts all read) holds none of them, for every kind of
// candidate, with and without descriptions.
func TestCompletionCandidatesAreInert(t *testing.T) {
	e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedHostile})
	if _, err := e.srv.AddNotebookSession("runtimes/rt-clip"+colabfake.HostileOSC52+"board", "nb-\x00nul"); err != nil {
		t.Fatal(err)
	}
	complete := func(args ...string) string {
		t.Helper()
		// The test's flags go right after the verb: the shell puts the
		// word being completed (and a flag waiting for its value) last.
		var out, errb bytes.Buffer
		code := runStreams(append(append(append([]string{}, args[:2]...), e.flags...), args[2:]...),
			&kit.Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
		if code != 0 {
			t.Fatalf("%q: exit %d %q", args, code, errb.String())
		}
		return out.String()
	}
	for _, args := range [][]string{
		{"__complete", "exec", ""},
		{"__complete", "delete", "rt-"},
		{"__completeNoDesc", "url", ""},
		{"__complete", "create", "--spec", ""},
		{"__complete", "ls", ""},
		{"__complete", "cp", "rt-"},
		{"__complete", "forward", ""},
		{"__complete", "session", "close", ""},
	} {
		out := complete(args...)
		termtexttest.Inert(t, strings.Join(args, " "), out)
		if !strings.HasSuffix(out, "\n") || !strings.Contains(out, "\n:") && !strings.HasPrefix(out, ":") {
			t.Errorf("%q: no directive line: %q", args, out)
		}
		if args[1] != "create" && !strings.Contains(out, "rt-clip␛]52;c;aGFja2Vk␇board") {
			t.Errorf("%q: the hostile runtime is not offered, made visible: %q", args, out)
		}
	}
	if out := complete("__complete", "create", "--spec", ""); !strings.Contains(out, "GPU␛]0;pwned␇/H100") {
		t.Errorf("the hostile spec is not offered, made visible: %q", out)
	}
}
