package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
)

// Every id printed in a hint passes the paste rule, not only those in a
// command line: a session id create_session answers with that would run
// a command in a shell is not offered as "reuse it with --session …";
// the line says the id is unusual instead.
func TestExecDoesNotOfferAnUnusualSessionIDForReuse(t *testing.T) {
	e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedDemo})
	bad := "nb;touch${IFS}pwned"
	out, _ := json.Marshal(map[string]any{"name": "runtimes/rt-t4demo7k2p/sessions/" + bad})
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultOutput, Tool: api.ToolCreateSession, Output: out})
	_, _, errs := e.run("exec", "rt-t4", "--keep", "-c", "print(1)")
	if !strings.Contains(errs, "opened session") {
		t.Fatalf("no session line: %q", errs)
	}
	if strings.Contains(errs, "--session "+bad) || strings.Contains(errs, "--session nb") || !strings.Contains(errs, "the session id "+bad+" is unusual") {
		t.Errorf("stderr %q", errs)
	}
}
