package ops

import (
	"context"
	"errors"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/state"
)

// openSession opens a session on the demo seed's first runtime.
func openSession(t *testing.T, svc api.Service) string {
	t.Helper()
	rts, err := svc.ListRuntimes(context.Background())
	if err != nil || len(rts) == 0 {
		t.Fatal(rts, err)
	}
	s, err := svc.CreateSession(context.Background(), rts[0].Name, "colabdash-test0001")
	if err != nil {
		t.Fatal(err)
	}
	return s.Name
}

// Each failure a reattach rides out is re-sent by exactly one layer: the
// emulator counts one send per answer, and the code runs once.
func TestExecReattachesOnceAtTheEmulator(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    colabfake.Fault
		wait bool
	}{
		{"the 600 s cut-off", colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: api.ToolExecuteCode}, false},
		{"unavailable", colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: api.ToolExecuteCode, Code: api.Unavailable}, true},
	} {
		srv, svc, w := startEmu(t, colabfake.Options{Seed: colabfake.SeedDemo})
		sess := openSession(t, svc)
		tc.f.Times = 2
		srv.Inject(tc.f)
		var events []ExecEvent
		res, err := Exec(context.Background(), svc, api.ExecuteCodeRequest{Session: sess, Code: `print("x")`, ExecutionID: "0d6f4c1e-2b7a-4c1e-9b7a-2e5f6a7b8c9d"},
			func(ev ExecEvent) { events = append(events, ev) })
		if err != nil || res.Stdout != "x\n" || res.ExecutionCount != 1 {
			t.Fatalf("%s: %+v, %v", tc.name, res, err)
		}
		if n := srv.CallCount(api.ToolExecuteCode); n != 3 || len(events) != 2 {
			t.Fatalf("%s: %d sends at the emulator, %d reattaches; want 3 and 2", tc.name, n, len(events))
		}
		ws := w.all()
		if tc.wait && (len(ws) != 2 || ws[0] != state.ExecDropWait || ws[1] != 2*state.ExecDropWait) || !tc.wait && (len(ws) != 2 || ws[0] != 0) {
			t.Fatalf("%s: waits %v", tc.name, ws)
		}
	}
}

// A reply lost after the server ran the call: one re-send, by Exec alone
// (the client sends each once): two sends at the emulator. (Colab runs
// the code again for an executionId whose result it had returned; a reply
// lost on the way is that case, which the docs say.)
func TestExecLostReplyReattachesOnce(t *testing.T) {
	srv, svc, w := startEmu(t, colabfake.Options{Seed: colabfake.SeedDemo})
	sess := openSession(t, svc)
	srv.Inject(colabfake.Fault{Kind: colabfake.FaultReset, Tool: api.ToolExecuteCode})
	res, err := Exec(context.Background(), svc, api.ExecuteCodeRequest{Session: sess, Code: `print("x")`, ExecutionID: "0d6f4c1e-2b7a-4c1e-9b7a-2e5f6a7b8c9d"}, nil)
	if err != nil || res.Stdout != "x\n" || srv.CallCount(api.ToolExecuteCode) != 2 || len(w.all()) != 1 || w.all()[0] != state.ExecDropWait {
		t.Fatalf("%+v, %v; %d sends, waits %v", res, err, srv.CallCount(api.ToolExecuteCode), w.all())
	}
}

// A connection that stays down: Exec gives up after MaxExecDrops
// reattaches in a row, with the last error.
func TestExecGivesUpWhenDown(t *testing.T) {
	srv, svc, w := startEmu(t, colabfake.Options{Seed: colabfake.SeedDemo})
	sess := openSession(t, svc)
	srv.Inject(colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: api.ToolExecuteCode, Code: api.Unavailable, Times: -1})
	_, err := Exec(context.Background(), svc, api.ExecuteCodeRequest{Session: sess, Code: "1", ExecutionID: "0d6f4c1e-2b7a-4c1e-9b7a-2e5f6a7b8c9d"}, nil)
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Code != api.Unavailable || srv.CallCount(api.ToolExecuteCode) != state.MaxExecDrops+1 || len(w.all()) != state.MaxExecDrops {
		t.Fatalf("err %v, %d sends, waits %v", err, srv.CallCount(api.ToolExecuteCode), w.all())
	}
}

// Without an executionId nothing is repeated: one send.
func TestExecWithoutExecutionIDIsNotRepeated(t *testing.T) {
	srv, svc, _ := startEmu(t, colabfake.Options{Seed: colabfake.SeedDemo})
	sess := openSession(t, svc)
	srv.Inject(colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: api.ToolExecuteCode})
	if _, err := Exec(context.Background(), svc, api.ExecuteCodeRequest{Session: sess, Code: "1"}, nil); err == nil || srv.CallCount(api.ToolExecuteCode) != 1 {
		t.Fatalf("err %v, %d sends", err, srv.CallCount(api.ToolExecuteCode))
	}
}

// A cancelled wait ends Exec with the context's error.
func TestExecCancelledDuringWait(t *testing.T) {
	srv, svc, _ := startEmu(t, colabfake.Options{Seed: colabfake.SeedDemo})
	sess := openSession(t, svc)
	srv.Inject(colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: api.ToolExecuteCode, Code: api.Unavailable})
	ctx, cancel := context.WithCancel(context.Background())
	_, err := Exec(ctx, svc, api.ExecuteCodeRequest{Session: sess, Code: "1", ExecutionID: "0d6f4c1e-2b7a-4c1e-9b7a-2e5f6a7b8c9d"}, func(ExecEvent) { cancel() })
	if !errors.Is(err, context.Canceled) || srv.CallCount(api.ToolExecuteCode) != 1 {
		t.Fatalf("err %v, %d sends", err, srv.CallCount(api.ToolExecuteCode))
	}
}

// A run's session is closed even when the run ended with a cancelled
// context (ctrl+c): its kernel is gone from the runtime afterwards.
func TestCloseSessionOutlivesACancelledContext(t *testing.T) {
	srv, svc, _ := startEmu(t, colabfake.Options{Seed: colabfake.SeedDemo})
	sess := openSession(t, svc)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := CloseSession(ctx, svc, sess); err != nil {
		t.Fatal(err)
	}
	if k := srv.KernelID(sess); k != "" {
		t.Fatalf("session %s still has kernel %s", sess, k)
	}
}
