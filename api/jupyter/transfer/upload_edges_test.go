package transfer

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/testkit"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// The size edges of upload.go (a 0-byte file, a file of
// exactly the chunk size, one byte more, exactly two chunks). Each test
// names the behaviour it guards; all run on the emulator, with no waits.

// Guards the one-request upload and its bound: a file of 0 bytes, or of
// exactly ChunkSize bytes, goes in one PUT onto its own name (no part
// file, no rename); one byte more, or exactly two chunks, goes in two
// PUTs to the part file, renamed once. Each arrives whole: downloaded
// back, it has the bytes sent.
func TestUploadChunkSizeEdges(t *testing.T) {
	const chunk = 30_000 // a multiple of 3, as ChunkSize is rounded to
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client(func(o *proxy.Options) { o.ChunkSize = chunk })
	dir := t.TempDir()
	for i, tc := range []struct {
		name    string
		size    int
		puts    int  // PUT requests
		viaPart bool // through NAME.colabdash-part and a rename
	}{
		{"0 bytes", 0, 1, false},
		{"exactly the chunk size", chunk, 1, false},
		{"the chunk size and one byte", chunk + 1, 2, true},
		{"exactly two chunks", 2 * chunk, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := randomBytes(tc.size, uint64(50+i))
			remote := e.P("up-" + strings.ReplaceAll(tc.name, " ", "-") + ".bin")
			var log methodLog
			e.SetOnProxy(log.hook)
			m, err := c.Upload(context.Background(), remote, bytes.NewReader(data), int64(len(data)), nil)
			e.SetOnProxy(nil)
			if err != nil {
				t.Fatalf("upload of %d bytes: %v", tc.size, err)
			}
			if m.Size != int64(tc.size) {
				t.Errorf("returned model size %d, want %d", m.Size, tc.size)
			}
			log.mu.Lock()
			got := append([]string(nil), log.got...)
			log.mu.Unlock()
			puts, partPuts, renames := 0, 0, 0
			for _, g := range got {
				switch {
				case strings.HasPrefix(g, "PUT ") && strings.HasSuffix(g, PartSuffix):
					puts++
					partPuts++
				case strings.HasPrefix(g, "PUT "):
					puts++
				case strings.HasPrefix(g, "PATCH "):
					renames++
				}
			}
			if puts != tc.puts {
				t.Errorf("%d PUT requests, want %d (requests %q)", puts, tc.puts, got)
			}
			if tc.viaPart && (partPuts != puts || renames != 1) {
				t.Errorf("requests %q: want every PUT to the part file and one rename", got)
			}
			if !tc.viaPart && (partPuts != 0 || renames != 0) {
				t.Errorf("requests %q: want one PUT onto the name itself, no part file, no rename", got)
			}
			out := filepath.Join(dir, "back-"+strings.ReplaceAll(tc.name, " ", "-"))
			if _, err := download(t, c, remote, out); err != nil {
				t.Fatalf("download back: %v", err)
			}
			back, _ := os.ReadFile(out)
			if !bytes.Equal(back, data) {
				t.Fatalf("the runtime has %d bytes (SHA-256 %s), want the %d sent (%s)", len(back), shaOf(back), len(data), shaOf(data))
			}
		})
	}
}

