package transfer

// Download integrity. Each test names the behaviour of
// download.go it guards; each fails when that behaviour is removed.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// randomBytes returns n seeded pseudo-random bytes.
func randomBytes(n int, seed uint64) []byte {
	b := make([]byte, n)
	r := rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8), 9, 9})
	_, _ = r.Read(b)
	return b
}

func shaOf(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// keepPart runs a download of remote to out that is cut after `after`
// bytes and then refused, so it gives up keeping its part file.
func keepPart(t *testing.T, e *env, remote, out string, after int64) {
	t.Helper()
	c := e.client(func(o *proxy.Options) { o.MaxRetries = 1 })
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyCut, Method: http.MethodGet, PathPrefix: "files/", After: after})
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Method: http.MethodGet, PathPrefix: "files/", Status: 503})
	_, err := download(t, c, remote, out)
	if err == nil || !strings.Contains(err.Error(), "kept in") {
		t.Fatalf("first run: %v, want a failure that keeps the part file", err)
	}
	if st, serr := os.Stat(out + PartSuffix); serr != nil || st.Size() == 0 {
		t.Fatalf("no part file kept: %v", serr)
	}
}

// Guards: a kept part file is resumed only for the same version of the
// remote file. Here the remote file is rewritten between the two runs
// with new content and size but the same modification time (cp -p, an
// unpacked archive): resuming the old part would complete it with the new
// version's tail, a silently corrupt file of the right size.
func TestDownloadKeptPartOfAnotherVersionRestarts(t *testing.T) {
	e, c := newEnvClient(t, jupytertest.Emulator)
	dir := t.TempDir()
	src := filepath.Join(dir, "v1.bin")
	putRandom(t, c, src, 6*mib, 31, e.P("data.bin"))
	out := filepath.Join(dir, "out.bin")
	keepPart(t, e, e.P("data.bin"), out, 2*mib)

	mt, err := e.Srv.ModTime(string(e.Rt.Name), e.P("data.bin"))
	if err != nil {
		t.Fatal(err)
	}
	v2 := randomBytes(8*mib, 32)
	if err := e.Srv.ReplaceFile(string(e.Rt.Name), e.P("data.bin"), v2, mt); err != nil {
		t.Fatal(err)
	}
	sent := fileRanges(e)
	if _, err := download(t, c, e.P("data.bin"), out); err != nil {
		t.Fatalf("second run: %v", err)
	}
	if got := fileSHA(t, out); got != shaOf(v2) {
		t.Fatalf("the download of the new version has SHA-256 %s, want %s: the old version's part was resumed", got, shaOf(v2))
	}
	ranges := sent()
	if len(ranges) != 1 || ranges[0] != "" {
		t.Errorf("second run sent Range %q, want one request from the start", ranges)
	}
	noLeftovers(t, dir, "out.bin", "v1.bin")
}

// Guards: a kept part file belongs to one remote file. Two remote files
// with the same modification time (unpacked from one archive) downloaded
// in turn to the same target: the second must not resume the first's
// part.
func TestDownloadKeptPartOfAnotherRemoteFileRestarts(t *testing.T) {
	e, c := newEnvClient(t, jupytertest.Emulator)
	dir := t.TempDir()
	src := filepath.Join(dir, "a.bin")
	putRandom(t, c, src, 4*mib, 33, e.P("a.bin"))
	b := randomBytes(4*mib, 34) // the same size as a.bin: only the path tells them apart
	srcB := filepath.Join(dir, "b.bin")
	if err := os.WriteFile(srcB, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := upload(t, c, srcB, e.P("b.bin")); err != nil {
		t.Fatal(err)
	}
	mt, _ := e.Srv.ModTime(string(e.Rt.Name), e.P("a.bin"))
	if err := e.Srv.ReplaceFile(string(e.Rt.Name), e.P("b.bin"), b, mt); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.bin")
	keepPart(t, e, e.P("a.bin"), out, 1*mib)
	if _, err := download(t, c, e.P("b.bin"), out); err != nil {
		t.Fatal(err)
	}
	if got := fileSHA(t, out); got != shaOf(b) {
		t.Fatalf("b.bin downloaded over a.bin's part has SHA-256 %s, want %s", got, shaOf(b))
	}
}

// Guards the same-version half: a part kept by an interrupted run, the
// remote file untouched, is resumed from where it stopped (one ranged
// request) and the result is whole, even when the emulator rewrote its
// modification time to the same value.
func TestDownloadKeptPartSameVersionResumes(t *testing.T) {
	e, c := newEnvClient(t, jupytertest.Emulator)
	dir := t.TempDir()
	data := randomBytes(3*mib, 35)
	src := filepath.Join(dir, "s.bin")
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := upload(t, c, src, e.P("s.bin")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.bin")
	keepPart(t, e, e.P("s.bin"), out, 1*mib)
	sent := fileRanges(e)
	wantDownloaded(t, c, e.P("s.bin"), out, shaOf(data))
	ranges := sent()
	if len(ranges) != 1 || !strings.HasPrefix(ranges[0], "bytes=") || ranges[0] == "bytes=0-" {
		t.Errorf("resumed run sent Range %q, want one request resuming past byte 0", ranges)
	}
	noLeftovers(t, dir, "out.bin", "s.bin")
}

// Guards the idle watchdog: a transfer that stops sending without the
// connection dropping is given up after IdleTimeout and resumed with
// Range, instead of hanging until the user's deadline.
func TestDownloadStallResumedByWatchdog(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	dir := t.TempDir()
	data := randomBytes(3*mib, 36)
	src := filepath.Join(dir, "s.bin")
	_ = os.WriteFile(src, data, 0o644)
	// The file goes up with the default watchdog: only the download is
	// under test, and a loaded machine may pause an upload for 300 ms.
	if _, err := upload(t, e.client(), src, e.P("s.bin")); err != nil {
		t.Fatal(err)
	}
	c := e.client(func(o *proxy.Options) { o.IdleTimeout = 300 * time.Millisecond })
	sent := fileRanges(e)
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStall, Method: http.MethodGet, PathPrefix: "files/", After: 1 * mib})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out := filepath.Join(dir, "out.bin")
	if _, err := c.Download(ctx, e.P("s.bin"), out, nil); err != nil {
		t.Fatalf("a stalled download was not resumed: %v", err)
	}
	if got := fileSHA(t, out); got != shaOf(data) {
		t.Fatalf("SHA-256 %s, want %s", got, shaOf(data))
	}
	ranges := sent()
	// A loaded machine may trip the watchdog again on the way: every
	// later request resumes past byte 0.
	if len(ranges) < 2 || ranges[0] != "" {
		t.Fatalf("Range headers %q, want a full request then resuming ones", ranges)
	}
	for _, r := range ranges[1:] {
		if !strings.HasPrefix(r, "bytes=") || r == "bytes=0-" {
			t.Fatalf("Range headers %q, want every request after the first to resume past byte 0", ranges)
		}
	}
}

