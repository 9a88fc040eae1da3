package jobs

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
)

// The supervisor and the launcher are Python 3.8 by their grammar (the
// oldest Python a runtime may have): parsed as 3.8 by this machine's
// Python, which refuses newer syntax (match, parenthesized context
// managers, except*, ...).
func TestSupervisorAndLauncherParseAsPython38(t *testing.T) {
	py := jupytertest.JupyterPython()
	if _, err := exec.LookPath(py); err != nil {
		if os.Getenv("COLABDASH_REQUIRE_JUPYTER") == "1" {
			t.Fatalf("no %s: %v", py, err)
		}
		t.Skipf("SKIP: no %s", py)
	}
	const check = "import ast, sys\nast.parse(sys.stdin.read(), feature_version=(3, 8))\n"
	for name, src := range map[string]string{"supervise.py": SupervisorSource, "launcher": LauncherCode("train-4kq9zt")} {
		cmd := exec.Command(py, "-c", check)
		cmd.Stdin = strings.NewReader(src)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s is not Python 3.8: %v\n%s", name, err, out)
		}
	}
	// The check refuses what 3.8 lacks.
	cmd := exec.Command(py, "-c", check)
	cmd.Stdin = strings.NewReader("match x:\n    case 1:\n        pass\n")
	if cmd.Run() == nil {
		t.Error("the 3.8 check accepted a match statement")
	}
}
