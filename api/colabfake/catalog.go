package colabfake

import (
	"github.com/colabdash/colabdash/api"
)

// catalogEntry is one runtime spec the emulator offers and the lowest tier
// that is eligible for it.
type catalogEntry struct {
	key     api.RuntimeSpecKey
	minTier int // 0 Free, 1 Pro, 2 Pro+
}

func spec(v api.Variant, acc string, sh api.Shape) api.RuntimeSpecKey {
	return api.RuntimeSpecKey{Variant: v, Accelerator: acc, Shape: sh}
}

// catalog is the full spec list of list_runtime_specs, in the order the
// emulator returns it. Free: CPU and T4; Pro adds HIGHMEM, L4, A100 and TPU;
// Pro+ adds everything else (H100, G4, V6E1 HIGHMEM).
var catalog = []catalogEntry{
	{spec(api.VariantCPU, api.AcceleratorNone, api.ShapeStandard), 0},
	{spec(api.VariantCPU, api.AcceleratorNone, api.ShapeHighMem), 1},
	{spec(api.VariantGPU, "T4", api.ShapeStandard), 0},
	{spec(api.VariantGPU, "T4", api.ShapeHighMem), 1},
	{spec(api.VariantGPU, "L4", api.ShapeStandard), 1},
	{spec(api.VariantGPU, "L4", api.ShapeHighMem), 1},
	{spec(api.VariantGPU, "A100", api.ShapeStandard), 1},
	{spec(api.VariantGPU, "A100", api.ShapeHighMem), 1},
	{spec(api.VariantGPU, "G4", api.ShapeStandard), 2},
	{spec(api.VariantGPU, "H100", api.ShapeStandard), 2},
	{spec(api.VariantGPU, "H100", api.ShapeHighMem), 2},
	{spec(api.VariantTPU, "V5E1", api.ShapeStandard), 1},
	{spec(api.VariantTPU, "V6E1", api.ShapeStandard), 1},
	{spec(api.VariantTPU, "V6E1", api.ShapeHighMem), 2},
}

// tierRank orders tiers for eligibility; an unknown or unspecified tier is
// treated as Free.
func tierRank(t api.SubscriptionTier) int {
	switch t {
	case api.TierPro:
		return 1
	case api.TierProPlus:
		return 2
	}
	return 0
}

// lookupSpec returns the catalog entry for key, or ok=false when the
// emulator does not offer that spec at all.
func lookupSpec(key api.RuntimeSpecKey) (catalogEntry, bool) {
	for _, e := range catalog {
		if e.key == key {
			return e, true
		}
	}
	return catalogEntry{}, false
}
