package runtimes

import (
	"regexp"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/cli/kit/kittest"
)

// create prints the runtime it made, on stdout, in one line per fact.
func TestCreatePrintsTheRuntime(t *testing.T) {
	e := kittest.Empty(t)
	r := e.Run(CreateCommand, "--spec", "CPU/STANDARD")
	if r.Code != 0 || !regexp.MustCompile(`^created rt-\S+ \(CPU/STANDARD, version latest\)\nurl http://127\.0\.0\.1`).MatchString(r.Out) ||
		!strings.Contains(r.Err, "requestId ") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	if e.Srv.CreateCalls() != 1 || e.Srv.RuntimesCreated() != 1 {
		t.Fatalf("%d sends, %d created", e.Srv.CreateCalls(), e.Srv.RuntimesCreated())
	}
}

// A rate limit: create says it waits, and sends the identical call once
// more (two sends at the emulator, one runtime).
func TestCreateRetriesARateLimit(t *testing.T) {
	kittest.SkipWaits(t)
	e := kittest.Empty(t)
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: api.ToolCreateRuntime, Code: api.ResourceExhausted, RetryDelay: 2e9})
	r := e.Run(CreateCommand, "--spec", "CPU")
	if r.Code != 0 || !strings.Contains(r.Err, "retrying 2/5 in 2s with the same requestId") {
		t.Fatalf("exit %d, stderr %q", r.Code, r.Err)
	}
	if e.Srv.CreateCalls() != 2 || e.Srv.RuntimesCreated() != 1 {
		t.Fatalf("%d sends, %d created; want 2 and 1", e.Srv.CreateCalls(), e.Srv.RuntimesCreated())
	}
}

// A reply lost after Colab made the runtime: create lists the runtimes,
// finds it, and succeeds with it, sending nothing again.
func TestCreateLostReplyFoundByRelist(t *testing.T) {
	e := kittest.Demo(t)
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultReset, Tool: api.ToolCreateRuntime})
	r := e.Run(CreateCommand, "--spec", "CPU/STANDARD")
	if r.Code != 0 || !strings.HasPrefix(r.Out, "created rt-") || !strings.Contains(r.Err, "listing the runtimes before anything is sent again") ||
		!strings.Contains(r.Err, "nothing sent again") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	if e.Srv.CreateCalls() != 1 || e.Srv.RuntimesCreated() != 1 {
		t.Fatalf("%d sends, %d created; want the one", e.Srv.CreateCalls(), e.Srv.RuntimesCreated())
	}
}

// A reply lost before Colab saw the create, with --id: the re-list does
// not find that id, so the outcome stays unknown: exit 4 with the line
// that re-sends the same requestId; nothing was sent again.
func TestCreateLostReplyNotListedExits4(t *testing.T) {
	e := kittest.Empty(t)
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultReset, Tool: api.ToolCreateRuntime, Unprocessed: true})
	r := e.Run(CreateCommand, "--spec", "CPU", "--id", "mine-1")
	if r.Code != kit.ExitAPI || r.Out != "" || !strings.Contains(r.Err, "colabdash: outcome unknown: the connection was lost after create_runtime was sent") ||
		!regexp.MustCompile(`to get it, run: colabdash create --spec CPU/STANDARD --id mine-1 --request-id [0-9a-f-]{36} --endpoint`).MatchString(r.Err) {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	if e.Srv.RuntimesCreated() != 0 {
		t.Fatalf("%d created", e.Srv.RuntimesCreated())
	}
}

// A limit: exit 5, the reason and what to do, one send.
func TestCreateRefusedTooManyRuntimes(t *testing.T) {
	e := kittest.Demo(t)
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: api.ToolCreateRuntime, Reason: api.ReasonTooManyActiveRuntimes})
	r := e.Run(CreateCommand, "--spec", "CPU")
	if r.Code != kit.ExitQuota || r.Out != "" || !strings.Contains(r.Err, "Too many active runtimes (TOO_MANY_ACTIVE_RUNTIMES): ") || !strings.Contains(r.Err, "delete one (colabdash status --endpoint") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	if e.Srv.CreateCalls() != 1 {
		t.Fatalf("%d sends", e.Srv.CreateCalls())
	}
}

// Bad input: exit 2 with one line, and nothing sent.
func TestCreateBadInput(t *testing.T) {
	e := kittest.Empty(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--spec", "CPU", "--request-id", "nope"}, "--request-id must be a UUID4"},
		{[]string{"--spec", "CPU", "--request-id", " "}, "--request-id is empty"},
		{[]string{"--spec", "CPU", "--id", "Not_An_Id"}, "--id: "},
		{[]string{"--spec", "GPU/Z9/STANDARD"}, "not a runtime spec Colab offers"},
		{[]string{}, "give exactly one of --spec"},
	} {
		r := e.Run(CreateCommand, tc.args...)
		if r.Code != kit.ExitUsage || r.Out != "" || !strings.Contains(r.Err, tc.want) || strings.Count(r.Err, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tc.args, r.Code, r.Out, r.Err)
		}
	}
	if e.Srv.CreateCalls() != 0 {
		t.Fatalf("%d sends for bad input", e.Srv.CreateCalls())
	}
}
