package transfer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/testkit"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

const mib = 1 << 20

// writeRandom writes size pseudo-random bytes (seeded) to path and returns
// their SHA-256, streaming (never holding the file in memory).
func writeRandom(t testing.TB, path string, size int64, seed uint64) string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8), 1, 2, 3})
	if _, err := io.CopyN(f, r, size); err != nil {
		f.Close()
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return fileSHA(t, path)
}

func fileSHA(t testing.TB, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func upload(t testing.TB, c *Copier, local, remote string) (proxy.Model, error) {
	t.Helper()
	f, err := os.Open(local)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	return c.Upload(ctx, remote, f, st.Size(), nil)
}

func download(t testing.TB, c *Copier, remote, local string) (proxy.Model, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	return c.Download(ctx, remote, local, nil)
}

// putRandom writes size pseudo-random bytes (seeded) to the local file
// src and uploads it to remote, failing the test when either fails: the
// bytes' SHA-256.
func putRandom(t testing.TB, c *Copier, src string, size int64, seed uint64, remote string) string {
	t.Helper()
	sum := writeRandom(t, src, size, seed)
	if _, err := upload(t, c, src, remote); err != nil {
		t.Fatalf("upload of %s: %v", src, err)
	}
	return sum
}

// stageRandom makes a new local directory dir holding src.bin, size
// pseudo-random bytes (seeded), and uploads it as name in e's remote
// directory (putRandom): dir and the bytes' SHA-256.
func stageRandom(t testing.TB, e *env, c *Copier, name string, size int64, seed uint64) (dir, sum string) {
	t.Helper()
	dir = t.TempDir()
	return dir, putRandom(t, c, filepath.Join(dir, "src.bin"), size, seed, e.P(name))
}

// wantDownloaded downloads remote to the local path and fails the test
// unless that succeeds with bytes of SHA-256 want.
func wantDownloaded(t testing.TB, c *Copier, remote, local, want string) {
	t.Helper()
	if _, err := download(t, c, remote, local); err != nil {
		t.Fatalf("download of %s: %v", remote, err)
	}
	if got := fileSHA(t, local); got != want {
		t.Fatalf("SHA-256 of the download of %s %s, want %s", remote, got, want)
	}
}

// fileRanges records the Range header ("" for none) of each files/
// request e's proxy gets from now on: a function returning those so far.
func fileRanges(e *env) func() []string {
	var mu sync.Mutex
	var ranges []string
	e.SetOnProxy(func(r *http.Request) {
		if strings.Contains(r.URL.Path, "/files/") {
			mu.Lock()
			ranges = append(ranges, r.Header.Get("Range"))
			mu.Unlock()
		}
	})
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), ranges...)
	}
}

// noLeftovers fails when dir holds anything but the names given.
func noLeftovers(t testing.TB, dir string, want ...string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("local directory holds %v, want exactly %v", got, want)
	}
}

// remoteNames lists a remote directory's entry names.
func remoteNames(t testing.TB, c *Copier, dir string) []string {
	t.Helper()
	m, err := c.List(context.Background(), dir)
	if err != nil {
		t.Fatalf("list %s: %v", dir, err)
	}
	var out []string
	for _, e := range m.Entries {
		out = append(out, e.Name)
	}
	sort.Strings(out) // Jupyter lists in directory order
	return out
}

