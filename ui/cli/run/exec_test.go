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
	for value, code := range map[string]int{"": 0, "None": 0, "3": 3, "256": 0, "-1": 255, "oops": 1} {
		if c, _ := systemExitCode(value); c != code {
			t.Errorf("SystemExit(%q): exit %d, want %d", value, c, code)
		}
	}
}
