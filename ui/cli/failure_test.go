package cli

// A failure as the user sees it: its exit code, its one stderr line (and
// fix) and --json's error.message. Each test names the behaviour it guards.

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// Guards exit code 130 for an interrupted file verb: ls, cp (down) and
// rm whose request to the runtime hangs are interrupted (the context
// ctrl+c or SIGTERM ends) and exit 130, not 4 or 1.
func TestFileVerbsInterruptedExit130(t *testing.T) {
	reached := make(chan string, 16)
	e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedEmpty, OnProxyRequest: func(r *http.Request) {
		select {
		case reached <- r.Method + " " + r.URL.Path:
		default:
		}
	}})
	if _, err := e.srv.AddRuntime(api.Runtime{Name: "runtimes/rt-int", ConnectionInfo: &api.ConnectionInfo{},
		RuntimeSpec: api.RuntimeSpecKey{Variant: api.VariantCPU, Accelerator: api.AcceleratorNone, Shape: api.ShapeStandard}}); err != nil {
		t.Fatal(err)
	}
	local := writeFile(t, filepath.Join(t.TempDir(), "f.txt"), "data")
	if code, out, errs := e.run("cp", local, "rt-int:/content/"); code != 0 {
		t.Fatalf("cp up: exit %d %q %q", code, out, errs)
	}
	dst := t.TempDir()
	for _, tc := range []struct {
		args       []string
		method     string
		pathPrefix string
	}{
		{[]string{"ls", "rt-int:/content"}, http.MethodGet, "api/contents"},
		{[]string{"cp", "rt-int:/content/f.txt", dst}, http.MethodGet, "files/"},
		{[]string{"rm", "rt-int:/content/f.txt"}, "", "api/contents"},
	} {
		t.Run(tc.args[0], func(t *testing.T) {
			e.srv.ClearProxyFaults()
			defer e.srv.ClearProxyFaults()
			// Every matching request stalls before its first byte.
			e.srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStall, Method: tc.method, PathPrefix: tc.pathPrefix, Times: -1})
			for len(reached) > 0 {
				<-reached
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			type result struct {
				code      int
				out, errs string
			}
			done := make(chan result, 1)
			go func() {
				code, out, errs := e.runTerm(term{ctx: ctx}, tc.args...)
				done <- result{code, out, errs}
			}()
			// Interrupt once the stalled request has reached the runtime.
			deadline := time.After(60 * time.Second)
		wait:
			for {
				select {
				case p := <-reached:
					if strings.Contains(p, "/"+tc.pathPrefix) && (tc.method == "" || strings.HasPrefix(p, tc.method)) {
						break wait
					}
				case r := <-done:
					t.Fatalf("%v ended before its request stalled: exit %d %q %q", tc.args, r.code, r.out, r.errs)
				case <-deadline:
					t.Fatalf("%v: no request reached the runtime within 60 s", tc.args)
				}
			}
			cancel()
			select {
			case r := <-done:
				if r.code != kit.ExitInterrupted {
					t.Fatalf("%v interrupted: exit %d, want %d (stdout %q, stderr %q)", tc.args, r.code, kit.ExitInterrupted, r.out, r.errs)
				}
			case <-time.After(60 * time.Second):
				t.Fatalf("%v did not end within 60 s of the interrupt", tc.args)
			}
		})
	}
}

// Guards quota's exit code through the classifier: a command other than
// create (status) failing with RESOURCE_EXHAUSTED exits 5, not 4.
func TestQuotaExitCodeThroughClassifier(t *testing.T) {
	e := demoVerbEnv(t)
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: "list_runtimes", Times: -1,
		Text: colabfake.GoogleErrorText(api.ResourceExhausted, "Quota exceeded for quota metric 'Requests'", "", 0)})
	code, out, errs := e.run("status")
	if code != kit.ExitQuota {
		t.Fatalf("status with RESOURCE_EXHAUSTED: exit %d, want %d (stdout %q, stderr %q)", code, kit.ExitQuota, out, errs)
	}
	if !strings.Contains(errs, "Quota exceeded") {
		t.Errorf("stderr does not say why: %q", errs)
	}
}

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
