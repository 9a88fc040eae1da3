package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/ui/cli/kit"
)

// Field trial: `cp -r proj RUNTIME:/content/` (and RUNTIME:, and
// RUNTIME:/content) was refused with "copy into /content/", the very
// thing the user had typed. A directory is copied AS DST, so the refusal
// stays, but its line names the command that copies proj under its own
// name into /content, and that command, pasted, works.
func TestCpDirectoryToTopLevelNamesTheCommandThatWorks(t *testing.T) {
	_, flags := filesEmu(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "proj", "a.txt"), "a")
	t.Chdir(dir)
	for _, dst := range []string{"rt-files:/content/", "rt-files:", "rt-files:/content", "rt-files:/", "rt-files:/proj"} {
		code, out, errs := runCLI(t, append([]string{"cp", "-r", "proj", dst}, flags...)...)
		if code != kit.ExitUsage || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "colabdash cp -r proj rt-files:/content/proj") ||
			strings.Contains(errs, "copy into /content/") {
			t.Fatalf("cp -r proj %s: exit %d, out %q, err %q; want exit 2 naming colabdash cp -r proj rt-files:/content/proj", dst, code, out, errs)
		}
		// The command as printed (the global flags repeated) copies proj.
		_, line, _ := strings.Cut(strings.TrimSpace(errs), "run: ")
		words := strings.Fields(line)
		if len(words) < 5 || words[0] != "colabdash" {
			t.Fatalf("no command to run in %q", errs)
		}
		if code, out, errs := runCLI(t, words[1:]...); code != 0 || !strings.Contains(out, "rt-files:/content/proj/a.txt") {
			t.Fatalf("%s: exit %d, out %q, err %q", line, code, out, errs)
		}
	}
	// A file into the root is still told to go into /content/.
	code, _, errs := runCLI(t, append([]string{"cp", "proj/a.txt", "rt-files:/"}, flags...)...)
	if code != kit.ExitUsage || !strings.Contains(errs, "copy into /content/") {
		t.Errorf("cp FILE rt-files:/: exit %d, err %q", code, errs)
	}
}
