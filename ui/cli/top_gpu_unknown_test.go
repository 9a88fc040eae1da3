package cli

import (
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
)

// A GPU whose figures the server left out reads unknown in top's table,
// never 0 % or "GPU never used", and top --json leaves the figures out
// as the server did.
func TestTopGPUFiguresUnknown(t *testing.T) {
	e := topEnv(t, colabfake.Options{GPUFiguresOmitted: true})
	code, out, errs := e.run("top", "rt-t4")
	if code != 0 {
		t.Fatalf("top: exit %d, stderr %q\n%s", code, errs, out)
	}
	if !strings.Contains(out, "Tesla T4 unknown") || strings.Contains(out, "0%") || strings.Contains(out, "never used") {
		t.Errorf("top with the GPU's figures left out:\n%s", out)
	}
	code, out, _ = e.run("top", "rt-t4", "--json")
	if code != 0 || !strings.Contains(out, `"name":"Tesla T4"`) && !strings.Contains(out, `"name": "Tesla T4"`) {
		t.Fatalf("top --json: exit %d\n%s", code, out)
	}
	for _, absent := range []string{`"gpuUtilization"`, `"memoryUsedBytes"`, `"everUsed"`} {
		if strings.Contains(out, absent) {
			t.Errorf("top --json invents %s:\n%s", absent, out)
		}
	}
}
