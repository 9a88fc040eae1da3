package cli

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/colabfaketest"
	"github.com/colabdash/colabdash/api/plural"
)

// Benchmarks of `colabdash status` on the wire, each run
// in-process through the real command (flags, config, auth from an access
// token file, the MCP client) against the emulator on loopback.

// benchLatency is the delay the emulator adds to every request in the
// round-trip benchmarks.
const benchLatency = 50 * time.Millisecond

// statusEmulator starts an emulator with n runtimes (one notebook session
// on every third) and returns its endpoint and a token file for --access-token-file.
func statusEmulator(b *testing.B, o colabfake.Options, n int) (*colabfake.Server, string, string) {
	b.Helper()
	o.Runtimes, o.RuntimeLimit = n, -1
	srv, ep := colabfaketest.Start(b, o)
	tok := filepath.Join(b.TempDir(), "token")
	if err := os.WriteFile(tok, []byte("bench-token"), 0o600); err != nil {
		b.Fatal(err)
	}
	return srv, ep, tok
}

// runStatus runs `colabdash status` against ep and checks it listed want
// runtimes.
func runStatus(b *testing.B, ep, tok string, want int) {
	code, out, errs := runCLI(b, "status", "--endpoint", ep, "--access-token-file", tok)
	if code != 0 || !strings.Contains(out, " · "+plural.Count(want, "runtime")) {
		b.Fatalf("status: exit %d, %s\n%.300s", code, errs, out)
	}
}

// BenchmarkStatus: `colabdash status` with 20 runtimes against a stateless
// (2026-07-28) and a classic (2025-11-25, initialize handshake) emulator,
// once with no added latency and once with 50 ms on every request (the
// run before the timed ones leaves the protocol memory a real second start
// finds). Metrics, from the fastest of the b.N interleaved runs at each
// latency: "roundtrips" = (t50 − t0) / 50 ms, the round trips on
// the critical path whatever the machine's speed (the floor is 3: connect
// or discover, list_runtimes with get_subscription beside it, then every
// list_sessions at once); "t0-ms" and "t50-ms" the wall times; and
// "MB/status" the bytes allocated per status in the process, the
// emulator's included (BenchmarkStatusClientAllocs has the client's
// alone).
func BenchmarkStatus(b *testing.B) {
	forEachProtocol(b, colabfake.Options{}, func(b *testing.B, o colabfake.Options) {
		alloc := benchRoundTrips(b, o, 20, func(ep, tok string) { runStatus(b, ep, tok, 20) })
		b.ReportMetric(alloc/(1<<20), "MB/status")
	})
}

// forEachProtocol runs bench as the sub-benchmark "stateless" with o set
// for an emulator of the stateless protocol (2026-07-28, JSON replies),
// then as "classic" with o set for one of the classic protocol
// (2025-11-25, initialize handshake); o's other fields stay as given.
func forEachProtocol(b *testing.B, o colabfake.Options, bench func(b *testing.B, o colabfake.Options)) {
	for _, stateless := range []bool{true, false} {
		name := map[bool]string{true: "stateless", false: "classic"}[stateless]
		po := o
		po.Stateless, po.JSONResponse = stateless, stateless
		b.Run(name, func(b *testing.B) { bench(b, po) })
	}
}

