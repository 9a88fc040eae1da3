package run

import "testing"

// The set-up run before a script gives it /content and sys.argv as
// python would: FILE then ARGS, each a Python literal whatever it holds.
func TestRunScriptSetup(t *testing.T) {
	got := scriptSetup("train.py", []string{"--lr", "0.1", "it's \"quoted\"\n", "é"})
	want := `__import__('os').chdir('/content'); __import__('sys').argv = ["train.py", "--lr", "0.1", "it's \"quoted\"\n", "\u00e9"]`
	if got != want {
		t.Errorf("setup:\n got %s\nwant %s", got, want)
	}
}
