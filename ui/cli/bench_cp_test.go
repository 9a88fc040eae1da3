package cli

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/files"
)

// BenchmarkCopyTree is the goal for many small files: `colabdash
// cp -r` (the real command, in this process) uploading a directory of
// 500 files of 4 KB to a runtime and downloading it back, with the
// emulator adding 50 ms to every request to its runtime proxy
// (Options.ProxyLatency). Its baseline is the sequential floor, computed
// from that latency: one round trip a file, one file after another, 500
// × 50 ms = 25 s, which neither side can beat when it moves one file at
// a time. Metrics, from the fastest of b.N runs: "up-s" and "down-s" the
// wall times (the command's start, list_runtimes, the listing and
// directory requests included); "floor-s" the sequential floor;
// "up-ratio" and "down-ratio" = wall ÷ floor (goal ≤ 0.3); "up-req/file"
// and "down-req/file" the runtime-proxy requests of one copy divided by
// its files (goal ≤ 2: one PUT or one GET a file, plus the copy's few
// listing, stat and mkdir requests). Each run takes about 3.5 s a side
// with the default 8 jobs.
func BenchmarkCopyTree(b *testing.B) {
	const (
		nFiles  = 500
		size    = 4 << 10
		latency = 50 * time.Millisecond
	)
	isolate(b)
	srv, ep, tok := statusEmulator(b, colabfake.Options{ProxyLatency: latency, TokenTTL: 24 * time.Hour}, 0)
	if _, err := srv.AddRuntime(api.Runtime{Name: "runtimes/rt-bench", ConnectionInfo: &api.ConnectionInfo{}}); err != nil {
		b.Fatal(err)
	}
	tmp := b.TempDir()
	src := filepath.Join(tmp, "src")
	if err := os.Mkdir(src, 0o755); err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, size)
	for i := range nFiles {
		rand.Read(buf)
		if err := os.WriteFile(filepath.Join(src, fmt.Sprintf("f%04d.bin", i)), buf, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	flags := []string{"--endpoint", ep, "--access-token-file", tok}
	// cp runs one copy and returns its wall time and runtime-proxy
	// requests per file.
	cp := func(from, to string) (time.Duration, float64) {
		before, _ := srv.ProxyRequests()
		start := time.Now()
		code, out, errs := runCLI(b, append([]string{"cp", "-r", "--json", from, to}, flags...)...)
		d := time.Since(start)
		var sum files.CopySummary
		if err := json.Unmarshal([]byte(out), &sum); code != 0 || err != nil || len(sum.Files) != nFiles {
			b.Fatalf("cp -r %s %s: exit %d, %d files copied (%v)\n%.500s", from, to, code, len(sum.Files), err, errs)
		}
		after, _ := srv.ProxyRequests()
		return d, float64(after-before) / nFiles
	}
	var up, down time.Duration
	var upReq, downReq float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		remote := fmt.Sprintf("rt-bench:/content/up%d", i)
		d, r := cp(src, remote)
		if up == 0 || d < up {
			up = d
		}
		upReq = r
		d, r = cp(remote, filepath.Join(tmp, fmt.Sprintf("down%d", i)))
		if down == 0 || d < down {
			down = d
		}
		downReq = r
	}
	b.StopTimer()
	floor := (nFiles * latency).Seconds()
	b.ReportMetric(up.Seconds(), "up-s")
	b.ReportMetric(down.Seconds(), "down-s")
	b.ReportMetric(floor, "floor-s")
	b.ReportMetric(up.Seconds()/floor, "up-ratio")
	b.ReportMetric(down.Seconds()/floor, "down-ratio")
	b.ReportMetric(upReq, "up-req/file")
	b.ReportMetric(downReq, "down-req/file")
}
