package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// Newcomer trial: a run whose create Colab refused (too many active
// runtimes) said "deleted runtime run-…", as if one had been made and
// billed, and its hint "colabdash delete RUNTIME" lacked the flags that
// reach this server. Now nothing is said deleted, no run record is left,
// and every command it prints carries --endpoint.
func TestRunRefusedCreateDeletesNothing(t *testing.T) {
	e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedDemo, RuntimeLimit: 3})
	script := writeFile(t, filepath.Join(t.TempDir(), "job.py"), "print('x')\n")
	code, _, errs := e.run(append([]string{"run", "--spec", "CPU", script}, e.flags...)...)
	if code != kit.ExitQuota {
		t.Fatalf("exit %d, want %d (quota); stderr %q", code, kit.ExitQuota, errs)
	}
	if strings.Contains(errs, "deleted runtime") || strings.Contains(errs, "deleting runtime") {
		t.Errorf("a refused create is reported deleted: %q", errs)
	}
	if !strings.Contains(errs, "colabdash delete RUNTIME --endpoint ") {
		t.Errorf("the delete hint does not reach this server: %q", errs)
	}
	runs, _ := os.ReadDir(filepath.Join(e.home, "state", "colabdash", "runs"))
	if len(runs) != 0 {
		t.Errorf("run records left after a refused create: %v", runs)
	}
}
