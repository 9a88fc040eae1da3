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

// exec on a runtime opens a session of colabdash's for the run alone:
// the code's output is ours, stderr stays quiet, and the session (and its
// kernel) is gone afterwards, so a loop of exec leaks nothing. A runtime
// named in full costs one execute_code (which makes the session); a
// prefix, one refused as naming no runtime, then the listing, then the run.
func TestExecClosesTheSessionItOpened(t *testing.T) {
	e := kittest.Demo(t)
	before := len(e.Srv.Sessions("runtimes/rt-t4demo7k2p"))
	for i := 0; i < 3; i++ {
		r := e.Run(Command, "rt-t4demo7k2p", "-c", "print(6*7)")
		if r.Code != 0 || r.Out != "42\n" || r.Err != "" {
			t.Fatalf("exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
		}
	}
	if n := len(e.Srv.Sessions("runtimes/rt-t4demo7k2p")); n != before {
		t.Fatalf("%d sessions after three runs, want %d", n, before)
	}
	// Failing code closes it too.
	r := e.Run(Command, "rt-t4", "-c", "1/0")
	if r.Code != kit.ExitFailure || len(e.Srv.Sessions("runtimes/rt-t4demo7k2p")) != before {
		t.Fatalf("raised: exit %d, stderr %q, %d sessions", r.Code, r.Err, len(e.Srv.Sessions("runtimes/rt-t4demo7k2p")))
	}
	if n, lists := e.Srv.CallCount(api.ToolExecuteCode), e.Srv.CallCount(api.ToolListRuntimes); n != 5 || lists != 1 {
		t.Fatalf("%d execute_code and %d list_runtimes sends, want 5 and 1", n, lists)
	}
}

// --keep leaves the session open, says so on stderr with how to reuse
// and close it, and --session runs in it again, leaving it open; the hidden --rm is still
// accepted (closing is the default), and --keep --rm is refused.
func TestExecKeepLeavesTheSessionOpen(t *testing.T) {
	e := kittest.Demo(t)
	before := len(e.Srv.Sessions("runtimes/rt-t4demo7k2p"))
	r := e.Run(Command, "rt-t4", "--keep", "-c", "1")
	m := regexp.MustCompile(`reuse it with --session (colabdash-[0-9a-z]+)`).FindStringSubmatch(r.Err)
	if r.Code != 0 || m == nil || !strings.Contains(r.Err, "close it with: colabdash session close rt-t4demo7k2p/colabdash-") ||
		len(e.Srv.Sessions("runtimes/rt-t4demo7k2p")) != before+1 {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	r = e.Run(Command, "rt-t4", "--session", m[1], "-c", "print(6*7)")
	if r.Code != 0 || r.Out != "42\n" || len(e.Srv.Sessions("runtimes/rt-t4demo7k2p")) != before+1 {
		t.Fatalf("a named session: exit %d, stdout %q, stderr %q, closed: %v", r.Code, r.Out, r.Err, len(e.Srv.Sessions("runtimes/rt-t4demo7k2p")) == before)
	}
	r = e.Run(Command, "rt-t4", "--rm", "-c", "print(1)")
	if r.Code != 0 || r.Out != "1\n" || r.Err != "" || len(e.Srv.Sessions("runtimes/rt-t4demo7k2p")) != before+1 {
		t.Fatalf("--rm: exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	r = e.Run(Command, "rt-t4", "--keep", "--rm", "-c", "1")
	if r.Code != kit.ExitUsage || !strings.Contains(r.Err, "--keep and --rm") {
		t.Fatalf("--keep --rm: exit %d, stderr %q", r.Code, r.Err)
	}
}

// --timeout in a session exec opened: the session is closed (which stops
// the code), and the one line says so, with no reattach command for a
// session that no longer exists.
func TestExecTimeoutClosesItsOwnSession(t *testing.T) {
	e := kittest.Demo(t)
	before := len(e.Srv.Sessions("runtimes/rt-t4demo7k2p"))
	hold := make(chan struct{})
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: api.ToolExecuteCode, Hold: hold})
	r := e.Run(Command, "rt-t4demo7k2p", "-c", "print(6*7)", "--timeout", "100ms")
	close(hold)
	if r.Code != kit.ExitTimeout || strings.Count(r.Err, "\n") != 1 || !strings.Contains(r.Err, "closed session rt-t4demo7k2p/colabdash-") ||
		strings.Contains(r.Err, "--execution-id") || strings.Contains(r.Err, "stays open") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	if n := len(e.Srv.Sessions("runtimes/rt-t4demo7k2p")); n != before {
		t.Fatalf("%d sessions, want %d", n, before)
	}
}

// A connection that stays down in a session exec opened: it gives up,
// closes the session, and prints no reattach command for it.
func TestExecGivesUpAndClosesItsOwnSession(t *testing.T) {
	kittest.SkipWaits(t)
	e := kittest.Demo(t)
	before := len(e.Srv.Sessions("runtimes/rt-t4demo7k2p"))
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: api.ToolExecuteCode, Code: api.Unavailable, Times: -1})
	r := e.Run(Command, "rt-t4demo7k2p", "-c", "print(2)")
	if r.Code != kit.ExitAPI || strings.Contains(r.Err, "--execution-id") || !strings.Contains(r.Err, "closed session rt-t4demo7k2p/colabdash-") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	if n := len(e.Srv.Sessions("runtimes/rt-t4demo7k2p")); n != before {
		t.Fatalf("%d sessions, want %d", n, before)
	}
}

// The server's 600 s cut-off, three times: exec reattaches each time at
// once, and the emulator sees exactly one send per answer (no second
// layer repeating them); the code ran once.
func TestExecReattachesAfterTheCutOff(t *testing.T) {
	e := kittest.Demo(t)
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: api.ToolExecuteCode, Times: 3})
	r := e.RunTerm(kittest.Term{ErrTTY: true}, Command, "rt-t4demo7k2p", "-c", "print(6*7)")
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
	e := kittest.Demo(t)
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
	e := kittest.Demo(t)
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
	e := kittest.Demo(t)
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

// The code's SystemExit is exec's exit status as python's: sys.exit(n)
// is n (masked as a process's), none or None is success with no error
// line, and any other value is 1 with the value on stderr; IPython's
// report and warning are not shown.
func TestExecExitsWithTheCodesSystemExit(t *testing.T) {
	e := kittest.Demo(t)
	for _, c := range []struct {
		code string
		exit int
		err  string
	}{
		{"raise SystemExit(3)", 3, ""},
		{"import sys\nsys.exit(3)", 3, ""},
		{"import sys\nsys.exit(259)", 3, ""},
		{"import sys\nsys.exit(0)", 0, ""},
		{"import sys\nsys.exit()", 0, ""},
		{"raise SystemExit(None)", 0, ""},
		{"import sys\nsys.exit('bye')", 1, "bye\n"},
	} {
		r := e.Run(Command, "rt-t4", "-c", c.code)
		if r.Code != c.exit || r.Err != c.err || r.Out != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d, stderr %q", c.code, r.Code, r.Out, r.Err, c.exit, c.err)
		}
	}
	r := e.Run(Command, "rt-t4", "--json", "-c", "raise SystemExit(3)")
	if r.Code != 3 || !strings.Contains(r.Out, `"the code exited 3"`) || !strings.Contains(r.Out, `"executionError": null`) {
		t.Errorf("--json: exit %d, stdout %s", r.Code, r.Out)
	}
}