// Done-when: a 120 MB file uploaded and downloaded with equal SHA-256, in
// chunks under 50 MB, without holding it in memory several times.
func TestLargeFileRoundTrip(t *testing.T) {
	forEachEnvClient(t, func(t *testing.T, e *env, c *Copier) {
		dir := t.TempDir()
		src := filepath.Join(dir, "big.bin")
		const size = 120*mib + 1
		want := writeRandom(t, src, size, 1)
		var puts atomic.Int32
		e.SetOnProxy(func(r *http.Request) {
			if r.Method == http.MethodPut {
				puts.Add(1)
				if r.ContentLength >= 50_000_000 {
					t.Errorf("a PUT carries %d bytes, not under 50 MB", r.ContentLength)
				}
			}
		})
		m, err := upload(t, c, src, e.P("big.bin"))
		if err != nil {
			t.Fatalf("upload: %v", err)
		}
		if m.Size != size || m.Name != "big.bin" {
			t.Fatalf("uploaded model %+v, want big.bin of %d bytes", m, size)
		}
		if n := puts.Load(); n != 4 {
			t.Errorf("%d PUTs for 120 MiB + 1 byte, want 4 chunks of at most 36 MB", n)
		}
		if got := remoteNames(t, c, e.Dir); strings.Join(got, ",") != "big.bin" {
			t.Errorf("remote directory holds %v, want only big.bin (no part file)", got)
		}
		out := filepath.Join(dir, "copy.bin")
		if _, err := download(t, c, e.P("big.bin"), out); err != nil {
			t.Fatalf("download: %v", err)
		}
		if got := fileSHA(t, out); got != want {
			t.Fatalf("SHA-256 after the round trip %s, want %s", got, want)
		}
		noLeftovers(t, dir, "big.bin", "copy.bin")
	})
}

// Done-when: a download cut mid-way resumes with Range from where it was.
func TestDownloadResumesAfterCut(t *testing.T) {
	forEachEnvClient(t, func(t *testing.T, e *env, c *Copier) {
		dir, want := stageRandom(t, e, c, "big.bin", 30*mib, 2)
		sent := fileRanges(e)
		e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyCut, Method: http.MethodGet, PathPrefix: "files/", After: 10 * mib})
		out := filepath.Join(dir, "out.bin")
		wantDownloaded(t, c, e.P("big.bin"), out, want)
		ranges := sent()
		if len(ranges) != 2 || ranges[0] != "" || !strings.HasPrefix(ranges[1], "bytes=") || ranges[1] == "bytes=0-" {
			t.Fatalf("GET /files/ Range headers %q, want a full request then one resuming past byte 0", ranges)
		}
		noLeftovers(t, dir, "out.bin", "src.bin")
	})
}

// A resume answered 200 with the whole file (Range
// ignored) is rewritten from byte 0, not appended.
func TestDownloadRangeIgnored(t *testing.T) {
	e, c := newEnvClient(t, jupytertest.Emulator)
	dir, want := stageRandom(t, e, c, "f.bin", 8*mib, 3)
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyCut, Method: http.MethodGet, PathPrefix: "files/", After: 3 * mib})
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyIgnoreRange, Method: http.MethodGet, PathPrefix: "files/", Skip: 1})
	out := filepath.Join(dir, "out.bin")
	if _, err := download(t, c, e.P("f.bin"), out); err != nil {
		t.Fatal(err)
	}
	if got := fileSHA(t, out); got != want {
		t.Fatalf("SHA-256 %s, want %s (a 200 was appended to the partial file?)", got, want)
	}
}

// Done-when: a token that expires during an upload is renewed through
// get_runtime and the upload completes without restarting.
func TestTokenExpiresDuringUpload(t *testing.T) {
	jupytertest.ForEachBackend(t, func(t *testing.T, be jupytertest.Backend) {
		e := newEnv(t, be, colabfake.Options{})
		// The client's own clock never sees the expiry coming, so the
		// proxy's 404 is what triggers the renewal.
		c := e.client(func(o *proxy.Options) { o.Now = func() time.Time { return jupytertest.T0 }; o.ChunkSize = 3 * mib })
		dir := t.TempDir()
		src := filepath.Join(dir, "src.bin")
		want := writeRandom(t, src, 10*mib, 4)
		var puts atomic.Int32
		e.SetOnProxy(func(r *http.Request) {
			if r.Method == http.MethodPut && puts.Add(1) == 2 {
				e.Clk.Advance(2 * time.Hour) // chunk 2 arrives with an expired token
			}
		})
		before := e.Srv.CallCount("get_runtime")
		if _, err := upload(t, c, src, e.P("up.bin")); err != nil {
			t.Fatalf("upload: %v", err)
		}
		if n := e.Srv.CallCount("get_runtime") - before; n != 1 {
			t.Errorf("get_runtime called %d times, want 1 renewal", n)
		}
		if _, refused := e.Srv.ProxyRequests(); refused != 1 {
			t.Errorf("proxy refused %d requests, want exactly the one with the expired token", refused)
		}
		if n := puts.Load(); n != 5 {
			t.Errorf("%d PUTs, want 5 (4 chunks, chunk 2 sent again; no restart from chunk 1)", n)
		}
		out := filepath.Join(dir, "out.bin")
		wantDownloaded(t, c, e.P("up.bin"), out, want)
	})
}