// Guards the idle watchdog before any byte: a request the runtime never
// answers (no reply, the connection left open) is given up after
// IdleTimeout as a transient failure and tried again, for a download (a
// GET of /files/) and an upload (a PUT), instead of failing the copy
// with the watchdog's own cancellation. The short IdleTimeout is the
// seam: the test waits for it once per transfer, never for a fixed time.
func TestUnansweredRequestRetriedByWatchdog(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	dir := t.TempDir()
	src := filepath.Join(dir, "s.txt")
	must(t, os.WriteFile(src, []byte("small file"), 0o644))
	c := e.client(func(o *proxy.Options) { o.IdleTimeout = time.Second })
	var mu sync.Mutex
	var sent []string
	e.SetOnProxy(func(r *http.Request) {
		if r.Method == http.MethodPut || strings.Contains(r.URL.Path, "/files/") {
			mu.Lock()
			sent = append(sent, r.Method)
			mu.Unlock()
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	count := func(method string) int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, m := range sent {
			if m == method {
				n++
			}
		}
		return n
	}
	// No reply until the client gives up (FaultDelay ends early then).
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyDelay, Method: http.MethodPut, PathPrefix: "api/contents/", Delay: 10 * time.Minute})
	if _, err := upload(t, c, src, e.P("s.txt")); err != nil {
		t.Fatalf("an upload whose first PUT got no reply was not tried again: %v", err)
	}
	if n := count(http.MethodPut); n < 2 {
		t.Errorf("%d PUTs, want the unanswered one and another", n)
	}
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyDelay, Method: http.MethodGet, PathPrefix: "files/", Delay: 10 * time.Minute})
	out := filepath.Join(dir, "out.txt")
	if _, err := c.Download(ctx, e.P("s.txt"), out, nil); err != nil {
		t.Fatalf("a download whose GET got no reply was not tried again: %v", err)
	}
	if got := readOr(t, out); got != "small file" {
		t.Errorf("downloaded %q", got)
	}
	if n := count(http.MethodGet); n < 2 {
		t.Errorf("%d GETs of /files/, want the unanswered one and another", n)
	}
}

// recordingPart notes the furthest byte written to the part file.
type recordingPart struct {
	partFile
	max *atomic.Int64
}

func (r *recordingPart) WriteAt(p []byte, off int64) (int, error) {
	for end := off + int64(len(p)); ; {
		cur := r.max.Load()
		if end <= cur || r.max.CompareAndSwap(cur, end) {
			break
		}
	}
	return r.partFile.WriteAt(p, off)
}

// Guards: a reply longer than the size the runtime reported is stopped
// at that size (never written on to fill the disk) and the download
// restarts, ending with the right file.
func TestDownloadOverlongReplyStopsAtSize(t *testing.T) {
	e, c := newEnvClient(t, jupytertest.Emulator)
	var max atomic.Int64
	c.wrapPart = func(f partFile) partFile { return &recordingPart{partFile: f, max: &max} }
	dir := t.TempDir()
	data := randomBytes(2*mib+17, 37)
	src := filepath.Join(dir, "s.bin")
	_ = os.WriteFile(src, data, 0o644)
	if _, err := upload(t, c, src, e.P("s.bin")); err != nil {
		t.Fatal(err)
	}
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyOverlong, Method: http.MethodGet, PathPrefix: "files/", After: 4 * mib})
	out := filepath.Join(dir, "out.bin")
	if _, err := download(t, c, e.P("s.bin"), out); err != nil {
		t.Fatalf("download after an overlong reply: %v", err)
	}
	if got := fileSHA(t, out); got != shaOf(data) {
		t.Fatalf("SHA-256 %s, want %s", got, shaOf(data))
	}
	// One read past the size is written before the check sees it.
	if m := max.Load(); m > int64(len(data))+256<<10 {
		t.Fatalf("the part file was written up to byte %d of a %d-byte file: the overlong reply was not stopped at the size", m, len(data))
	}
}
