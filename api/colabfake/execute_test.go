package colabfake

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/colabdash/colabdash/api"
)

// A long run keeps running when its call is cut off, a reattach waits for
// it, and delete_session aborts it: the waiting call gets ABORTED.
func TestExecuteCodeLongRunAbortedByDeleteSession(t *testing.T) {
	s, cs, _ := startConnect(t, Options{Seed: SeedDemo})
	sess := "runtimes/rt-cpudemo4qx/sessions/dash-long"
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan answer, 1) // the test's checks run on its own goroutine
	go func() {
		res, err := callErr(cs, "execute_code", map[string]any{"session": sess, "code": "print(1)\ntime.sleep(3600)", "executionId": uuid.NewString()})
		done <- answer{res, err}
	}()
	// Wait until it runs (its session exists), then delete the session.
	has := func() bool {
		for _, x := range s.Sessions("runtimes/rt-cpudemo4qx") {
			if x.Name == sess {
				return true
			}
		}
		return false
	}
	for deadline := time.Now().Add(30 * time.Second); !has() && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case a := <-done:
		t.Fatalf("a one-hour run returned at once: %+v, %v", a.res, a.err)
	case <-time.After(50 * time.Millisecond):
	}
	call(t, cs, "delete_session", map[string]any{"name": sess})
	select {
	case a := <-done:
		if a.err != nil {
			t.Fatalf("execute_code: %v", a.err)
		}
		if e := toolError(t, a.res); e.Code != api.Aborted || !strings.Contains(e.Message, "deleted") {
			t.Fatalf("aborted run: %v", e)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("delete_session did not stop the run")
	}
}

func TestExecuteCode(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			s, cs, _ := startConnect(t, Options{Seed: SeedDemo, Stateless: m.stateless, JSONResponse: m.jsonr})
			rt := "runtimes/rt-t4demo7k2p"
			before := len(s.Sessions(rt))
			// Runtime target: a new session, named in the result.
			var r1 api.ExecuteCodeResult
			decode(t, call(t, cs, "execute_code", map[string]any{"runtime": rt, "code": "print(1)"}), &r1)
			if r1.Stdout != "1\n" || r1.ExecutionCount != 1 || !strings.HasPrefix(r1.Session, rt+"/sessions/") {
				t.Fatalf("runtime target: %+v", r1)
			}
			if got := len(s.Sessions(rt)); got != before+1 {
				t.Errorf("sessions %d → %d, want one new", before, got)
			}
			// Session target: created if missing; executionCount counts per session.
			sess := rt + "/sessions/dash-x"
			var a, b api.ExecuteCodeResult
			decode(t, call(t, cs, "execute_code", map[string]any{"session": sess, "code": "x = 1\ntrain(x)"}), &a)
			decode(t, call(t, cs, "execute_code", map[string]any{"session": sess, "code": `raise ValueError("bad")`}), &b)
			if a.ExecutionCount != 1 || b.ExecutionCount != 2 || a.Session != sess {
				t.Errorf("counts %d, %d in %s", a.ExecutionCount, b.ExecutionCount, a.Session)
			}
			if !strings.Contains(a.Stdout, "[colabdash emulator]") {
				t.Errorf("emulated output does not say so: %q", a.Stdout)
			}
			if b.ExecutionError == nil || b.ExecutionError.Name != "ValueError" || b.ExecutionError.Value != "bad" {
				t.Errorf("raise: %+v", b.ExecutionError)
			}
			// Same executionId after a result was returned runs again.
			id := uuid.NewString()
			var c1, c2 api.ExecuteCodeResult
			decode(t, call(t, cs, "execute_code", map[string]any{"session": sess, "code": "1", "executionId": id}), &c1)
			decode(t, call(t, cs, "execute_code", map[string]any{"session": sess, "code": "1", "executionId": id}), &c2)
			if c1.ExecutionID != id || c2.ExecutionCount != c1.ExecutionCount+1 {
				t.Errorf("re-run with a returned executionId: %d then %d", c1.ExecutionCount, c2.ExecutionCount)
			}
			for _, bad := range []map[string]any{
				{"code": "1"},
				{"code": "1", "runtime": rt, "session": sess},
				{"code": "1", "session": "runtimes/" + rt},
			} {
				if e := toolError(t, call(t, cs, "execute_code", bad)); e.Code != api.InvalidArgument {
					t.Errorf("%v: %v", bad, e)
				}
			}
			if e := toolError(t, call(t, cs, "execute_code", map[string]any{"runtime": "runtimes/gone", "code": "1"})); e.Code != api.NotFound {
				t.Errorf("missing runtime: %v", e)
			}
		})
	}
}

