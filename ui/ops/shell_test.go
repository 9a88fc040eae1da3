package ops

import (
	"context"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
)

func TestListedFollowsListRuntimes(t *testing.T) {
	srv, svc := emulator(t, colabfake.Options{})
	rt := firstRuntime(t, srv)
	listed := Listed(svc, rt.Name)
	if ok, err := listed(context.Background()); err != nil || !ok {
		t.Fatalf("a live runtime: listed %v, %v; want true", ok, err)
	}
	if !srv.Reclaim(rt.Name) {
		t.Fatal("reclaim failed")
	}
	if ok, err := listed(context.Background()); err != nil || ok {
		t.Errorf("a reclaimed runtime: listed %v, %v; want false", ok, err)
	}
	srv.Inject(colabfake.Fault{Kind: colabfake.FaultJSONRPCError, Tool: api.ToolListRuntimes, RPCCode: -32603, Message: "boom"})
	if ok, err := listed(context.Background()); err == nil || ok {
		t.Errorf("list_runtimes failing: listed %v, %v; want its error", ok, err)
	}
}

func TestShellTargetReachesTheRuntime(t *testing.T) {
	srv, svc := emulator(t, colabfake.Options{})
	rt := firstRuntime(t, srv)
	st, err := Shell(svc, rt.Name, *rt.ConnectionInfo, JupyterOptions{})
	if err != nil {
		t.Fatalf("Shell: %v", err)
	}
	if st.Client.Runtime() != rt.ID() && st.Client.Runtime() != rt.Name {
		t.Errorf("the shell's client is for %q, want %s", st.Client.Runtime(), rt.Name)
	}
	if ok, err := st.Listed(context.Background()); err != nil || !ok {
		t.Errorf("the shell's Listed: %v, %v; want true", ok, err)
	}
}