// Guards the upload's retries: MaxRetries failures in a row (a 500,
// then a 503: both are the server's passing trouble) are sent again and
// the upload completes, for a file sent whole and for the first chunk of
// one sent in pieces; one failure more and the upload fails, leaving no
// part file on the runtime (here the last piece fails, after the first
// made one).
func TestUploadRetriesUpToMaxRetries(t *testing.T) {
	const chunk, retries = 30_000, 2
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client(func(o *proxy.Options) { o.ChunkSize = chunk; o.MaxRetries = retries })
	for i, tc := range []struct {
		name  string
		size  int
		skip  int   // PUTs that pass before the failures
		fails []int // the statuses of the PUTs that fail
		ok    bool
	}{
		{"whole, MaxRetries failures", 1000, 0, []int{500, 503}, true},
		{"whole, one failure more", 1000, 0, []int{500, 503, 503}, false},
		{"in pieces, MaxRetries failures", chunk + 1000, 0, []int{500, 503}, true},
		{"in pieces, one failure more of the last piece", chunk + 1000, 1, []int{500, 503, 503}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := "retry-" + strconv.Itoa(i) + ".bin"
			data := randomBytes(tc.size, uint64(60+i))
			for _, st := range tc.fails {
				e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Method: http.MethodPut,
					PathPrefix: "api/contents/" + e.P(name), Status: st, Skip: tc.skip})
			}
			_, err := c.Upload(context.Background(), e.P(name), bytes.NewReader(data), int64(len(data)), nil)
			e.Srv.ClearProxyFaults()
			names := strings.Join(remoteNames(t, c, e.P("")), ",")
			if !tc.ok {
				if err == nil {
					t.Fatalf("upload after %d failures in a row (MaxRetries %d) succeeded, want it to give up", len(tc.fails), retries)
				}
				if strings.Contains(names, name) {
					t.Errorf("the runtime holds %s after the upload failed, want nothing of it", names)
				}
				return
			}
			if err != nil {
				t.Fatalf("upload after %d failures in a row (MaxRetries %d): %v", len(tc.fails), retries, err)
			}
			out := filepath.Join(t.TempDir(), "back.bin")
			if _, err := download(t, c, e.P(name), out); err != nil {
				t.Fatal(err)
			}
			if back, _ := os.ReadFile(out); !bytes.Equal(back, data) {
				t.Fatalf("the runtime has %d bytes, want the %d sent", len(back), len(data))
			}
			if strings.Contains(names, PartSuffix) {
				t.Errorf("the runtime holds %s, want no part file", names)
			}
		})
	}
}

// Guards what is not retried: a save the server refuses as a bad request
// (HTTP 400) fails at once, after one PUT, with the server's status; it
// is not sent again as if the trouble were passing.
func TestUploadBadRequestNotRetried(t *testing.T) {
	e, c := newEnvClient(t, jupytertest.Emulator)
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Method: http.MethodPut,
		PathPrefix: "api/contents/" + e.P("bad.bin"), Status: http.StatusBadRequest})
	var log methodLog
	e.SetOnProxy(log.hook)
	_, err := c.Upload(context.Background(), e.P("bad.bin"), strings.NewReader("data"), 4, nil)
	e.SetOnProxy(nil)
	e.Srv.ClearProxyFaults()
	var je *proxy.Error
	if !errors.As(err, &je) || je.Status != http.StatusBadRequest {
		t.Fatalf("upload answered 400: %v, want the server's 400", err)
	}
	if n := log.count(http.MethodPut); n != 1 {
		t.Errorf("%d PUT requests, want 1: a bad request is not retried", n)
	}
}

// Guards the floor of the pieces: a file no larger than the smallest
// piece (MinChunkSize, rounded down to a multiple of 3), refused whole by
// a proxy's 413, fails at once after that one PUT: sending it "in
// pieces" would be the same request again.
func TestUpload413AtTheFloorSize(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{ProxyMaxBody: 1_000_000})
	c := e.client()
	data := bytes.Repeat([]byte("z"), MinChunkSize-MinChunkSize%3)
	var log methodLog
	e.SetOnProxy(log.hook)
	_, err := c.Upload(context.Background(), e.P("floor.bin"), bytes.NewReader(data), int64(len(data)), nil)
	e.SetOnProxy(nil)
	if !errors.Is(err, proxy.ErrServer) || !strings.Contains(err.Error(), "even in pieces of 1.0 MB") {
		t.Fatalf("upload of %d bytes behind a 1 MB proxy limit: %v, want the 413 at the floor", len(data), err)
	}
	if n := log.count(http.MethodPut); n != 1 {
		t.Errorf("%d PUT requests, want 1", n)
	}
}