func TestExecuteCodeDeadlineReattach(t *testing.T) {
	s, cs, _ := startConnect(t, Options{Seed: SeedDemo})
	sess := "runtimes/rt-cpudemo4qx/sessions/dash-long"
	args := map[string]any{"session": sess, "code": "print('done')", "executionId": uuid.NewString()}
	s.Inject(Fault{Kind: FaultDeadline, Tool: "execute_code"})
	e := toolError(t, call(t, cs, "execute_code", args))
	if e.Code != api.DeadlineExceeded || e.HTTPStatus != 504 {
		t.Fatalf("cut-off call: %v", e)
	}
	// The identical call reattaches: same executionCount, no second run.
	var r api.ExecuteCodeResult
	decode(t, call(t, cs, "execute_code", args), &r)
	if r.Stdout != "done\n" || r.ExecutionCount != 1 {
		t.Fatalf("reattach: %+v", r)
	}
	// Once returned, the same executionId runs again.
	decode(t, call(t, cs, "execute_code", args), &r)
	if r.ExecutionCount != 2 {
		t.Errorf("after the result was returned: count %d, want 2", r.ExecutionCount)
	}
	// UNAVAILABLE works the same way.
	args["executionId"] = uuid.NewString()
	s.Inject(Fault{Kind: FaultDeadline, Tool: "execute_code", Code: api.Unavailable})
	if e := toolError(t, call(t, cs, "execute_code", args)); e.Code != api.Unavailable || e.HTTPStatus != 503 {
		t.Fatalf("unavailable: %v", e)
	}
	decode(t, call(t, cs, "execute_code", args), &r)
	if r.ExecutionCount != 3 {
		t.Errorf("reattach after UNAVAILABLE: count %d, want 3", r.ExecutionCount)
	}
}

// Colab cuts an execute_code call off at 600 s with DEADLINE_EXCEEDED
// while the code keeps running: the emulator does the
// same after Options.ExecuteCutoff. The identical call reattaches (cut
// off again while the code runs, the result once it ended: one run, one
// executionCount); a call without an executionId says it cannot resume.
func TestExecuteCodeCutoff(t *testing.T) {
	s, cs, _ := startConnect(t, Options{Seed: SeedDemo, ExecuteCutoff: 100 * time.Millisecond})
	rt := "runtimes/rt-cpudemo4qx"
	sess := rt + "/sessions/dash-cut"
	args := map[string]any{"session": sess, "code": "print('start')\ntime.sleep(1)\nprint('done')", "executionId": uuid.NewString()}
	e := toolError(t, call(t, cs, "execute_code", args))
	if e.Code != api.DeadlineExceeded || !strings.Contains(e.Message, "cut off after 100ms") || !strings.Contains(e.Message, "reattach") {
		t.Fatalf("a run longer than the cut-off: %v, want DEADLINE_EXCEEDED saying how to reattach", e)
	}
	if n := s.RunningCode(sess); n != 1 {
		t.Fatalf("%d runs in flight after the cut-off, want the code still running", n)
	}
	// Reattach as a client does: the identical call, until a result.
	var r api.ExecuteCodeResult
	cuts := 1
	for deadline := time.Now().Add(60 * time.Second); ; {
		res := call(t, cs, "execute_code", args)
		if !res.IsError {
			decode(t, res, &r)
			break
		}
		if e := toolError(t, res); e.Code != api.DeadlineExceeded {
			t.Fatalf("reattach: %v", e)
		}
		if cuts++; time.Now().After(deadline) {
			t.Fatalf("no result after %d reattaches", cuts)
		}
	}
	if r.Stdout != "start\ndone\n" || r.ExecutionCount != 1 {
		t.Fatalf("reattached result %+v, want the one run's output with executionCount 1", r)
	}
	// Without an executionId the call cannot be resumed, and says so.
	e = toolError(t, call(t, cs, "execute_code", map[string]any{"session": sess, "code": "time.sleep(3600)"}))
	if e.Code != api.DeadlineExceeded || !strings.Contains(e.Message, "cannot be resumed") {
		t.Fatalf("a cut-off call without an executionId: %v", e)
	}
	call(t, cs, "delete_session", map[string]any{"name": sess}) // stops the hour-long run
}
