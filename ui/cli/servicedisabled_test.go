package cli

import (
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

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
