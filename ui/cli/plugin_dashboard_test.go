//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A foreground plugin suspends the dashboard on a real terminal, runs with
// the selected runtime in its environment, and the dashboard comes back
// afterwards and quits normally.
func TestForegroundPluginSuspendsTheDashboard(t *testing.T) {
	bin := needBinary(t)
	home := isolate(t)
	rec := t.TempDir()
	script := writeFile(t, filepath.Join(rec, "plugin.sh"), "#!/bin/sh\nprintf '%s' \"$COLABDASH_RUNTIME\" > \"$REC_DIR/runtime\"\necho PLUGIN-RAN\n")
	if err := os.Chmod(script, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, ".config", "colabdash", "config.yaml"),
		"plugins:\n  rec:\n    key: J\n    description: record\n    scope: runtimes\n    command: "+script+"\n")
	s := startSilent(t, []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "REC_DIR=" + rec, "NO_COLOR=1"}, bin, "--demo")
	s.waitOutput(t, "RUNTIMES")
	mustContainOutput := func(want string) { t.Helper(); s.waitOutput(t, want) }
	mustContainOutput("record") // the footer lists the plugin
	mustContainOutput("›  rt-") // a runtime is selected: the key acts on what is on screen
	if _, err := s.ptm.WriteString("J"); err != nil {
		t.Fatal(err)
	}
	mustContainOutput("PLUGIN-RAN") // printed once the runtime is recorded
	got, _ := os.ReadFile(filepath.Join(rec, "runtime"))
	if !strings.HasPrefix(string(got), "rt-") {
		t.Fatalf("the plugin's COLABDASH_RUNTIME: %q\n%q", got, s.output())
	}
	mustContainOutput("plugin rec: done")
	if _, err := s.ptm.WriteString("q"); err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Wait(); err != nil {
		t.Fatalf("quit after the plugin: %v", err)
	}
}
