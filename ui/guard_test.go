package ui

import (
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
)

// panicService panics in every call.
type panicService struct{ api.Service }

func (panicService) DeleteRuntime(context.Context, string) error { panic("boom") }
func (panicService) CreateSession(context.Context, string, string) (api.Session, error) {
	panic("boom")
}
func (panicService) DeleteSession(context.Context, string) error { panic("boom") }
func (panicService) CreateRuntime(context.Context, api.CreateRuntimeRequest) (api.Runtime, error) {
	panic("boom")
}
func (panicService) ExecuteCode(context.Context, api.ExecuteCodeRequest) (api.ExecuteCodeResult, error) {
	panic("boom")
}
func (panicService) ListRuntimes(context.Context) ([]api.Runtime, error)     { panic("boom") }
func (panicService) GetRuntime(context.Context, string) (api.Runtime, error) { panic("boom") }
func (panicService) ListSessions(context.Context, string) ([]api.Session, error) {
	panic("boom")
}
func (panicService) GetSubscription(context.Context) (api.Subscription, error) { panic("boom") }
func (panicService) ListRuntimeSpecs(context.Context) ([]api.RuntimeSpec, error) {
	panic("boom")
}

// Every command that calls out goes through the one guard: a panicking
// Service becomes the call's error, naming the tool; a missing Service is
// an error too, never a crash. Every Colab tool the dashboard calls is
// here: a tool missing from the table fails the test.
func TestEveryCallIsGuarded(t *testing.T) {
	for _, svc := range []api.Service{panicService{}, nil} {
		m := New(Options{Service: svc, Now: (&clock{t: t0}).now})
		now := t0
		op := &createOp{id: 1, requestID: "r", spec: specCPU}
		m.cr.creates = append(m.cr.creates, op)
		run := &execRun{id: 1, session: "runtimes/r/sessions/s", code: "1"}
		m.ex.execState.runs = append(m.ex.execState.runs, run)
		cmds := map[string]tea.Cmd{
			api.ToolDeleteRuntime: m.ops.startDelete("runtimes/r", now),
			api.ToolCreateSession: m.ops.startOpenSession("runtimes/r", "s", false, now),
			api.ToolDeleteSession: m.ops.startCloseSession("runtimes/r/sessions/s", now),
			api.ToolCreateRuntime: m.cr.sendCreate(op, now),
			api.ToolExecuteCode:   m.ex.sendExec(run, now),
		}
		for _, k := range []callKey{{kind: callRuntimes}, {kind: callSessions, runtime: "runtimes/r"},
			{kind: callSubscription}, {kind: callSpecs}, {kind: callRenew, runtime: "runtimes/r"}} {
			delete(m.calls.pending, k) // New issued the first lists already
			cmds[k.kind.String()] = m.calls.issue(k, now)
		}
		for _, tool := range api.ToolNames() {
			if cmds[tool] == nil {
				t.Errorf("%s: no guarded command tested", tool)
			}
		}
		for tool, cmd := range cmds {
			var err error
			switch msg := cmd().(type) {
			case deleteDoneMsg:
				err = msg.err
			case sessionOpenedMsg:
				err = msg.err
			case sessionClosedMsg:
				err = msg.err
			case createDoneMsg:
				err = msg.err
			case execDoneMsg:
				err = msg.err
			case resultMsg:
				err = msg.err
			default:
				t.Fatalf("%s: %T", tool, msg)
			}
			want := "internal error in " + tool + ": boom"
			if svc == nil {
				want = tool + ": no Colab service configured"
			}
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: err %v, want %q", tool, err, want)
			}
		}
	}
}