// Done-when: a token that expires during a download (the connection drops
// and the token is stale when it resumes) is renewed and the download
// completes.
func TestTokenExpiresDuringDownload(t *testing.T) {
	jupytertest.ForEachBackend(t, func(t *testing.T, be jupytertest.Backend) {
		e := newEnv(t, be, colabfake.Options{})
		c := e.client(func(o *proxy.Options) { o.Now = func() time.Time { return jupytertest.T0 } })
		dir, want := stageRandom(t, e, c, "d.bin", 12*mib, 5)
		var gets atomic.Int32
		e.SetOnProxy(func(r *http.Request) {
			if strings.Contains(r.URL.Path, "/files/") && gets.Add(1) == 2 {
				e.Clk.Advance(2 * time.Hour)
			}
		})
		e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyCut, Method: http.MethodGet, PathPrefix: "files/", After: 5 * mib})
		out := filepath.Join(dir, "out.bin")
		wantDownloaded(t, c, e.P("d.bin"), out, want)
		if c.Renewals() != 1 {
			t.Errorf("%d renewals, want 1", c.Renewals())
		}
	})
}

// The token is renewed before it expires when the client's clock says
// less than RenewLead is left: no request is refused at all.
func TestTokenRenewedAhead(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client(func(o *proxy.Options) { o.ChunkSize = 3 * mib })
	dir := t.TempDir()
	src := filepath.Join(dir, "src.bin")
	writeRandom(t, src, 7*mib, 6)
	var puts atomic.Int32
	e.SetOnProxy(func(r *http.Request) {
		if r.Method == http.MethodPut && puts.Add(1) == 1 {
			e.Clk.Advance(57 * time.Minute) // 3 min left: inside the 5 min lead
		}
	})
	if _, err := upload(t, c, src, e.P("x.bin")); err != nil {
		t.Fatal(err)
	}
	if _, refused := e.Srv.ProxyRequests(); refused != 0 {
		t.Errorf("%d requests refused; the token should have been renewed ahead", refused)
	}
	if c.Renewals() != 1 {
		t.Errorf("%d renewals, want 1", c.Renewals())
	}
}

// The reply to chunk 2 is lost after the chunk was
// applied; the client must notice (by the part file's size) and go on
// with chunk 3, not append chunk 2 twice.
func TestChunkReplyLost(t *testing.T) {
	jupytertest.ForEachBackend(t, func(t *testing.T, be jupytertest.Backend) {
		e := newEnv(t, be, colabfake.Options{})
		c := e.client(func(o *proxy.Options) { o.ChunkSize = 3 * mib })
		dir := t.TempDir()
		src := filepath.Join(dir, "src.bin")
		want := writeRandom(t, src, 10*mib, 7)
		e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyDropReply, Method: http.MethodPut, PathPrefix: "api/contents/", Skip: 1})
		m, err := upload(t, c, src, e.P("c.bin"))
		if err != nil {
			t.Fatalf("upload: %v", err)
		}
		if m.Size != 10*mib {
			t.Fatalf("remote size %d, want %d", m.Size, 10*mib)
		}
		out := filepath.Join(dir, "out.bin")
		wantDownloaded(t, c, e.P("c.bin"), out, want)
	})
}