// Guards the upload's progress: sent in pieces, the bytes done only
// grow, never pass the total, and end at the file's size.
func TestUploadProgressInPieces(t *testing.T) {
	const chunk = 30_000
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client(func(o *proxy.Options) { o.ChunkSize = chunk })
	data := randomBytes(2*chunk+500, 70)
	var mu sync.Mutex
	var dones []int64
	progress := func(done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		if total != int64(len(data)) {
			t.Errorf("progress total %d, want %d", total, len(data))
		}
		dones = append(dones, done)
	}
	if _, err := c.Upload(context.Background(), e.P("progress.bin"), bytes.NewReader(data), int64(len(data)), progress); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for i, d := range dones {
		if d > int64(len(data)) || (i > 0 && d < dones[i-1]) {
			t.Fatalf("progress %v: want growing bytes done, never past %d", dones, len(data))
		}
	}
	if len(dones) == 0 || dones[len(dones)-1] != int64(len(data)) {
		t.Fatalf("progress %v, want it to end at %d", dones, len(data))
	}
}

// failingSource is a local file whose reads fail from byte `at` on (a
// disk error, a file system gone).
type failingSource struct {
	data []byte
	at   int64
}

func (f failingSource) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > f.at {
		n := max(int(f.at-off), 0)
		copy(p, f.data[off:off+int64(n)])
		return n, errors.New("input/output error")
	}
	return copy(p, f.data[off:]), nil
}

// Guards the local read error's kind: a file that cannot be read midway
// fails the upload as a local error naming the read (not as the
// network's trouble).
func TestUploadLocalReadErrorIsLocal(t *testing.T) {
	e, c := newEnvClient(t, jupytertest.Emulator)
	data := randomBytes(200_000, 71)
	_, err := c.Upload(context.Background(), e.P("unreadable.bin"), failingSource{data: data, at: 100_000}, int64(len(data)), nil)
	if !errors.Is(err, proxy.ErrLocal) || !strings.Contains(err.Error(), "reading the local file: input/output error") {
		t.Fatalf("upload of a file unreadable midway: %v, want a local error naming the read", err)
	}
}

// Guards the retry pauses' lengths: the first pause is RetryDelay, each
// failure in a row doubles it, and none is longer than 5 s (the default
// 200 ms gives 0.2, 0.4, 0.8, 1.6, 3.2 and then 5 s).
func TestRetryDelayDoublesUpToFiveSeconds(t *testing.T) {
	base := 200 * time.Millisecond
	for n, want := range map[int]time.Duration{1: base, 2: 2 * base, 3: 4 * base, 5: 16 * base, 6: 5 * time.Second, 40: 5 * time.Second} {
		if got := retryDelay(base, n); got != want {
			t.Errorf("pause after %d failures: %v, want %v", n, got, want)
		}
	}
	if got := retryDelay(time.Millisecond, 40); got != 32*time.Millisecond {
		t.Errorf("pause after 40 failures at a 1 ms base: %v, want 32 ms (doubling stops after five)", got)
	}
}

// Guards the resume after the lost reply of the last piece: the stat
// finds every byte applied and the upload ends there, with no further
// PUT (an empty last piece sent again, say). A PUT after the lost one
// would meet the queued 400 and fail the upload.
func TestLastChunkReplyLostSendsNoMore(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client(func(o *proxy.Options) { o.ChunkSize = 3 * mib })
	data := randomBytes(10*mib, 61) // pieces of 3, 3, 3 and 1 MiB
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyDropReply, Method: http.MethodPut, PathPrefix: "api/contents/", Skip: 3})
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Status: http.StatusBadRequest,
		Body: `{"message": "a PUT after the last piece", "reason": null}`, ContentType: "application/json",
		Method: http.MethodPut, PathPrefix: "api/contents/", Skip: 3})
	var log methodLog
	e.SetOnProxy(log.hook)
	m, err := c.Upload(context.Background(), e.P("last.bin"), bytes.NewReader(data), int64(len(data)), nil)
	e.SetOnProxy(nil)
	if err != nil || m.Size != int64(len(data)) {
		t.Fatalf("upload whose last reply was lost: %+v, %v", m, err)
	}
	if n := e.Srv.PendingProxyFaults(); n != 1 {
		t.Errorf("%d faults left, want 1: the upload sent a PUT after the last piece", n)
	}
	if n := log.count(http.MethodPut); n != 4 {
		t.Errorf("%d PUTs for four pieces, want 4", n)
	}
	e.Srv.ClearProxyFaults()
}

