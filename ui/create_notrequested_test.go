package ui

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
)

// create_runtime answering with another runtime than the one asked for
// (an id given): the dashboard neither selects it nor calls it created,
// and opens nothing on it.
func TestCreateAnsweredWithAnotherRuntimeIsNotUsed(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	victim := e.srv.Runtimes()[0].Name
	op := json.RawMessage(`{"name":"operations/1","done":true,"response":` + string(runtimeJSON(t, victim, e.clk.now().Add(time.Hour))) + `}`)
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultOutput, Tool: api.ToolCreateRuntime, Output: op})
	sessionsBefore := e.srv.CallCount(api.ToolListSessions)
	cmd := m.cr.startCreate(specT4, "", "mine", e.clk.now())
	m = drive(t, m, cmd)
	if m.Selected() == victim {
		t.Errorf("the runtime the server named instead (%s) was selected", victim)
	}
	mustContain(t, m.View(), "not the runtime mine")
	if n := e.srv.CallCount(api.ToolListSessions) - sessionsBefore; n != 0 {
		t.Errorf("%d list_sessions call(s) after the create: it acted on %s", n, victim)
	}
	if len(m.cr.creates) != 0 {
		t.Errorf("the create is still pending: %d", len(m.cr.creates))
	}
}