// A small upload over a large remote file leaves
// exactly the small file.
func TestUploadReplacesLargerFile(t *testing.T) {
	forEachEnvClient(t, func(t *testing.T, e *env, c *Copier) {
		dir := t.TempDir()
		big := filepath.Join(dir, "big")
		writeRandom(t, big, 5*mib, 8)
		if _, err := upload(t, c, big, e.P("f")); err != nil {
			t.Fatal(err)
		}
		small := filepath.Join(dir, "small")
		if err := os.WriteFile(small, []byte("0123456789"), 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := upload(t, c, small, e.P("f"))
		if err != nil {
			t.Fatal(err)
		}
		if m.Size != 10 {
			t.Fatalf("remote size %d, want 10", m.Size)
		}
		if got := remoteNames(t, c, e.Dir); strings.Join(got, ",") != "f" {
			t.Errorf("remote holds %v, want only f", got)
		}
	})
}

// Done-when: a missing or wrong or expired token gets 404 from the
// emulator's proxy (an empty body, as Colab's), the current one 200.
func TestProxyTokenChecked(t *testing.T) {
	jupytertest.ForEachBackend(t, func(t *testing.T, be jupytertest.Backend) {
		e := newEnv(t, be, colabfake.Options{})
		u := e.Rt.ConnectionInfo.URL + "api/contents/content"
		get := func(hdr, query string) (int, string) {
			t.Helper()
			target := u
			if query != "" {
				target += "?" + proxy.TokenQuery + "=" + query
			}
			req, _ := http.NewRequest(http.MethodGet, target, nil)
			if hdr != "" {
				req.Header.Set(proxy.TokenHeader, hdr)
			}
			return testkit.Do(t, req)
		}
		tok := e.Rt.ConnectionInfo.Token
		for _, tc := range []struct {
			name, hdr, query string
			want             int
		}{
			{"missing", "", "", 404},
			{"wrong", "not-the-token", "", 404},
			{"wrong query", "", "not-the-token", 404},
			{"header", tok, "", 200},
			{"query", "", tok, 200},
		} {
			status, body := get(tc.hdr, tc.query)
			if status != tc.want || (status == 404 && body != "") {
				t.Errorf("%s token: %d %q, want %d (404 with an empty body)", tc.name, status, body, tc.want)
			}
		}
		e.Clk.Advance(time.Hour)
		if status, _ := get(tok, ""); status != 404 {
			t.Errorf("expired token: %d, want 404", status)
		}
		e.Srv.Reclaim(e.Rt.Name)
		if status, _ := get(tok, ""); status != 404 {
			t.Errorf("deleted runtime: %d, want 404", status)
		}
	})
}

// Done-when, bad input: each a one-line error naming what was wrong, and
// no partial target file left.
func TestBadInput(t *testing.T) {
	forEachEnvClient(t, func(t *testing.T, e *env, c *Copier) {
		ctx := context.Background()
		dir, _ := stageRandom(t, e, c, "there.bin", 4*mib, 9)
		check := func(what string, err error, kind error, mention string) {
			t.Helper()
			if err == nil {
				t.Fatalf("%s: no error", what)
			}
			if !errors.Is(err, kind) {
				t.Errorf("%s: error %q is not %v", what, err, kind)
			}
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, mention) {
				t.Errorf("%s: error %q is not one line naming %q", what, msg, mention)
			}
		}

		err := c.UploadPath(ctx, filepath.Join(dir, "nope.txt"), e.P("nope.txt"), false, CopyOptions{})
		check("missing local file", err, proxy.ErrLocalNotFound, "nope.txt")

		_, err = c.Download(ctx, e.P("missing.bin"), filepath.Join(dir, "missing.bin"), nil)
		check("missing remote file", err, proxy.ErrNotFound, "missing.bin")

		_, err = upload(t, c, filepath.Join(dir, "src.bin"), e.P("nodir/x.bin"))
		check("missing remote parent", err, proxy.ErrNoParent, "nodir")

		_, err = c.Download(ctx, e.P("there.bin"), filepath.Join(dir, "nodir", "x.bin"), nil)
		check("missing local parent", err, proxy.ErrLocalNotFound, "nodir")

		// cp -r creates its destination but not the destination's parent:
		// the error names the missing parent, not the directory to create.
		err = c.DownloadPath(ctx, e.Dir, filepath.Join(dir, "nodir", "out"), false, CopyOptions{Recursive: true})
		check("missing local parent of a recursive download", err, proxy.ErrLocalNotFound, "nodir")
		if msg := err.Error(); !strings.HasSuffix(msg, ": "+filepath.Join(dir, "nodir")) {
			t.Errorf("missing local parent of a recursive download: error %q does not end naming the missing %s", msg, filepath.Join(dir, "nodir"))
		}

		// A full disk: the part file's writes fail with ENOSPC after 1 MiB.
		full := e.client()
		full.wrapPart = func(f partFile) partFile { return &fullDisk{partFile: f, left: mib} }
		_, err = full.Download(ctx, e.P("there.bin"), filepath.Join(dir, "full.bin"), nil)
		check("full disk", err, proxy.ErrLocal, "no space left on device")

		noLeftovers(t, dir, "src.bin")
		if got := remoteNames(t, c, e.Dir); strings.Join(got, ",") != "there.bin" {
			t.Errorf("remote holds %v, want only there.bin", got)
		}
	})
}

