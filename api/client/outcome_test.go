// The client against the emulator: calls whose outcome is unknown (a reset
// after sending, a deadline) are re-sent identically or reported unknown.

package client

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
)

// The connection resets after create_runtime was sent.
func TestFieldCase2CreateResetOutcomeUnknown(t *testing.T) {
	forEachMode(t, func(t *testing.T, m serverMode) {
		emu, ep := startEmu(t, m, colabfake.Options{})
		c, sl := emuClient(t, ep)
		ctx := context.Background()
		if err := c.Connect(ctx); err != nil {
			t.Fatal(err)
		}
		emu.Inject(colabfake.Fault{Kind: colabfake.FaultReset, Tool: api.ToolCreateRuntime})
		_, err := c.CreateRuntime(ctx, api.CreateRuntimeRequest{Spec: cpu()})
		e := asAPI(t, err)
		if !e.OutcomeUnknown || e.Code != api.Unknown || e.Metadata["requestId"] == "" {
			t.Fatalf("err = %v (OutcomeUnknown=%v)", e, e.OutcomeUnknown)
		}
		if strings.Contains(e.Error(), "\n") || !strings.Contains(e.Error(), "list runtimes") {
			t.Errorf("message not a one-line hint: %q", e.Error())
		}
		if n := emu.CreateCalls(); n != 1 {
			t.Fatalf("create_runtime reached the server %d times, want exactly 1", n)
		}
		if len(sl.waits()) != 0 {
			t.Fatal("a lost create was retried")
		}
		rts, err := c.ListRuntimes(ctx)
		if err != nil || len(rts) != 1 {
			t.Fatalf("after the reset: %v, %v; want exactly the one runtime", rts, err)
		}
		// The caller may re-send the identical call: same runtime.
		rt, err := c.CreateRuntime(ctx, api.CreateRuntimeRequest{Spec: cpu(), RequestID: e.Metadata["requestId"]})
		if err != nil || rt.Name != rts[0].Name || emu.RuntimesCreated() != 1 {
			t.Fatalf("identical re-send = %+v, %v; %d created", rt, err, emu.RuntimesCreated())
		}
	})
}

// A reset before the server handled anything still cannot be told apart.
func TestCreateResetUnprocessedIsStillUnknown(t *testing.T) {
	emu, ep := startEmu(t, modes[0], colabfake.Options{})
	c, _ := emuClient(t, ep)
	emu.Inject(colabfake.Fault{Kind: colabfake.FaultReset, Tool: api.ToolCreateRuntime, Unprocessed: true})
	_, err := c.CreateRuntime(context.Background(), api.CreateRuntimeRequest{Spec: cpu()})
	if e := asAPI(t, err); !e.OutcomeUnknown {
		t.Fatalf("err = %v", e)
	}
	if emu.RuntimesCreated() != 0 {
		t.Fatal("unprocessed create created a runtime")
	}
}

// A reset on a read is retried on its own: by net/http at once when it
// hit a reused keep-alive connection (the call is marked idempotent),
// otherwise after one backoff.
func TestReadResetIsRetried(t *testing.T) {
	forEachMode(t, func(t *testing.T, m serverMode) {
		emu, ep := startEmu(t, m, colabfake.Options{Seed: colabfake.SeedDemo})
		c, sl := emuClient(t, ep)
		emu.Inject(colabfake.Fault{Kind: colabfake.FaultReset, Tool: api.ToolListRuntimes})
		rts, err := c.ListRuntimes(context.Background())
		if err != nil || len(rts) != 3 {
			t.Fatalf("ListRuntimes = %v, %v", rts, err)
		}
		if len(sl.waits()) > 1 {
			t.Fatalf("waits = %v, want at most one backoff", sl.waits())
		}
	})
}

