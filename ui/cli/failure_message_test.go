package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// A failure is one line on stderr, plus at most one line of fix, and
// --json's error.message is that same line: a quota, too many runtimes, a
// runtime that is not there, bad input.
func TestFailureMessageIsTheStderrLine(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault *colabfake.Fault
		args  []string
		code  int
	}{
		{"quota", &colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: api.ToolCreateRuntime, Reason: api.ReasonQuotaExceededUsageTime}, []string{"create", "--spec", "GPU/T4"}, kit.ExitQuota},
		{"too many runtimes", &colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: api.ToolCreateRuntime, Reason: api.ReasonTooManyActiveRuntimes}, []string{"create", "--spec", "CPU"}, kit.ExitQuota},
		{"not found", nil, []string{"exec", "rt-nope", "-c", "1"}, kit.ExitNotFound},
		{"usage", nil, []string{"exec", "rt-t4", "--execution-id", "nope", "-c", "1"}, kit.ExitUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			skipWaits(t)
			e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedDemo})
			if tc.fault != nil {
				e.srv.Inject(*tc.fault)
			}
			code, _, errs := e.run(tc.args...)
			// create's requestId line, said before anything is sent, may come first.
			lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
			if strings.Contains(lines[0], ": requestId ") {
				lines = lines[1:]
			}
			if code != tc.code || len(lines) < 1 || len(lines) > 2 {
				t.Fatalf("text: exit %d, stderr %q; want %d and one line (and a fix)", code, errs, tc.code)
			}
			e.srv.ClearFaults()
			if tc.fault != nil {
				e.srv.Inject(*tc.fault)
			}
			code, out, _ := e.run(append(tc.args, "--json")...)
			var doc kit.Envelope
			if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Error == nil {
				t.Fatalf("--json: exit %d, %q", code, out)
			}
			if want := strings.TrimPrefix(lines[0], "colabdash: "); doc.Error.Message != want {
				t.Errorf("error.message %q, stderr line %q", doc.Error.Message, want)
			}
		})
	}
}
