package transfer

import (
	"context"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// BenchmarkProxyThroughput moves the same 32 MiB through the emulator's
// runtime proxy with the Client (Upload: one base64 request to a part
// file, a size check and a rename; Download: GET /files/ to a part file,
// fsync, rename) and with plain curl (one PUT of the same JSON body; one
// GET of the same file to /dev/null), in the same run against the same
// server. Metrics: MB/s of each, and ratio = client MB/s ÷ curl MB/s for
// upload and download (1.0 = as fast as curl).
func BenchmarkProxyThroughput(b *testing.B) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		b.Skip("curl is not installed: no baseline")
	}
	const size = 32 << 20
	e := newEnv(b, jupytertest.Emulator, colabfake.Options{TokenTTL: 24 * time.Hour})
	c := e.client()
	dir := b.TempDir()
	src := filepath.Join(dir, "src.bin")
	writeRandom(b, src, size, 42)
	// curl's upload body: the same JSON the client streams.
	raw, _ := os.ReadFile(src)
	body := filepath.Join(dir, "body.json")
	if err := os.WriteFile(body, []byte(`{"type":"file","format":"base64","content":"`+base64.StdEncoding.EncodeToString(raw)+`"}`), 0o600); err != nil {
		b.Fatal(err)
	}
	raw = nil
	tok := e.Rt.ConnectionInfo.Token
	base := e.Rt.ConnectionInfo.URL
	runCurl := func(args ...string) time.Duration {
		b.Helper()
		start := time.Now()
		out, err := exec.Command(curl, append([]string{"-sS", "-f", "-o", "/dev/null", "-H", proxy.TokenHeader + ": " + tok}, args...)...).CombinedOutput()
		if err != nil {
			b.Fatalf("curl: %v %s", err, out)
		}
		return time.Since(start)
	}
	mbps := func(d time.Duration) float64 { return float64(size) / 1e6 / d.Seconds() }
	var up, down, cup, cdown time.Duration
	ctx := context.Background()
	b.SetBytes(2 * size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, _ := os.Open(src)
		start := time.Now()
		if _, err := c.Upload(ctx, "content/bench.bin", f, size, nil); err != nil {
			b.Fatal(err)
		}
		up += time.Since(start)
		f.Close()
		out := filepath.Join(dir, "out.bin")
		start = time.Now()
		if _, err := c.Download(ctx, "content/bench.bin", out, nil); err != nil {
			b.Fatal(err)
		}
		down += time.Since(start)
		os.Remove(out)
		cup += runCurl("-X", "PUT", "-H", "Content-Type: application/json", "-H", "Expect:", "-T", body, base+"api/contents/content/curl.bin")
		cdown += runCurl(base + "files/content/curl.bin")
	}
	b.StopTimer()
	n := time.Duration(b.N)
	b.ReportMetric(mbps(up/n), "up-MB/s")
	b.ReportMetric(mbps(cup/n), "curl-up-MB/s")
	b.ReportMetric(mbps(down/n), "down-MB/s")
	b.ReportMetric(mbps(cdown/n), "curl-down-MB/s")
	b.ReportMetric(float64(cup)/float64(up), "up-ratio")
	b.ReportMetric(float64(cdown)/float64(down), "down-ratio")
}
