package cli

import (
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
)

// runExec runs `colabdash exec RUNTIME -c 'print(6*7)'` against ep and
// checks the code's output.
func runExec(b *testing.B, ep, tok string) {
	code, out, errs := runCLI(b, "exec", "rt-t4", "-c", "print(6*7)", "--endpoint", ep, "--access-token-file", tok)
	if code != 0 || out != "42\n" {
		b.Fatalf("exec: exit %d, stdout %q, stderr %.300s", code, out, errs)
	}
}

// BenchmarkExec: `colabdash exec RUNTIME -c CODE` against a
// stateless and a classic emulator (the demo seed), measured as
// BenchmarkStatus measures status: one emulator adds no latency, one adds
// 50 ms before every JSON-RPC request, the runs alternate after a first
// one against each leaves the protocol memory, and "roundtrips" =
// (t50 − t0) / 50 ms from the fastest run of each. The calls: list_runtimes
// (to resolve RUNTIME), create_session, execute_code, the last two with
// the live schema from tools/list; a classic server's initialize first;
// then delete_session, since exec closes the session it opened (after the
// output is printed, before the process ends). The floor is 5 round trips
// against a classic server (tools/list beside list_runtimes) and 4
// against a stateless one whose protocol is remembered.
func BenchmarkExec(b *testing.B) {
	forEachProtocol(b, colabfake.Options{Seed: colabfake.SeedDemo}, func(b *testing.B, o colabfake.Options) {
		benchRoundTrips(b, o, 0, func(ep, tok string) { runExec(b, ep, tok) })
	})
}
