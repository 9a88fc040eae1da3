package kit

import (
	"slices"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/cli/kit/pastetest"
)

// Every word, however hostile to a shell, comes back from sh as itself.
func TestCommandLineQuotesEveryWord(t *testing.T) {
	g := &Globals{Logs: Logs{Red: &api.Redactor{}}}
	words := []string{"exec", "rt-abc/colabdash-1", "-c", "print('it''s'); x = \"$HOME\" `id` $(id) ${x} \\ ; | & > < * ? [a] ~ # ! %1 =x {a,b} é 日本",
		"", " ", "'", "''", "-", "--", "a b", "=cmd", "~root", "x=1", "-f", "/tmp/with space/tr'ain.py", "100%", "a\\'b"}
	line, ok := g.CommandLine(words...)
	if !ok {
		t.Fatal("commandLine refused printable words")
	}
	if got := pastetest.ShellWords(t, line); !slices.Equal(got, words) {
		t.Fatalf("sh made %q of %q, want %q", got, line, words)
	}
	// A word that would not print as itself makes no command at all.
	for _, w := range []string{"a\nb", "a\tb", "a\rb", "x\x1b[2Jy", "\x07", "\x00", "rt\u009b2J", "a\u202eb", "\xff"} {
		if line, ok := g.CommandLine("exec", w); ok || line != "" {
			t.Errorf("commandLine accepted %q: %q", w, line)
		}
	}
	// Nor does one the redactor would hide part of, also across words.
	if _, ok := g.CommandLine("exec", "-f", "bearer", "--timeout", "1m"); ok {
		t.Error("commandLine accepted a line whose words the redactor joins into a bearer token")
	}
	g.Logs.Red.Add("ya29.secret-value-0123456789")
	if _, ok := g.CommandLine("exec", "-c", "print('ya29.secret-value-0123456789')"); ok {
		t.Error("commandLine accepted a word holding a registered secret")
	}
}

// Ids from a server go into a command only when they are RFC 1034 labels
// (or the lower-case UUIDs Colab generates for sessions).
func TestPasteID(t *testing.T) {
	for _, id := range []string{"rt-abc", "colabdash-1a2b3c4d", "a", "notebook-9f3e", strings.Repeat("a", 63), "3f1c2b9e-8d4a-4c1e-9b7a-2e5f6a7b8c9d"} {
		if !PasteID(id) {
			t.Errorf("pasteID(%q) = false", id)
		}
	}
	for _, id := range []string{"", "RT-ABC", "rt-", "-rf", "1abc", "rt;rm -rf ~", "rt$(id)", "rt`id`", "rt abc", "rt'x", "rt\x1b]52;c;aGFja2Vk\x07",
		"rt\u202etxt", strings.Repeat("a", 64), "3F1C2B9E-8D4A-4C1E-9B7A-2E5F6A7B8C9D", "{3f1c2b9e-8d4a-4c1e-9b7a-2e5f6a7b8c9d}", "rt/x", "rt.x"} {
		if PasteID(id) {
			t.Errorf("pasteID(%q) = true", id)
		}
	}
}
