package cli

import (
	"bytes"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
)

// firstWrite is exec's stdout in BenchmarkExec: it keeps what is written
// and when the first bytes came, from start.
type firstWrite struct {
	start time.Time
	at    time.Duration
	buf   bytes.Buffer
}

func (w *firstWrite) Write(p []byte) (int, error) {
	if w.buf.Len() == 0 && len(p) > 0 {
		w.at = time.Since(w.start)
	}
	return w.buf.Write(p)
}

// runExec runs `colabdash exec RUNTIME-ID -c 'print(6*7)'` (the demo's
// T4 runtime by its full id) against ep, checks the code's output and
// returns how long after the start the output came.
func runExec(b *testing.B, ep, tok string) time.Duration {
	out := &firstWrite{start: time.Now()}
	var errs bytes.Buffer
	code := run([]string{"exec", "rt-t4demo7k2p", "-c", "print(6*7)", "--endpoint", ep, "--access-token-file", tok}, out, &errs)
	if code != 0 || out.buf.String() != "42\n" {
		b.Fatalf("exec: exit %d, stdout %q, stderr %.300s", code, out.buf.String(), errs.String())
	}
	return out.at
}

// BenchmarkExec: `colabdash exec RUNTIME-ID -c CODE` against a
// stateless and a classic emulator (the demo seed), measured as
// BenchmarkStatus measures status: one emulator adds no latency, one adds
// 50 ms before every JSON-RPC request, the runs alternate after a first
// one against each leaves the protocol memory, and "roundtrips" =
// (t50 − t0) / 50 ms from the fastest run of each, to the process's end;
// "out-roundtrips" is the same to the output's first byte. The calls: a
// classic server's initialize, then execute_code, which makes the new
// session it names (no list_runtimes for a full id, no create_session, no
// tools/list), then delete_session after the output is printed. The
// floors: output after 2 round trips against a classic server and 1
// against a stateless one; 3 and 2 to the end.
func BenchmarkExec(b *testing.B) {
	forEachProtocol(b, colabfake.Options{Seed: colabfake.SeedDemo}, func(b *testing.B, o colabfake.Options) {
		out := map[string]time.Duration{} // per endpoint, the fastest output
		benchRoundTrips(b, o, 0, func(ep, tok string) {
			at := runExec(b, ep, tok)
			if old, ok := out[ep]; !ok || at < old {
				out[ep] = at
			}
		})
		var fast, slow time.Duration // the endpoints without and with latency
		for _, at := range out {
			if fast == 0 || at < fast {
				fast = at
			}
			slow = max(slow, at)
		}
		b.ReportMetric(float64(slow-fast)/float64(benchLatency), "out-roundtrips")
	})
}
