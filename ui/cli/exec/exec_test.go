package exec

import (
	"regexp"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/cli/kit/kittest"
)

// exec on a runtime opens a session of colabdash's, says so on stderr,
// and the code's output is ours.
func TestExecPrintsTheOutput(t *testing.T) {
	e := kittest.New(t, colabfake.Options{Seed: colabfake.SeedDemo})
	r := e.Run(Command, "rt-t4", "-c", "print(6*7)")
	if r.Code != 0 || r.Out != "42\n" || !strings.Contains(r.Err, "opened session rt-t4demo7k2p/colabdash-") || !strings.Contains(r.Err, "close it with: colabdash session close") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	if n := e.Srv.CallCount(api.ToolExecuteCode); n != 1 {
		t.Fatalf("%d sends", n)
	}
}

// The server's 600 s cut-off, three times: exec reattaches each time at
// once, and the emulator sees exactly one send per answer (no second
// layer repeating them); the code ran once.
func TestExecReattachesAfterTheCutOff(t *testing.T) {
	e := kittest.New(t, colabfake.Options{Seed: colabfake.SeedDemo})
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: api.ToolExecuteCode, Times: 3})
	r := e.RunTerm(kittest.Term{ErrTTY: true}, Command, "rt-t4", "-c", "print(6*7)")
	if r.Code != 0 || r.Out != "42\n" || strings.Count(r.Err, "reattaching to the running code (DEADLINE_EXCEEDED; same executionId)") != 3 {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	if n := e.Srv.CallCount(api.ToolExecuteCode); n != 4 {
		t.Fatalf("%d sends at the emulator, want 4", n)
	}
}

// A connection that stays down: exec gives up after state.MaxExecDrops
// reattaches in a row, exits 4 and prints the command that reattaches.
func TestExecGivesUpWhenTheConnectionStaysDown(t *testing.T) {
	kittest.SkipWaits(t)
	e := kittest.New(t, colabfake.Options{Seed: colabfake.SeedDemo})
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: api.ToolExecuteCode, Code: api.Unavailable, Times: -1})
	r := e.Run(Command, "rt-t4/notebook-ab12cd34", "-c", "print(2)")
	if r.Code != kit.ExitAPI || r.Out != "" || !strings.Contains(r.Err, "may still be running") ||
		!regexp.MustCompile(`colabdash exec rt-t4demo7k2p/notebook-ab12cd34 --execution-id [0-9a-f-]{36} -c 'print\(2\)'`).MatchString(r.Err) {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	if n := e.Srv.CallCount(api.ToolExecuteCode); n != state.MaxExecDrops+1 {
		t.Fatalf("%d sends, want %d", n, state.MaxExecDrops+1)
	}
}

// --timeout detaches (exit 124) with the reattach line; the pasted
// --execution-id then returns the run's output.
func TestExecTimeoutThenReattach(t *testing.T) {
	e := kittest.New(t, colabfake.Options{Seed: colabfake.SeedDemo})
	hold := make(chan struct{})
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: api.ToolExecuteCode, Hold: hold})
	r := e.Run(Command, "rt-t4/notebook-ab12cd34", "-c", "print(6*7)", "--timeout", "100ms")
	close(hold)
	m := regexp.MustCompile(`--execution-id ([0-9a-f-]{36})`).FindStringSubmatch(r.Err)
	if r.Code != kit.ExitTimeout || m == nil || !strings.Contains(r.Err, "gave up waiting after --timeout 100ms") || !strings.Contains(r.Err, "the session stays open") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	e.Srv.ClearFaults()
	r = e.Run(Command, "rt-t4/notebook-ab12cd34", "--execution-id", m[1], "-c", "print(6*7)")
	if r.Code != 0 || r.Out != "42\n" {
		t.Fatalf("reattach: exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
}

// Bad input: exit 2 with one line, nothing sent.
func TestExecBadInput(t *testing.T) {
	e := kittest.New(t, colabfake.Options{Seed: colabfake.SeedDemo})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"rt-t4/s1", "--execution-id", "nope", "-c", "1"}, "--execution-id must be the UUID"},
		{[]string{"rt-t4/s1", "--session", "s2", "-c", "1"}, "give the session once"},
		{[]string{"rt-t4", "--execution-id", "0d6f4c1e-2b7a-4c1e-9b7a-2e5f6a7b8c9d", "-c", "1"}, "--execution-id needs the session"},
		{[]string{"rt-t4/notebook-ab12cd34", "--rm", "-c", "1"}, "--rm closes only a session colabdash opened"},
	} {
		r := e.Run(Command, tc.args...)
		if r.Code != kit.ExitUsage || r.Out != "" || !strings.Contains(r.Err, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tc.args, r.Code, r.Out, r.Err)
		}
	}
	if n := e.Srv.CallCount(api.ToolExecuteCode); n != 0 {
		t.Fatalf("%d sends for bad input", n)
	}
}
