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
			e := demoVerbEnv(t)
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

// The MCP endpoint answers 403
// SERVICE_DISABLED for project demo-proj-123 while --quota-project names
// other-proj; the one line names the project Google billed and prints
// its activation URL (exit 3).
func TestServiceDisabledNamesBilledProject(t *testing.T) {
	e := newVerbEnv(t, colabfake.Options{})
	const act = "https://console.developers.google.com/apis/api/colaboratory.googleapis.com/overview?project=demo-proj-123"
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Status: 403, Times: -1,
		Body: `{"error":{"code":403,"message":"Colaboratory API has not been used in project demo-proj-123 before or it is disabled.","status":"PERMISSION_DENIED",` +
			`"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"SERVICE_DISABLED","domain":"googleapis.com",` +
			`"metadata":{"consumer":"projects/demo-proj-123","service":"colaboratory.googleapis.com","activationUrl":"` + act + `\u001b]52;c;eA==\u0007"}}]}}`})
	code, _, errs := e.run("status", "--quota-project", "other-proj")
	if code != kit.ExitCredential {
		t.Fatalf("exit %d %q, want 3", code, errs)
	}
	for _, w := range []string{"disabled in project demo-proj-123", "instead of quota project other-proj"} {
		if !strings.Contains(errs, w) {
			t.Errorf("stderr %q\nwant %q", errs, w)
		}
	}
	if strings.Contains(errs, "\x1b") || strings.Contains(errs, "\a") {
		t.Errorf("stderr carries control characters from the reply: %q", errs)
	}
	// A clean activationUrl is printed as the fix.
	e.srv.ClearFaults()
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Status: 403, Times: -1,
		Body: `{"error":{"code":403,"status":"PERMISSION_DENIED","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"SERVICE_DISABLED",` +
			`"metadata":{"consumer":"projects/demo-proj-123","activationUrl":"` + act + `"}}]}}`})
	if code, _, errs = e.run("status", "--quota-project", "other-proj"); code != kit.ExitCredential || !strings.Contains(errs, "enable it at "+act) {
		t.Errorf("exit %d %q, want the activation URL as the fix", code, errs)
	}
}
