package colabfake

import "testing"

// BenchmarkListRuntimes measures one list_runtimes round trip over
// loopback HTTP against the demo seed (stateless, JSON replies).
func BenchmarkListRuntimes(b *testing.B) {
	_, cs, _ := startConnect(b, Options{Seed: SeedDemo, Stateless: true, JSONResponse: true})
	b.ResetTimer()
	for b.Loop() {
		if _, err := callErr(cs, "list_runtimes", nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCreateRuntime measures create_runtime with no CreateDelay,
// including quota and eligibility checks (stateful, SSE replies).
func BenchmarkCreateRuntime(b *testing.B) {
	_, cs, _ := startConnect(b, Options{RuntimeLimit: -1, CreatesPerMinute: -1})
	b.ResetTimer()
	for b.Loop() {
		res, err := callErr(cs, "create_runtime", createArgs("VARIANT_CPU", "NONE", "SHAPE_STANDARD", ""))
		if err != nil || res.IsError {
			b.Fatal(err)
		}
	}
}
