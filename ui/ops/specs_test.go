package ops

import (
	"context"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
)

func TestLoadSpecsGivesSpecsAndTier(t *testing.T) {
	srv, svc := emulator(t, colabfake.Options{})
	srv.SetTier(api.TierPro)
	specs, tier, err := LoadSpecs(context.Background(), svc)
	if err != nil || len(specs) == 0 || tier != api.TierPro {
		t.Fatalf("LoadSpecs = %d specs, tier %q, %v; want the emulator's specs on Pro", len(specs), tier, err)
	}
	srv.Inject(colabfake.Fault{Kind: colabfake.FaultJSONRPCError, Tool: api.ToolGetSubscription, RPCCode: -32603, Message: "boom"})
	if specs, tier, err := LoadSpecs(context.Background(), svc); err != nil || len(specs) == 0 || tier != "" {
		t.Errorf("get_subscription failing: %d specs, tier %q, %v; want the specs and no tier", len(specs), tier, err)
	}
	srv.Inject(colabfake.Fault{Kind: colabfake.FaultJSONRPCError, Tool: api.ToolListRuntimeSpecs, RPCCode: -32603, Message: "boom"})
	if specs, _, err := LoadSpecs(context.Background(), svc); err == nil || specs != nil {
		t.Errorf("list_runtime_specs failing: %d specs, %v; want its error", len(specs), err)
	}
}
