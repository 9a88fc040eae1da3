package transfer

// Download integrity. Each test names the behaviour of
// download.go it guards; each fails when that behaviour is removed.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
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

// scripted is a runtime whose files/ answers are scripted per request,
// for the replies the emulator does not mangle (Content-Range).
type scripted struct {
	data    []byte
	mu      sync.Mutex
	ranges  []string
	replies []func(w http.ResponseWriter, r *http.Request, data []byte) // by files/ request; then plain
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case strings.HasPrefix(r.URL.Path, "/api/contents/"):
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"name":"f.bin","path":"content/f.bin","type":"file","size":%d,"last_modified":"2026-11-29T18:00:00.000000Z","created":"2026-11-29T18:00:00.000000Z","writable":true,"mimetype":null,"format":null,"content":null}`, len(s.data))
	case strings.HasPrefix(r.URL.Path, "/files/"):
		s.mu.Lock()
		n := len(s.ranges)
		s.ranges = append(s.ranges, r.Header.Get("Range"))
		var f func(http.ResponseWriter, *http.Request, []byte)
		if n < len(s.replies) {
			f = s.replies[n]
		}
		s.mu.Unlock()
		if f == nil {
			http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(s.data))
			return
		}
		f(w, r, s.data)
	default:
		http.NotFound(w, r)
	}
}

func (s *scripted) sent() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ranges...)
}

// cutAt answers the whole file but drops the connection after n bytes.
func cutAt(n int) func(http.ResponseWriter, *http.Request, []byte) {
	return func(w http.ResponseWriter, _ *http.Request, data []byte) {
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(data[:n])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}
}

// partial answers 206 with the given Content-Range ("" none) and the
// bytes from `from`.
func partial(contentRange string, from int) func(http.ResponseWriter, *http.Request, []byte) {
	return func(w http.ResponseWriter, _ *http.Request, data []byte) {
		if contentRange != "" {
			w.Header().Set("Content-Range", contentRange)
		}
		w.WriteHeader(http.StatusPartialContent)
		_, _ = w.Write(data[from:])
	}
}

func scriptedClient(t *testing.T, s *scripted) *Copier {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	c := newCopier(t, proxy.Options{Runtime: "runtimes/rt-script", RetryDelay: time.Millisecond,
		Info: api.ConnectionInfo{URL: srv.URL + "/", Token: "script-token", ExpireTime: time.Now().Add(time.Hour)}})
	return c
}

// Guards the restart family: a resume the server answers with 416, an
// unreadable Content-Range, a Content-Range of another total size, one
// starting elsewhere than asked, or a 206 without Content-Range is never
// appended to the part: the download starts again from byte 0 (a request
// without Range) and ends with the right bytes.
func TestDownloadRestartFamily(t *testing.T) {
	const size, cut = 1 << 20, 300_000
	for _, tc := range []struct {
		name  string
		reply func(http.ResponseWriter, *http.Request, []byte)
	}{
		{"416", func(w http.ResponseWriter, _ *http.Request, _ []byte) {
			w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
		}},
		{"unreadable Content-Range", partial("bytes garbage", cut)},
		{"Content-Range of another size", partial(fmt.Sprintf("bytes %d-%d/%d", cut, size+99, size+100), cut)},
		{"Content-Range starting further on", partial(fmt.Sprintf("bytes %d-%d/%d", cut+1000, size-1, size), cut+1000)},
		{"206 without Content-Range", partial("", cut)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &scripted{data: randomBytes(size, 38), replies: []func(http.ResponseWriter, *http.Request, []byte){cutAt(cut), tc.reply}}
			c := scriptedClient(t, s)
			dir := t.TempDir()
			out := filepath.Join(dir, "out.bin")
			if _, err := download(t, c, "content/f.bin", out); err != nil {
				t.Fatalf("download: %v", err)
			}
			if got := fileSHA(t, out); got != shaOf(s.data) {
				t.Fatalf("SHA-256 %s, want %s: a mangled resume was appended", got, shaOf(s.data))
			}
			want := []string{"", "bytes=" + strconv.Itoa(cut) + "-", ""}
			if got := s.sent(); strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("Range headers %q, want %q (cut, resume, restart from 0)", got, want)
			}
			noLeftovers(t, dir, "out.bin")
		})
	}
}

// Guards the restart bound: a server that mangles every resume makes
// the download fail with proxy.ErrCorrupt after a few restarts (not loop for
// ever), and no part file is left.
func TestDownloadRestartsBounded(t *testing.T) {
	const size, cut = 1 << 20, 300_000
	var replies []func(http.ResponseWriter, *http.Request, []byte)
	for range 10 {
		replies = append(replies, cutAt(cut), partial("", cut))
	}
	s := &scripted{data: randomBytes(size, 39), replies: replies}
	c := scriptedClient(t, s)
	dir := t.TempDir()
	_, err := download(t, c, "content/f.bin", filepath.Join(dir, "out.bin"))
	if !errors.Is(err, proxy.ErrCorrupt) {
		t.Fatalf("every resume mangled: %v, want proxy.ErrCorrupt", err)
	}
	if n := len(s.sent()); n > 8 {
		t.Errorf("%d requests before giving up, want a few restarts", n)
	}
	// The first request and two restarts from byte 0, then it gives up.
	fromZero := 0
	for _, rng := range s.sent() {
		if rng == "" {
			fromZero++
		}
	}
	if fromZero != 3 {
		t.Errorf("%d requests from byte 0 (%q), want 3: the first and two restarts", fromZero, s.sent())
	}
	noLeftovers(t, dir)
}
