package client

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
)

// TestArgumentsAreWhatCallsSend calls every tool against the emulator and
// checks that Arguments (what `colabdash doctor` compares with the
// server's schemas) names every top-level argument the calls sent, and
// that every argument it names as always sent was sent.
func TestArgumentsAreWhatCallsSend(t *testing.T) {
	var mu sync.Mutex
	sent := map[string]map[string]bool{} // tool → argument names
	_, ep := startEmu(t, modes[0], colabfake.Options{Seed: colabfake.SeedDemo, OnRequest: func(r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(b))
		var msg struct {
			Method string `json:"method"`
			Params struct {
				Name      string         `json:"name"`
				Arguments map[string]any `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal(b, &msg) != nil || msg.Method != "tools/call" {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if sent[msg.Params.Name] == nil {
			sent[msg.Params.Name] = map[string]bool{}
		}
		for k := range msg.Params.Arguments {
			sent[msg.Params.Name][k] = true
		}
	}})
	c, _ := emuClient(t, ep)
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.Connect(ctx))
	_, err := c.GetSubscription(ctx)
	must(err)
	_, err = c.ListRuntimeSpecs(ctx)
	must(err)
	_, err = c.ListRuntimes(ctx)
	must(err)
	rt, err := c.CreateRuntime(ctx, api.CreateRuntimeRequest{Spec: cpu(), RuntimeID: "rt-args", RequestID: "5f0c8a9e-2b1d-4c3e-9f7a-1b2c3d4e5f60"})
	must(err)
	_, err = c.GetRuntime(ctx, rt.Name)
	must(err)
	s, err := c.CreateSession(ctx, rt.Name, "args-session")
	must(err)
	_, err = c.ListSessions(ctx, rt.Name)
	must(err)
	_, err = c.ExecuteCode(ctx, api.ExecuteCodeRequest{Session: s.Name, Code: "1"})
	must(err)
	_, err = c.ExecuteCode(ctx, api.ExecuteCodeRequest{Runtime: rt.Name, Code: "1"})
	must(err)
	must(c.DeleteSession(ctx, s.Name))
	must(c.DeleteRuntime(ctx, rt.Name))

	args := Arguments()
	mu.Lock()
	defer mu.Unlock()
	for tool, names := range sent {
		for name := range names {
			if !slices.ContainsFunc(args, func(a Argument) bool { return a.Tool == tool && slices.Contains(a.Spellings, name) }) {
				t.Errorf("%s was sent %q, which Arguments does not name", tool, name)
			}
		}
	}
	for _, a := range args {
		if !a.Optional && !sent[a.Tool][a.Name] {
			t.Errorf("Arguments says %s always sends %q, but the calls did not (sent %v)", a.Tool, a.Name, sent[a.Tool])
		}
	}
}

// TestCheckToolsFindsMissingAndUndeclared lists a server's tools with one
// tool left out and one required argument renamed: CheckTools names both,
// and an optional argument the schema lacks as dropped.
func TestCheckToolsFindsMissingAndUndeclared(t *testing.T) {
	_, ep := startEmu(t, modes[1], colabfake.Options{
		OmitTools:      []string{api.ToolExecuteCode},
		RenamedInputs:  map[string]string{api.ToolDeleteSession + ".name": "sessionName"},
		NoAllowMissing: true,
	})
	c, _ := emuClient(t, ep)
	tools, err := c.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := CheckTools(tools)
	if !slices.Equal(got.Missing, []string{api.ToolExecuteCode}) {
		t.Errorf("Missing = %v, want [execute_code]", got.Missing)
	}
	if len(got.Undeclared) != 1 || got.Undeclared[0].Tool != api.ToolDeleteSession || got.Undeclared[0].Name != "name" {
		t.Errorf("Undeclared = %+v, want delete_session's name", got.Undeclared)
	}
	if len(got.Dropped) != 1 || got.Dropped[0].Tool != api.ToolDeleteRuntime || got.Dropped[0].Name != "allowMissing" {
		t.Errorf("Dropped = %+v, want delete_runtime's allowMissing", got.Dropped)
	}
	raw, err := c.ToolsJSON(context.Background())
	if err != nil || len(raw) != len(tools) {
		t.Fatalf("ToolsJSON = %d tools, %v; want %d", len(raw), err, len(tools))
	}
	all, _ := json.Marshal(raw)
	if !bytes.Contains(all, []byte(`"sessionName"`)) {
		t.Error("ToolsJSON does not carry the renamed property of the server's schema")
	}
	// Against the full emulator nothing is missing or undeclared.
	_, ep = startEmu(t, modes[0], colabfake.Options{})
	c, _ = emuClient(t, ep)
	if tools, err = c.Tools(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := CheckTools(tools); len(got.Missing)+len(got.Undeclared)+len(got.Dropped) != 0 {
		t.Errorf("CheckTools on the full emulator = %+v, want nothing", got)
	}
}
