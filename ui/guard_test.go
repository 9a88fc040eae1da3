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

// Every command that calls out goes through the one guard: a panicking
// Service becomes the call's error, naming the tool; a missing Service is
// an error too, never a crash.
func TestEveryCallIsGuarded(t *testing.T) {
	for _, svc := range []api.Service{panicService{}, nil} {
		m := New(Options{Service: svc, Now: (&clock{t: t0}).now})
		now := t0
		op := &createOp{id: 1, requestID: "r", spec: specCPU}
		m.ax.creates = append(m.ax.creates, op)
		run := &execRun{id: 1, session: "runtimes/r/sessions/s", code: "1"}
		m.ax.exec.runs = append(m.ax.exec.runs, run)
		for tool, cmd := range map[string]tea.Cmd{
			api.ToolDeleteRuntime: m.startDelete("runtimes/r", now),
			api.ToolCreateSession: m.startOpenSession("runtimes/r", "s", false, now),
			api.ToolDeleteSession: m.startCloseSession("runtimes/r/sessions/s", now),
			api.ToolCreateRuntime: m.sendCreate(op, now),
			api.ToolExecuteCode:   m.sendExec(run, now),
		} {
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
