package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// config --check FILE names the line of a bad value (exit 2), is quiet
// and exit 0 for a good file, and checks FILE alone: a broken config in
// effect does not stop it.
func TestConfigCheckNamesTheBadLine(t *testing.T) {
	home := isolate(t)
	dir := t.TempDir()
	bad := writeFile(t, filepath.Join(dir, "bad.yaml"), "theme: dark\nprofiles:\n  work:\n    credentials: adc\n    endpoint: ftp://example.com\n")
	code, out, errs := runCLI(t, "config", "--check", bad)
	if code != 2 || out != "" || !strings.Contains(errs, bad+":5: profiles.work.endpoint") || strings.Count(errs, "\n") != 1 {
		t.Errorf("a bad endpoint on line 5: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	clash := writeFile(t, filepath.Join(dir, "clash.yaml"), "# keys\nkeys:\n  refresh: q\n")
	if code, _, errs := runCLI(t, "config", "--check", clash); code != 2 || !strings.Contains(errs, clash+":3: conflict") {
		t.Errorf("a key bound twice on line 3: exit %d, stderr %q", code, errs)
	}
	shadow := writeFile(t, filepath.Join(dir, "shadow.yaml"), "plugins:\n  mine:\n    scope: runtimes\n    key: r\n    command: /bin/true\n")
	if code, _, errs := runCLI(t, "config", "--check", shadow); code != 2 || !strings.Contains(errs, shadow+`:4: plugins.mine.key: conflict: key "r" is refresh's`) {
		t.Errorf("a plugin key shadowing refresh on line 4: exit %d, stderr %q", code, errs)
	}
	good := writeFile(t, filepath.Join(dir, "good.yaml"), "theme: light\nrefreshInterval: 1m\n")
	// The config in effect is broken; --check reads only its FILE.
	if err := os.MkdirAll(filepath.Join(home, ".config", "colabdash"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, ".config", "colabdash", "config.yaml"), "theme: blue\n")
	if code, out, errs := runCLI(t, "config", "--check", good); code != 0 || out != "" || errs != "" {
		t.Errorf("a good file: exit %d, stdout %q, stderr %q; want a quiet success", code, out, errs)
	}
	if code, _, errs := runCLI(t, "config", "--check", filepath.Join(dir, "none.yaml")); code != 2 || !strings.Contains(errs, "does not exist") {
		t.Errorf("a missing file: exit %d, stderr %q", code, errs)
	}
}

// The plugin examples in docs/configuration.md are configs colabdash
// accepts (config --check), so the documented example cannot rot.
func TestConfigurationDocPluginExamplesCheck(t *testing.T) {
	isolate(t)
	doc, err := os.ReadFile(filepath.Join(repoRoot, "docs", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(doc), "```yaml\n")[1:]
	n := 0
	for _, b := range blocks {
		body, _, _ := strings.Cut(b, "```")
		if !strings.HasPrefix(body, "plugins:") {
			continue
		}
		n++
		p := writeFile(t, filepath.Join(t.TempDir(), "c.yaml"), body)
		if code, _, errs := runCLI(t, "config", "--check", p); code != 0 {
			t.Errorf("a documented plugin config is refused: %s\n%s", errs, body)
		}
	}
	if n < 2 {
		t.Errorf("found %d plugin examples in docs/configuration.md, want the reference and the Jupyter one", n)
	}
}