// Guards what a 413 on a later piece teaches: the next pieces are half
// the refused piece (3 MiB refused → 1.5 MiB), not half of the bytes up
// to its end; the log line says both sizes, and the file arrives whole.
func TestLater413ShrinksFromTheRefusedPiece(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	var logs bytes.Buffer // written by the upload only, read after it
	c := e.client(func(o *proxy.Options) { o.ChunkSize = 3 * mib; o.Logger = testkit.DebugLogger(&logs) })
	data := randomBytes(10*mib, 62)
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Status: http.StatusRequestEntityTooLarge,
		Body: "<html><head><title>413 Request Entity Too Large</title></head></html>", ContentType: "text/html",
		Method: http.MethodPut, PathPrefix: "api/contents/", Skip: 1})
	m, err := c.Upload(context.Background(), e.P("later.bin"), bytes.NewReader(data), int64(len(data)), nil)
	if err != nil || m.Size != int64(len(data)) {
		t.Fatalf("upload with a 413 on its second piece: %+v, %v", m, err)
	}
	want := `"refusedBytes":` + strconv.Itoa(3*mib) + `,"nextBytes":` + strconv.Itoa(3*mib/2)
	if !strings.Contains(logs.String(), want) {
		t.Errorf("log lacks %s:\n%s", want, logs.String())
	}
	out := filepath.Join(t.TempDir(), "back.bin")
	if _, err := download(t, c, e.P("later.bin"), out); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, data) {
		t.Error("the file differs after the smaller pieces")
	}
}

// An upload over an existing file that is cancelled once the old file is
// being deleted (the part is complete and verified) still renames the
// new one into place: the runtime never ends with neither the old file
// nor the new one.
func TestUploadCancelledWhileReplacingKeepsAFile(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	// A chunked upload (3-byte pieces): only it replaces through a DELETE.
	c := e.client(func(o *proxy.Options) { o.ChunkSize = 3 })
	ctx := context.Background()
	if _, err := c.Upload(ctx, e.P("x.txt"), strings.NewReader("old"), 3, nil); err != nil {
		t.Fatal(err)
	}
	uctx, cancel := context.WithCancel(ctx)
	defer cancel()
	e.SetOnProxy(func(r *http.Request) {
		if r.Method == http.MethodDelete && strings.HasSuffix(r.URL.Path, "/x.txt") {
			cancel() // the user closed the pane just now
		}
	})
	_, err := c.Upload(uctx, e.P("x.txt"), strings.NewReader("new!"), 4, nil)
	e.SetOnProxy(nil)
	m, serr := c.Stat(ctx, e.P("x.txt"))
	if serr != nil || m.Size != 4 {
		t.Fatalf("after a cancel while replacing (upload: %v): stat %+v %v, want the new 4-byte file", err, m, serr)
	}
	if err != nil {
		t.Fatalf("the replacement finished but Upload said %v", err)
	}
}