type fullDisk struct {
	partFile
	left int64
}

func (f *fullDisk) WriteAt(p []byte, off int64) (int, error) {
	if int64(len(p)) > f.left {
		n, _ := f.partFile.WriteAt(p[:f.left], off)
		f.left = 0
		return n, &os.PathError{Op: "write", Path: "full.bin" + PartSuffix, Err: syscall.ENOSPC}
	}
	f.left -= int64(len(p))
	return f.partFile.WriteAt(p, off)
}

// Done-when, bad input: a runtime deleted mid-transfer ends the transfer
// with "no longer exists" and leaves no partial file.
func TestRuntimeGoneMidTransfer(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client(func(o *proxy.Options) { o.ChunkSize = 3 * mib })
	dir, _ := stageRandom(t, e, c, "d.bin", 10*mib, 10)
	var gets atomic.Int32
	e.SetOnProxy(func(r *http.Request) {
		if strings.Contains(r.URL.Path, "/files/") && gets.Add(1) == 2 {
			e.Srv.Reclaim(e.Rt.Name)
		}
	})
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyCut, Method: http.MethodGet, PathPrefix: "files/", After: 2 * mib})
	_, err := download(t, c, e.P("d.bin"), filepath.Join(dir, "out.bin"))
	if !errors.Is(err, proxy.ErrRuntimeGone) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "rt-files") {
		t.Fatalf("download from a deleted runtime: %v, want one line saying rt-files no longer exists", err)
	}
	noLeftovers(t, dir, "src.bin")

	// Upload: the runtime disappears between chunks.
	e2 := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c2 := e2.client(func(o *proxy.Options) { o.ChunkSize = 3 * mib })
	var puts atomic.Int32
	e2.SetOnProxy(func(r *http.Request) {
		if r.Method == http.MethodPut && puts.Add(1) == 2 {
			e2.Srv.Reclaim(e2.Rt.Name)
		}
	})
	_, err = upload(t, c2, filepath.Join(dir, "src.bin"), e2.P("u.bin"))
	if !errors.Is(err, proxy.ErrRuntimeGone) {
		t.Fatalf("upload to a deleted runtime: %v, want proxy.ErrRuntimeGone", err)
	}
}

// Names with spaces, "#", "?" and "%" travel encoded and
// arrive literally.
func TestPathEncoding(t *testing.T) {
	forEachEnvClient(t, func(t *testing.T, e *env, c *Copier) {
		dir := t.TempDir()
		names := []string{"a #1 ?.txt", "100%.txt", "%2e%2e"}
		for _, n := range names {
			p := filepath.Join(dir, "f")
			if err := os.WriteFile(p, []byte(n), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := upload(t, c, p, e.P(n)); err != nil {
				t.Fatalf("upload %q: %v", n, err)
			}
		}
		got := remoteNames(t, c, e.Dir)
		if strings.Join(got, "|") != "%2e%2e|100%.txt|a #1 ?.txt" {
			t.Fatalf("remote names %q", got)
		}
		out := filepath.Join(dir, "out")
		if _, err := download(t, c, e.P("100%.txt"), out); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(out); string(b) != "100%.txt" {
			t.Fatalf("downloaded %q", b)
		}
	})
}

// A part file kept by an interrupted download is resumed by the next run
// when it belongs to the same remote version, and discarded otherwise.
func TestDownloadResumesAcrossRuns(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client(func(o *proxy.Options) { o.MaxRetries = 1 })
	dir, want := stageRandom(t, e, c, "r.bin", 6*mib, 11)
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyCut, Method: http.MethodGet, PathPrefix: "files/", After: 2 * mib})
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Method: http.MethodGet, PathPrefix: "files/", Status: 503})
	out := filepath.Join(dir, "out.bin")
	_, err := download(t, c, e.P("r.bin"), out)
	if err == nil || !strings.Contains(err.Error(), "kept in") {
		t.Fatalf("first run: %v, want a failure that keeps the part file", err)
	}
	if _, serr := os.Stat(out); serr == nil {
		t.Fatal("the target exists after a failed download")
	}
	st, serr := os.Stat(out + PartSuffix)
	if serr != nil || st.Size() == 0 {
		t.Fatalf("part file: %v", serr)
	}
	sent := fileRanges(e)
	wantDownloaded(t, c, e.P("r.bin"), out, want)
	ranges := sent()
	if len(ranges) != 1 || ranges[0] == "" {
		t.Errorf("second run sent Range %q, want one ranged request", ranges)
	}
	noLeftovers(t, dir, "out.bin", "src.bin")
}