// benchRoundTrips measures run (one command against the endpoint ep with
// the token file tok) against two emulators made from o with n runtimes,
// one adding no latency and one adding benchLatency before every request.
// A first run against each leaves the protocol memory a real second start
// finds (in a HOME of this benchmark's own); then the b.N runs alternate,
// so a busy machine slows both alike, and the fastest run of each, the one
// least disturbed by other processes, counts. It reports "roundtrips" =
// (t50 − t0) / benchLatency, the round trips on the critical path whatever
// the machine's speed, and the wall times "t0-ms" and "t50-ms"; it returns
// the bytes the process allocated per run without latency, the emulator's
// included.
func benchRoundTrips(b *testing.B, o colabfake.Options, n int, run func(ep, tok string)) (allocPerRun float64) {
	b.Helper()
	isolate(b)
	_, ep0, tok := statusEmulator(b, o, n)
	o.Latency = benchLatency
	_, ep50, _ := statusEmulator(b, o, n)
	run(ep0, tok)
	run(ep50, tok)
	t0, t50 := time.Duration(1<<62), time.Duration(1<<62)
	var alloc uint64
	var ms0, ms1 runtime.MemStats
	for i := 0; i < b.N; i++ {
		runtime.ReadMemStats(&ms0)
		start := time.Now()
		run(ep0, tok)
		t0 = min(t0, time.Since(start))
		runtime.ReadMemStats(&ms1)
		alloc += ms1.TotalAlloc - ms0.TotalAlloc
		start = time.Now()
		run(ep50, tok)
		t50 = min(t50, time.Since(start))
	}
	b.ReportMetric(float64(t50-t0)/float64(benchLatency), "roundtrips")
	b.ReportMetric(float64(t0)/float64(time.Millisecond), "t0-ms")
	b.ReportMetric(float64(t50)/float64(time.Millisecond), "t50-ms")
	return float64(alloc) / float64(b.N)
}

// TestHelperEmulator is not a test: BenchmarkStatusClientAllocs runs the
// test binary with COLABDASH_BENCH_EMULATOR set to serve an emulator in a
// process of its own, so the benchmark's allocations are the client's.
func TestHelperEmulator(t *testing.T) {
	mode := os.Getenv("COLABDASH_BENCH_EMULATOR")
	if mode == "" {
		t.Skip("helper process for BenchmarkStatusClientAllocs")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	_, ep, err := colabfake.Start(ctx, "127.0.0.1:0", colabfake.Options{Stateless: mode == "stateless", JSONResponse: mode == "stateless", Runtimes: 20, RuntimeLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(ep)
	// Serve until the benchmark closes stdin.
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
}

// BenchmarkStatusClientAllocs: what one `colabdash status` with 20
// runtimes allocates in colabdash itself (B/op, allocs/op), with the
// emulator in a process of its own.
func BenchmarkStatusClientAllocs(b *testing.B) {
	for _, mode := range []string{"stateless", "classic"} {
		b.Run(mode, func(b *testing.B) {
			isolate(b)
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperEmulator$")
			cmd.Env = append(os.Environ(), "COLABDASH_BENCH_EMULATOR="+mode)
			stdin, _ := cmd.StdinPipe()
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			defer func() { stdin.Close(); cmd.Wait() }()
			ep, err := bufio.NewReader(stdout).ReadString('\n')
			if err != nil || !strings.HasPrefix(ep, "http://") {
				b.Fatalf("helper emulator: %q, %v", ep, err)
			}
			ep = strings.TrimSpace(ep)
			tok := filepath.Join(b.TempDir(), "token")
			os.WriteFile(tok, []byte("bench-token"), 0o600)
			runStatus(b, ep, tok, 20)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				runStatus(b, ep, tok, 20)
			}
		})
	}
}

// BenchmarkStatus10000: `colabdash status` with 10,000 runtimes finishes
// (api.FanOut calls at a time over kept-alive connections). Metrics:
// "s/status" (wall time, reported) and "calls/status", the emulator's
// tools/call requests a status (10,002: list_runtimes, get_subscription
// and one list_sessions a runtime; a count a busy machine does not move).
func BenchmarkStatus10000(b *testing.B) {
	isolate(b)
	srv, ep, tok := statusEmulator(b, colabfake.Options{}, 10000)
	calls0 := srv.CallCount("")
	start := time.Now()
	for i := 0; i < b.N; i++ {
		runStatus(b, ep, tok, 10000)
	}
	b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "s/status")
	b.ReportMetric(float64(srv.CallCount("")-calls0)/float64(b.N), "calls/status")
}
