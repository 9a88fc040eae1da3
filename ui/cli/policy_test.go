package cli

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/ops"
)

// skipWaits makes the operations layer's waits between re-sends end at
// once for the test (the decisions stay state's): a reattach or a create
// re-sent "in 10 s" goes now.
func skipWaits(t *testing.T) {
	t.Helper()
	old := ops.Sleep
	ops.Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	t.Cleanup(func() { ops.Sleep = old })
}

// shows is one front end's presentation of a decision: the exit code and
// a line on stdout or stderr (cli front ends), or the dashboard test (in
// package ui) that asserts what the screen shows.
type shows struct {
	code   int
	stdout string // a substring of stdout ("" : not checked)
	stderr string // a regexp stderr must match ("" : not checked)
	uiTest string // dashboard: the test asserting it…
	screen string // …and the text it looks for on the screen
}

// Every decision of state's two rules, and how each front end presents
// it: the rule is one, the presentations differ only where a front end
// chooses how to show it (the dashboard asks, create exits 4 with the
// line that re-sends, run re-sends by itself).
func TestOneRuleEachFrontEndsPresentation(t *testing.T) {
	script := writeFile(t, filepath.Join(t.TempDir(), "job.py"), "print('hello')\n")
	down := colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: api.ToolExecuteCode, Code: api.Unavailable, Times: -1}
	for _, row := range []struct {
		decision string
		fault    *colabfake.Fault
		// create_runtime rows: the dashboard, create, run; execute_code
		// rows: the dashboard, exec, run.
		dashboard, verb, run shows
		exec                 bool
	}{
		{decision: "create: done",
			dashboard: shows{uiTest: "TestCreateOutcomeUnknownResendsSameRequest", screen: "created"},
			verb:      shows{code: 0, stdout: "created rt-"},
			run:       shows{code: 0, stdout: "hello\n"}},
		{decision: "create: re-send after a wait (UNAVAILABLE)",
			fault:     &colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: api.ToolCreateRuntime, Code: api.Unavailable},
			dashboard: shows{uiTest: "TestCreateCapacityUnavailable", screen: "capacity unavailable, retrying 2/5 in 10s"},
			verb:      shows{code: 0, stderr: `retrying 2/5 in 10s with the same requestId`},
			run:       shows{code: 0, stdout: "hello\n"}},
		{decision: "create: reply lost, re-list finds the runtime",
			fault:     &colabfake.Fault{Kind: colabfake.FaultReset, Tool: api.ToolCreateRuntime},
			dashboard: shows{uiTest: "TestCreateConnectionDropsAfterSending", screen: "not creating again"},
			verb:      shows{code: 0, stdout: "created rt-", stderr: `nothing sent again`},
			run:       shows{code: 0, stdout: "hello\n"}},
		{decision: "create: reply lost, not listed: the identical request may go again",
			fault:     &colabfake.Fault{Kind: colabfake.FaultReset, Tool: api.ToolCreateRuntime, Unprocessed: true},
			dashboard: shows{uiTest: "TestCreateOutcomeUnknownResendsSameRequest", screen: "re-send the identical request"},
			verb:      shows{code: kit.ExitAPI, stderr: `outcome unknown: .* to get it, run: colabdash create --spec CPU/STANDARD --request-id`},
			run:       shows{code: 0, stdout: "hello\n"}},
		{decision: "create: failed, explained",
			fault:     &colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: api.ToolCreateRuntime, Reason: api.ReasonTooManyActiveRuntimes},
			dashboard: shows{uiTest: "TestCreateFailedPreconditionNextSteps", screen: "Too many active runtimes"},
			verb:      shows{code: kit.ExitQuota, stderr: `Too many active runtimes`},
			run:       shows{code: kit.ExitQuota, stderr: `Too many active runtimes`}},
		{decision: "exec: done", exec: true,
			dashboard: shows{uiTest: "TestRunCodePanel", screen: "RUN CODE"},
			verb:      shows{code: 0, stdout: "42\n"},
			run:       shows{code: 0, stdout: "hello\n"}},
		{decision: "exec: reattach (the 600 s cut-off)", exec: true,
			fault:     &colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: api.ToolExecuteCode, Times: 2},
			dashboard: shows{uiTest: "TestRunCodePanel", screen: "reattached to the running code 2 times (same executionId)"},
			verb:      shows{code: 0, stdout: "42\n", stderr: `reattaching to the running code \(DEADLINE_EXCEEDED; same executionId\)`},
			// run's one execute_code starts its job's launcher, which
			// returns at once: its reattaches are not said.
			run: shows{code: 0, stdout: "hello\n"}},
		{decision: "exec: give up (the connection stays down)", exec: true, fault: &down,
			dashboard: shows{uiTest: "TestConsoleRunGivesUpWhenTheConnectionStaysDown", screen: "UNAVAILABLE"},
			verb:      shows{code: kit.ExitAPI, stderr: `may still be running; to reattach .*--execution-id`},
			run:       shows{code: kit.ExitAPI, stderr: `UNAVAILABLE`}},
	} {
		t.Run(row.decision, func(t *testing.T) {
			skipWaits(t)
			checkDashboardTest(t, row.dashboard)
			for _, fe := range []struct {
				name string
				want shows
				args []string
			}{
				{"verb", row.verb, []string{"create", "--spec", "CPU"}},
				{"run", row.run, []string{"run", "--spec", "CPU", script}},
			} {
				if row.exec && fe.name == "verb" {
					fe.args = []string{"exec", "rt-t4", "--keep", "-c", "print(6*7)"}
				}
				e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedDemo, RuntimeLimit: -1})
				if row.fault != nil {
					e.srv.Inject(*row.fault)
				}
				code, out, errs := e.runTerm(term{errTTY: true}, fe.args...)
				if code != fe.want.code || !strings.Contains(out, fe.want.stdout) || fe.want.stderr != "" && !regexp.MustCompile(fe.want.stderr).MatchString(errs) {
					t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d, %q, /%s/", fe.args[0], code, out, errs, fe.want.code, fe.want.stdout, fe.want.stderr)
				}
			}
		})
	}
}

// checkDashboardTest fails when the dashboard test a row names is gone
// from package ui, or no longer looks for the row's text on the screen.
func checkDashboardTest(t *testing.T, s shows) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "*_test.go"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src := string(b)
		i := strings.Index(src, "\nfunc "+s.uiTest+"(t *testing.T) {")
		if i < 0 {
			continue
		}
		body := src[i+1:]
		if end := strings.Index(body, "\n}\n"); end >= 0 {
			body = body[:end]
		}
		if !strings.Contains(body, s.screen) {
			t.Errorf("dashboard: %s no longer checks %q", s.uiTest, s.screen)
		}
		return
	}
	t.Errorf("dashboard: no test %s in package ui", s.uiTest)
}