// The proxy token never reaches a log line or an error.
func TestTokenNeverLogged(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	var logs bytes.Buffer
	c := e.client(func(o *proxy.Options) {
		o.Logger = testkit.DebugLogger(&logs)
		o.Now = func() time.Time { return jupytertest.T0 }
	})
	e.Clk.Advance(2 * time.Hour) // every first request is refused, then renewed
	ctx := context.Background()
	_, _ = c.List(ctx, e.Dir)
	_, err := c.Download(ctx, e.P("missing"), filepath.Join(t.TempDir(), "x"), nil)
	for _, tok := range []string{e.Rt.ConnectionInfo.Token, c.Info().Token} {
		if strings.Contains(logs.String(), tok) || strings.Contains(err.Error(), tok) {
			t.Fatalf("a proxy token leaked: log %q, error %q", logs.String(), err)
		}
	}
	if e.Red.Redact(c.Info().Token) != "[redacted]" {
		t.Error("the renewed token was not registered with the redactor")
	}
}

// A download whose size the runtime did not report (a model without
// "size") is bounded by MaxUnknownSize: past it the download stops with
// proxy.ErrTooLarge and leaves nothing behind; below it, it completes.
func TestDownloadUnknownSizeCapped(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client(func(o *proxy.Options) { o.MaxUnknownSize = 256 << 10 })
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		size int64
		ok   bool
	}{{"small.bin", 100 << 10, true}, {"big.bin", 1 * mib, false}} {
		src := filepath.Join(dir, "src-"+tc.name)
		want := putRandom(t, c, src, tc.size, 23, e.P(tc.name))
		// The runtime's model of the file says nothing of its size.
		e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Method: http.MethodGet,
			PathPrefix: "api/contents/" + e.P(tc.name), Status: http.StatusOK, ContentType: "application/json",
			Body: `{"name":"` + tc.name + `","path":"` + e.P(tc.name) + `","type":"file","size":null,"last_modified":"2026-11-29T18:00:00Z"}`})
		out := filepath.Join(dir, "out-"+tc.name)
		_, err := download(t, c, e.P(tc.name), out)
		if tc.ok {
			if err != nil {
				t.Fatalf("%s (%d bytes, under the limit): %v", tc.name, tc.size, err)
			}
			if got := fileSHA(t, out); got != want {
				t.Fatalf("%s: SHA-256 %s, want %s", tc.name, got, want)
			}
			continue
		}
		if !errors.Is(err, proxy.ErrTooLarge) || !strings.Contains(err.Error(), "262144 bytes") {
			t.Fatalf("%s (%d bytes of unknown size, limit 256 KiB): %v, want proxy.ErrTooLarge naming the limit", tc.name, tc.size, err)
		}
		if _, serr := os.Stat(out); serr == nil {
			t.Errorf("%s: the target exists after the capped download", tc.name)
		}
		if _, serr := os.Stat(out + PartSuffix); serr == nil {
			t.Errorf("%s: the part file was kept", tc.name)
		}
	}
}