// Upload itself refuses a file directly in the root, whoever calls it (the
// files pane as well as cp): nothing is sent.
func TestUploadRefusesTopLevel(t *testing.T) {
	_, c := newEnvClient(t, jupytertest.Emulator)
	ctx := context.Background()
	if _, err := c.Upload(ctx, "/data.csv", strings.NewReader("x"), 1, nil); !errors.Is(err, proxy.ErrTopLevel) {
		t.Fatalf("Upload(/data.csv) = %v, want proxy.ErrTopLevel", err)
	}
	if _, err := c.Stat(ctx, "data.csv"); err == nil {
		t.Fatal("/data.csv was created")
	}
	if _, err := c.Upload(ctx, "/content/data.csv", strings.NewReader("x"), 1, nil); err != nil {
		t.Fatalf("Upload(/content/data.csv) = %v", err)
	}
}

// A proxy on the way refuses a request as too large (an
// HTML 413, nginx's page). The upload says so in words and sends that
// data again in smaller pieces, down to MinChunkSize, and keeps the size
// that worked; below that it fails with the same words and the file on
// the runtime is untouched.
func TestUploadShrinksPiecesAfterProxy413(t *testing.T) {
	jupytertest.ForEachBackend(t, func(t *testing.T, be jupytertest.Backend) {
		e := newEnv(t, be, colabfake.Options{ProxyMaxBody: 3_000_000})
		c := e.client(func(o *proxy.Options) { o.ChunkSize = 6_000_000 })
		ctx := context.Background()
		data := bytes.Repeat([]byte("0123456789abcdef"), 5_000_000/16) // 5 MB: one 6.7 MB request at first
		m, err := c.Upload(ctx, e.P("big.bin"), bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			t.Fatalf("upload behind a 3 MB proxy limit: %v", err)
		}
		if m.Size != int64(len(data)) {
			t.Fatalf("size %d, want %d", m.Size, len(data))
		}
		out := filepath.Join(t.TempDir(), "big.bin")
		if _, err := c.Download(ctx, e.P("big.bin"), out, nil); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(out); !bytes.Equal(b, data) {
			t.Fatal("the file on the runtime differs from the one sent")
		}
		if cs := c.chunkSize(); cs >= 3_000_000 || cs < MinChunkSize {
			t.Errorf("piece size kept after the 413s: %d", cs)
		}
		names := remoteNames(t, c, e.Dir)
		if strings.Join(names, ",") != "big.bin" {
			t.Errorf("remote directory holds %v, want only big.bin", names)
		}
	})
}

func TestUpload413BelowTheFloorFails(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{ProxyMaxBody: 1_000_000})
	c := e.client()
	ctx := context.Background()
	if _, err := c.Upload(ctx, e.P("x.bin"), strings.NewReader("old"), 3, nil); err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("z"), 3_000_000)
	_, err := c.Upload(ctx, e.P("x.bin"), bytes.NewReader(data), int64(len(data)), nil)
	if !errors.Is(err, proxy.ErrServer) {
		t.Fatalf("upload behind a 1 MB proxy limit: %v, want a server error", err)
	}
	msg := err.Error()
	for _, w := range []string{"a proxy between this machine and the runtime refused a", "MB request as too large (HTTP 413)", "even in pieces of 1.0 MB"} {
		if !strings.Contains(msg, w) {
			t.Errorf("%q\nwant it to contain %q", msg, w)
		}
	}
	m, serr := c.Stat(ctx, e.P("x.bin"))
	if serr != nil || m.Size != 3 {
		t.Errorf("the old file after a refused upload: %+v %v, want it untouched", m, serr)
	}
	if names := remoteNames(t, c, e.Dir); strings.Join(names, ",") != "x.bin" {
		t.Errorf("remote directory holds %v, want only x.bin (no part file)", names)
	}
}

// procFile returns a /proc file whose stat size is 0 but which holds
// bytes, and those bytes (stable for this process).
func procFile(t *testing.T) (string, []byte) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	const p = "/proc/self/environ"
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() != 0 || len(b) == 0 {
		t.Fatalf("%s: stat size %d, %d bytes read; the test needs size 0 with content", p, st.Size(), len(b))
	}
	return p, b
}

