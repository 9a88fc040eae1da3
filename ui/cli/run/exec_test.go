package run

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/cli/kit/kittest"
)

// The set-up run before a script gives it /content and sys.argv as
// python would: FILE then ARGS, each a Python literal whatever it holds.
func TestRunScriptSetup(t *testing.T) {
	got := scriptSetup("train.py", []string{"--lr", "0.1", "it's \"quoted\"\n", "é"})
	want := `__import__('os').chdir('/content'); __import__('sys').argv = ["train.py", "--lr", "0.1", "it's \"quoted\"\n", "\u00e9"]`
	if got != want {
		t.Errorf("setup:\n got %s\nwant %s", got, want)
	}
}

// The set-up before the script (its directory and sys.argv) raising
// fails the run (exit 1, saying so) and the script is not run.
func TestRunSetupFails(t *testing.T) {
	e := kittest.Empty(t)
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultOutput, Tool: api.ToolExecuteCode,
		Output: json.RawMessage(`{"executionError": {"name": "FileNotFoundError", "value": "/content", "traceback": ["FileNotFoundError: /content"]}}`)})
	r := e.Run(Command, "--spec", "CPU", script(t, "print('hello')\n"))
	if r.Code != kit.ExitFailure || r.Out != "" || !strings.Contains(r.Err, "setting up /content and sys.argv failed: FileNotFoundError: /content") ||
		e.Srv.CallCount(api.ToolExecuteCode) != 1 {
		t.Errorf("exit %d, stdout %q, stderr %q, %d execute_code call(s)", r.Code, r.Out, r.Err, e.Srv.CallCount(api.ToolExecuteCode))
	}
	left(t, e)
}