// create_runtime: DEADLINE_EXCEEDED is returned after one send; the
// caller's identical re-sends (same requestId) wait for the one runtime.
func TestCreateDeadlineResendsIdentical(t *testing.T) {
	forEachMode(t, func(t *testing.T, m serverMode) {
		emu, ep := startEmu(t, m, colabfake.Options{})
		c, sl := emuClient(t, ep)
		emu.Inject(colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: api.ToolCreateRuntime, Times: 2})
		req := api.CreateRuntimeRequest{Spec: cpu(), RequestID: "3f1c2b9e-8d4a-4c1e-9b7a-2e5f6a7b8c9d"}
		var (
			rt  api.Runtime
			err error
		)
		for sends := 1; sends <= 3; sends++ {
			rt, err = c.CreateRuntime(context.Background(), req)
			if emu.CreateCalls() != sends || len(sl.waits()) != 0 {
				t.Fatalf("send %d: the emulator saw %d calls, the client waited %v", sends, emu.CreateCalls(), sl.waits())
			}
			var e *api.Error
			if sends < 3 && (!errors.As(err, &e) || e.Code != api.DeadlineExceeded) {
				t.Fatalf("send %d: %v", sends, err)
			}
		}
		if err != nil || rt.Name == "" {
			t.Fatalf("CreateRuntime = %+v, %v", rt, err)
		}
		// The emulator refuses a reused requestId with a different body and
		// creates per new requestId: 3 calls and 1 runtime mean the calls
		// were identical.
		if emu.CreateCalls() != 3 || emu.RuntimesCreated() != 1 {
			t.Fatalf("calls %d, created %d; want 3 identical calls, 1 runtime", emu.CreateCalls(), emu.RuntimesCreated())
		}
	})
}

// execute_code with an executionId: DEADLINE_EXCEEDED, UNAVAILABLE and a
// lost reply (UNAVAILABLE) are returned after one send; the caller's
// identical call reattaches and the code runs once.
func TestExecuteReattach(t *testing.T) {
	for _, f := range []colabfake.Fault{
		{Kind: colabfake.FaultDeadline, Tool: api.ToolExecuteCode, Code: api.DeadlineExceeded},
		{Kind: colabfake.FaultDeadline, Tool: api.ToolExecuteCode, Code: api.Unavailable},
		{Kind: colabfake.FaultReset, Tool: api.ToolExecuteCode},
	} {
		emu, ep := startEmu(t, modes[1], colabfake.Options{Seed: colabfake.SeedDemo})
		c, sl := emuClient(t, ep)
		ctx := context.Background()
		rts, _ := c.ListRuntimes(ctx)
		s, err := c.CreateSession(ctx, rts[0].Name, "job")
		if err != nil {
			t.Fatal(err)
		}
		emu.Inject(f)
		req := api.ExecuteCodeRequest{Session: s.Name, Code: `print("long")`, ExecutionID: "0d6f4c1e-2b7a-4c1e-9b7a-2e5f6a7b8c9d"}
		_, err = c.ExecuteCode(ctx, req)
		e := asAPI(t, err)
		lost := f.Kind == colabfake.FaultReset
		if emu.CallCount(api.ToolExecuteCode) != 1 || len(sl.waits()) != 0 || e.OutcomeUnknown ||
			lost && e.Code != api.Unavailable || !lost && e.Code != f.Code {
			t.Fatalf("%v %s: %v, calls %d, waits %v; want one send returned as it came", f.Kind, f.Code, e, emu.CallCount(api.ToolExecuteCode), sl.waits())
		}
		out, err := c.ExecuteCode(ctx, req)
		if err != nil || out.Stdout != "long\n" {
			t.Fatalf("%v %s: %+v, %v", f.Kind, f.Code, out, err)
		}
		// (After a reply lost once the server had answered, Colab runs
		// the code again for the same executionId: only the calls count.)
		if emu.CallCount(api.ToolExecuteCode) != 2 || !lost && out.ExecutionCount != 1 {
			t.Fatalf("%v %s: calls %d, executionCount %d; want a reattach, one execution", f.Kind, f.Code, emu.CallCount(api.ToolExecuteCode), out.ExecutionCount)
		}
	}
}

// execute_code on a runtime target whose reply was lost is not re-run.
func TestExecuteRuntimeTargetLostIsUnknown(t *testing.T) {
	emu, ep := startEmu(t, modes[0], colabfake.Options{Seed: colabfake.SeedDemo})
	c, _ := emuClient(t, ep)
	rts, _ := c.ListRuntimes(context.Background())
	emu.Inject(colabfake.Fault{Kind: colabfake.FaultReset, Tool: api.ToolExecuteCode})
	_, err := c.ExecuteCode(context.Background(), api.ExecuteCodeRequest{Runtime: rts[0].Name, Code: "x = 1"})
	if e := asAPI(t, err); !e.OutcomeUnknown || emu.CallCount(api.ToolExecuteCode) != 1 {
		t.Fatalf("err = %v, calls %d", e, emu.CallCount(api.ToolExecuteCode))
	}
}