// A local file whose stat size is 0 but which holds bytes (such as
// /proc/self/environ) is read to its end and sent whole, by cp (file and
// -r's walk) and UploadFile (the files pane); never uploaded empty.
func TestUploadReadsAZeroSizeFileToItsEnd(t *testing.T) {
	e, c := newEnvClient(t, jupytertest.Emulator)
	ctx := context.Background()
	p, want := procFile(t)
	check := func(what, remote string) {
		t.Helper()
		m, err := c.Stat(ctx, remote)
		if err != nil || m.Size != int64(len(want)) {
			t.Fatalf("%s: the runtime has %d bytes (%v), want %d", what, m.Size, err, len(want))
		}
		out := filepath.Join(t.TempDir(), "back")
		if _, err := download(t, c, remote, out); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(out); string(b) != string(want) {
			t.Fatalf("%s: the bytes that arrived differ from the file's", what)
		}
	}
	var res []FileResult
	if err := c.UploadPath(ctx, p, e.P("environ"), false, CopyOptions{OnFile: func(r FileResult) { res = append(res, r) }}); err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Bytes != int64(len(want)) {
		t.Errorf("reported %+v, want one file of %d bytes", res, len(want))
	}
	check("cp", e.P("environ"))
	m, n, err := c.UploadFile(ctx, "/proc/self/status", e.P("status"), nil)
	if err != nil || n == 0 || m.Size != n {
		t.Fatalf("UploadFile(/proc/self/status) = %d bytes sent, remote %d, %v; want the whole file", n, m.Size, err)
	}
	// A directory walked by cp -r -L: a link in it to a /proc file (-L:
	// the link leads out of the directory).
	dir := t.TempDir()
	if err := os.Symlink(p, filepath.Join(dir, "env")); err != nil {
		t.Fatalf("cannot make the symbolic link this test needs: %v", err)
	}
	if err := c.UploadPath(ctx, dir, e.P("tree"), false, CopyOptions{Recursive: true, FollowLinks: true}); err != nil {
		t.Fatal(err)
	}
	check("cp -r", e.P("tree/env"))
	// A truly empty file is still sent, empty.
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, n, err := c.UploadFile(ctx, empty, e.P("empty"), nil); err != nil || n != 0 {
		t.Fatalf("an empty file: %d bytes, %v", n, err)
	}
}

// Past what one request carries, such a file is refused in one line and
// nothing is left on the runtime.
func TestUploadRefusesAZeroSizeFileBeyondOneRequest(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client(func(o *proxy.Options) { o.ChunkSize = 30 })
	p, _ := procFile(t)
	err := c.UploadPath(context.Background(), p, e.P("environ"), false, CopyOptions{})
	if !errors.Is(err, proxy.ErrLocal) || !strings.Contains(err.Error(), p+" reports a size of 0 but holds more than 30 bytes") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("UploadPath = %v, want one proxy.ErrLocal line naming the file and the limit", err)
	}
	if got := remoteNames(t, c, e.Dir); len(got) != 0 {
		t.Errorf("the runtime holds %v", got)
	}
}

// Such a file holding exactly what one request carries is still sent
// whole: the limit is on more than one request's worth.
func TestUploadSendsAZeroSizeFileOfExactlyOneRequest(t *testing.T) {
	e, c := newEnvClient(t, jupytertest.Emulator)
	p, want := procFile(t)
	// Options round ChunkSize down to a multiple of 3; the copier's own
	// is set to the file's length exactly.
	c.o.ChunkSize = int64(len(want))
	m, n, err := c.UploadFile(context.Background(), p, e.P("environ"), nil)
	if err != nil || n != int64(len(want)) || m.Size != n {
		t.Fatalf("UploadFile of %d bytes with %d-byte requests = %d bytes sent, remote %d, %v; want the whole file", len(want), c.o.ChunkSize, n, m.Size, err)
	}
}
