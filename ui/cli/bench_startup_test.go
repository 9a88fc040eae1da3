package cli

import (
	"fmt"
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
// stripped (-s -w), with env added to the environment.
func releaseBuild(tb testing.TB, dir, pkg, bin string, env ...string) {
	tb.Helper()
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, pkg)
	cmd.Dir, cmd.Env = dir, append(append(initialEnv[:len(initialEnv):len(initialEnv)], "CGO_ENABLED=0"), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
}

// buildHello builds helloProgram with the same toolchain and flags as
// releaseBuild.
func buildHello(tb testing.TB) string {
	tb.Helper()
	return buildProgram(tb, "hello", helloProgram, "module hello\n\ngo 1.24\n", nil)
}

// buildProgram writes main.go (body) and go.mod (mod, with go.sum when
// sum is not nil) in a directory of its own and builds it as
// releaseBuild does, without the network (GOPROXY=off: every module comes
// from the module cache colabdash's own build filled).
func buildProgram(tb testing.TB, name, body, mod string, sum []byte) string {
	tb.Helper()
	dir := tb.TempDir()
	files := map[string][]byte{"main.go": []byte(body), "go.mod": []byte(mod)}
	if sum != nil {
		files["go.sum"] = sum
	}
	for file, data := range files {
		if err := os.WriteFile(filepath.Join(dir, file), data, 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	bin := filepath.Join(dir, name)
	releaseBuild(tb, dir, ".", bin, "GOPROXY=off", "GOFLAGS=-mod=mod")
	return bin
}

// cardLibraries are the libraries the design card names for every
// colabdash: the dashboard's (Bubble Tea, Lip Gloss, Bubbles), Google's
// OAuth 2 and the MCP SDK.
var cardLibraries = []string{
	"github.com/charmbracelet/bubbles/viewport",
	"github.com/charmbracelet/bubbletea",
	"github.com/charmbracelet/lipgloss",
	"github.com/modelcontextprotocol/go-sdk/mcp",
	"golang.org/x/oauth2/google",
}

// buildLibraryFloor builds, as releaseBuild does, a program that links
// libs (import paths, imported for their initialisation alone) and does
// what helloProgram does: what any program linking them costs at start,
// before a line of colabdash runs. Its go.mod requires what colabdash's
// does (the same versions).
func buildLibraryFloor(tb testing.TB, name string, libs []string) string {
	tb.Helper()
	root := moduleRoot(tb)
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		tb.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		tb.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(mod), "\n")
	var body strings.Builder
	body.WriteString("package main\n\nimport (\n\t\"os\"\n")
	for _, l := range libs {
		fmt.Fprintf(&body, "\t_ %q\n", l)
	}
	body.WriteString(")\n\nfunc main() { os.Stdout.WriteString(\"hello\\n\") }\n")
	return buildProgram(tb, name, body.String(), "module "+name+"\n"+rest, sum)
}

// linkedLibraries are the packages of other modules colabdash's binary
// links that a program may import (go list -deps of the main package,
// internal packages left out: what they initialise, the packages that
// import them bring along).
func linkedLibraries(tb testing.TB) []string {
	tb.Helper()
	cmd := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".")
	cmd.Dir, cmd.Env = moduleRoot(tb), initialEnv
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("go list -deps: %v", err)
	}
	var libs []string
	for _, p := range strings.Fields(string(out)) {
		if !strings.HasPrefix(p, "github.com/colabdash/colabdash") && !strings.Contains(p, "/internal") && !strings.HasPrefix(p, "vendor/") {
			libs = append(libs, p)
		}
	}
	return libs
}

// moduleRoot is colabdash's module directory (go.mod's).
func moduleRoot(tb testing.TB) string {
	tb.Helper()
	cmd := exec.Command("go", "env", "GOMOD")
	cmd.Env = initialEnv
	out, err := cmd.Output()
	if err != nil || len(strings.TrimSpace(string(out))) == 0 {
		tb.Fatalf("go env GOMOD: %v", err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
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
// binary-MB the release binary's size. Two floors run in the same turns
// (buildLibraryFloor), their CPU over hello's the same way: x-hello-cpu-card
// a program that links only the design card's libraries (cardLibraries),
// x-hello-cpu-libs one that links every library colabdash links
// (linkedLibraries). The binary the other tests use (binary: go build's
// defaults, cgo on where a C compiler is) starts 10-20 % slower
// (measured), in the dynamic loader and the C library's thread set-up.
func BenchmarkStartup(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "colabdash")
	releaseBuild(b, ".", "github.com/colabdash/colabdash", bin)
	hello := buildHello(b)
	card := buildLibraryFloor(b, "cardfloor", cardLibraries)
	libs := buildLibraryFloor(b, "libsfloor", linkedLibraries(b))
	cpuOver := func(cpu, hcpu time.Duration) float64 {
		return float64(cpu) / float64(max(hcpu, time.Millisecond))
	}
	var ver, hel, ratios, cpuRatios, cardRatios, libsRatios []float64
	for b.Loop() {
		for _, p := range []string{bin, hello, card, libs} { // the page cache holds them all from here on
			timeRun(b, p, "version")
		}
		for range 41 {
			v, vcpu := timeRun(b, bin, "version")
			h, hcpu := timeRun(b, hello)
			_, ccpu := timeRun(b, card)
			_, lcpu := timeRun(b, libs)
			ver, hel = append(ver, ms(v)), append(hel, ms(h))
			ratios = append(ratios, float64(v)/float64(h))
			cpuRatios = append(cpuRatios, cpuOver(vcpu, hcpu))
			cardRatios = append(cardRatios, cpuOver(ccpu, hcpu))
			libsRatios = append(libsRatios, cpuOver(lcpu, hcpu))
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
	b.ReportMetric(medianOf(cardRatios), "x-hello-cpu-card")
	b.ReportMetric(medianOf(libsRatios), "x-hello-cpu-libs")
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
