package ui

import (
	"context"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/ops"
)

// The dashboard follows state's reattach rule: a connection that stays
// down is reattached state.MaxExecDrops times (one send each at the
// emulator, no second layer), then the run fails in the console with the
// error.
func TestConsoleRunGivesUpWhenTheConnectionStaysDown(t *testing.T) {
	old := ops.Sleep
	ops.Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	t.Cleanup(func() { ops.Sleep = old })
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "e")
	m = e.press(t, m, "y")
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: "execute_code", Code: "UNAVAILABLE", Times: -1})
	m = typeText(e, t, m, "print(1)")
	m = e.press(t, m, "enter")
	last := m.ex.execState.runs[len(m.ex.execState.runs)-1]
	if !last.done || last.err == nil || last.attempt != state.MaxExecDrops+1 || e.srv.CallCount("execute_code") != state.MaxExecDrops+1 {
		t.Fatalf("done %v err %v attempt %d, %d sends; want a failure after %d sends", last.done, last.err, last.attempt, e.srv.CallCount("execute_code"), state.MaxExecDrops+1)
	}
	mustContain(t, m.View(), "UNAVAILABLE")
}
