package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
)

// createAnswersWithAnother is an emulator with one runtime, precious,
// whose next create_runtime answers with precious whatever was asked for.
func createAnswersWithAnother(t *testing.T) (*verbEnv, api.Runtime) {
	t.Helper()
	e := emptyVerbEnv(t)
	victim, err := e.srv.AddRuntime(api.Runtime{Name: "precious", RuntimeSpec: api.RuntimeSpecKey{Variant: api.VariantCPU},
		ConnectionInfo: &api.ConnectionInfo{}})
	if err != nil {
		t.Fatal(err)
	}
	answerCreateWith(e, victim.Name)
	return e, victim
}

// answerCreateWith makes the emulator's next create_runtime answer with
// runtime name (an existing one) whatever was asked for.
func answerCreateWith(e *verbEnv, name string) {
	rt, _ := json.Marshal(map[string]any{"name": name,
		"runtimeSpec": map[string]string{"variant": "VARIANT_CPU", "accelerator": "NONE", "shape": "SHAPE_STANDARD"}})
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultOutput, Tool: api.ToolCreateRuntime,
		Output: json.RawMessage(`{"name":"operations/1","done":true,"response":` + string(rt) + `}`)})
}

// run asks for runtime run-XXXXXXXX; a create_runtime that answers with
// another runtime gets that runtime neither used nor deleted: one line,
// exit 4, and the other runtime is still there with no session opened.
func TestRunNeverActsOnARuntimeItDidNotCreate(t *testing.T) {
	e, victim := createAnswersWithAnother(t)
	script := writeFile(t, filepath.Join(t.TempDir(), "x.py"), "print('ran')\n")
	code, out, errs := e.runRun("--spec", "CPU", script)
	if code != 4 || strings.Contains(out, "ran") || !strings.Contains(errs, "create_runtime answered with runtimes/precious, not the runtime run-") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if strings.Contains(errs, "deleted runtime precious") || len(e.srv.Sessions(victim.Name)) != 0 {
		t.Errorf("run acted on %s: stderr %q, sessions %v", victim.Name, errs, e.srv.Sessions(victim.Name))
	}
	rts := e.srv.Runtimes()
	if len(rts) != 1 || rts[0].Name != victim.Name {
		t.Errorf("runtimes after the run: %v (want only %s)", rts, victim.Name)
	}
	if recs := runRecords(t); len(recs) != 0 {
		t.Errorf("run records left: %v", recs)
	}
}

// create --id: an answer naming another runtime is not reported as
// created, nor waited for (exit 4, one line).
func TestCreateWithIDRefusesAnotherRuntime(t *testing.T) {
	e, _ := createAnswersWithAnother(t)
	code, out, errs := e.run("create", "--spec", "CPU", "--id", "mine", "--wait", "--json")
	if code != 4 || strings.Contains(out, `"ok": true`) || !strings.Contains(errs, "not the runtime mine that was asked for") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
