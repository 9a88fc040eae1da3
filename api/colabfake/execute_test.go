package colabfake

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/colabdash/colabdash/api"
)

func TestEmulate(t *testing.T) {
	for _, c := range []struct {
		code, stdout, result, errName, errValue string
	}{
		{code: "print(1)", stdout: "1\n"},
		{code: `print("hello, world")`, stdout: "hello, world\n"},
		{code: `print('it\'s')`, stdout: "it's\n"},
		{code: "42", result: "42"},
		{code: "print(6*7)", stdout: "42\n"},
		{code: "print( (2+3) * -4 )", stdout: "-20\n"},
		{code: "2**64", stdout: EmulatedPrefix + "would run: 2**64\n"}, // ** is not Go: not evaluated
		{code: "99999999999999999999*10", result: "999999999999999999990"},
		{code: "print(6*)", stdout: EmulatedPrefix + "would run: print(6*)\n"},
		{code: "import torch\ntorch.cuda.is_available()", stdout: EmulatedPrefix + "would run: import torch torch.cuda.is_available()\n"},
		{code: `raise ValueError("boom")`, errName: "ValueError", errValue: "boom"},
		{code: "x = 1\nraise KeyError", errName: "KeyError"},
	} {
		out, res, xerr := emulate(c.code)
		if out != c.stdout || res != c.result {
			t.Errorf("%q: stdout %q result %q, want %q %q", c.code, out, res, c.stdout, c.result)
		}
		switch {
		case c.errName == "" && xerr != nil:
			t.Errorf("%q: unexpected error %+v", c.code, xerr)
		case c.errName != "" && (xerr == nil || xerr.Name != c.errName || xerr.Value != c.errValue || len(xerr.Traceback) == 0):
			t.Errorf("%q: error %+v, want %s(%q)", c.code, xerr, c.errName, c.errValue)
		}
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
			decode(t, call(t, cs, "execute_code", map[string]any{"session": sess, "code": "x = 1"}), &a)
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
