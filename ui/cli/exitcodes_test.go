package cli

// Exit codes. Each test names the behaviour it guards.

import (
	"context"
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
