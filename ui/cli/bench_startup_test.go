package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// helloProgram is the least a Go program does: start, print a line, exit.
const helloProgram = "package main\n\nimport \"os\"\n\nfunc main() { os.Stdout.WriteString(\"hello\\n\") }\n"

// releaseBuild builds the main package in dir (a path or "." in the
// module there) into bin the way .goreleaser.yaml builds colabdash: no
// cgo (a static binary, as shipped), -trimpath, symbols and DWARF
// stripped (-s -w).
func releaseBuild(tb testing.TB, dir, pkg, bin string) {
	tb.Helper()
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, pkg)
	cmd.Dir, cmd.Env = dir, append(initialEnv[:len(initialEnv):len(initialEnv)], "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
}

// buildHello builds helloProgram with the same toolchain and flags as
// releaseBuild.
func buildHello(tb testing.TB) string {
	tb.Helper()
	dir := tb.TempDir()
	for name, body := range map[string]string{"main.go": helloProgram, "go.mod": "module hello\n\ngo 1.24\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "hello")
	releaseBuild(tb, dir, ".", bin)
	return bin
}

// timeRun is the wall time and the CPU time (user + system) of one run
// of bin args, output discarded.
func timeRun(tb testing.TB, bin string, args ...string) (wall, cpu time.Duration) {
	tb.Helper()
	cmd := exec.Command(bin, args...)
	start := time.Now()
	if err := cmd.Run(); err != nil {
		tb.Fatalf("%s %v: %v", bin, args, err)
	}
	return time.Since(start), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// initTrace runs bin args once with GODEBUG=inittrace=1 and adds up what
// the runtime reports of every package initialisation: how many ran and
// the bytes and allocations they made (counts no load moves).
func initTrace(tb testing.TB, bin string, args ...string) (inits, bytes, allocs int) {
	tb.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		tb.Fatalf("%s %v: %v", bin, args, err)
	}
	// init PKG @0.1 ms, 0.02 ms clock, 1664 bytes, 24 allocs
	for _, line := range strings.Split(stderr.String(), "\n") {
		f := strings.Fields(line)
		if len(f) != 11 || f[0] != "init" || f[8] != "bytes," || f[10] != "allocs" {
			continue
		}
		by, err := strconv.Atoi(f[7])
		if err != nil {
			tb.Fatalf("inittrace line %q: %v", line, err)
		}
		al, err := strconv.Atoi(f[9])
		if err != nil {
			tb.Fatalf("inittrace line %q: %v", line, err)
		}
		inits, bytes, allocs = inits+1, bytes+by, allocs+al
	}
	if inits == 0 {
		tb.Fatalf("no inittrace lines from %s:\n%s", bin, stderr.String())
	}
	return inits, bytes, allocs
}

// BenchmarkStartup runs `colabdash version` and a minimal Go program
// (helloProgram), both built as a release builds colabdash
// (releaseBuild: static, stripped), in turn, 41 pairs: x-hello is the
// median of the pairs' ratios, which a busy machine moves far less than
// either time, as the two runs of a pair meet the same machine;
// x-hello-cpu the same of their CPU times (user + system; the kernel
// counts them in ticks of a few milliseconds, so hello's is taken as at
// least 1 ms). version-ms and hello-ms are the medians (reported),
// binary-MB the release binary's size. The binary the other tests use
// (binary: go build's defaults, cgo on where a C compiler is) starts
// 10-20 % slower (measured), in the dynamic loader and the C library's thread
// set-up.
func BenchmarkStartup(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "colabdash")
	releaseBuild(b, ".", "github.com/colabdash/colabdash", bin)
	hello := buildHello(b)
	var ver, hel, ratios, cpuRatios []float64
	for b.Loop() {
		timeRun(b, bin, "version") // the page cache holds both from here on
		timeRun(b, hello)
		for range 41 {
			v, vcpu := timeRun(b, bin, "version")
			h, hcpu := timeRun(b, hello)
			ver, hel = append(ver, ms(v)), append(hel, ms(h))
			ratios = append(ratios, float64(v)/float64(h))
			cpuRatios = append(cpuRatios, float64(vcpu)/float64(max(hcpu, time.Millisecond)))
		}
	}
	inits, bytes, allocs := initTrace(b, bin, "version")
	b.ReportMetric(float64(inits), "inits")
	b.ReportMetric(float64(bytes)/1024, "init-kB")
	b.ReportMetric(float64(allocs), "init-allocs")
	fi, err := os.Stat(bin)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(medianOf(ver), "version-ms")
	b.ReportMetric(medianOf(hel), "hello-ms")
	b.ReportMetric(medianOf(ratios), "x-hello")
	b.ReportMetric(medianOf(cpuRatios), "x-hello-cpu")
	b.ReportMetric(float64(fi.Size())/(1<<20), "binary-MB")
	b.ReportMetric(0, "ns/op")
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// medianOf is the median of xs (sorted in place).
func medianOf(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
