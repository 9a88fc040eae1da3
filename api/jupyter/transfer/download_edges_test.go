package transfer

// The size edges of download.go that the first mutation runs
// found unguarded (a 0-byte file, a reply cut right after its last byte,
// exactly MaxUnknownSize bytes, a file of unknown size resumed or
// rewritten, a file that changed during the download), and the restarts
// after a resume the server mangles. Each test names the behaviour it
// guards; all run against a scripted loopback runtime,
// with no waits.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// edgeRuntime is a runtime holding one file, content/f.bin, whose bytes
// can change between requests; its model says no size when sizeUnknown.
// Each files/ request is answered by the next scripted reply, then
// plainly (http.ServeContent: Range honoured).
type edgeRuntime struct {
	mu          sync.Mutex
	data        []byte
	sizeUnknown bool
	replies     []func(w http.ResponseWriter, r *http.Request, rt *edgeRuntime)
	ranges      []string // the Range header of each files/ request
}

func (rt *edgeRuntime) bytes() []byte {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.data
}

func (rt *edgeRuntime) set(b []byte) {
	rt.mu.Lock()
	rt.data = b
	rt.mu.Unlock()
}

func (rt *edgeRuntime) sent() []string {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return append([]string(nil), rt.ranges...)
}

func (rt *edgeRuntime) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case strings.HasPrefix(r.URL.Path, "/api/contents/"):
		size := strconv.Itoa(len(rt.bytes()))
		if rt.sizeUnknown {
			size = "null"
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"name":"f.bin","path":"content/f.bin","type":"file","size":%s,"last_modified":"2026-11-29T18:00:00.000000Z","created":"2026-11-29T18:00:00.000000Z","writable":true,"mimetype":null,"format":null,"content":null}`, size)
	case strings.HasPrefix(r.URL.Path, "/files/"):
		rt.mu.Lock()
		n := len(rt.ranges)
		rt.ranges = append(rt.ranges, r.Header.Get("Range"))
		var f func(http.ResponseWriter, *http.Request, *edgeRuntime)
		if n < len(rt.replies) {
			f = rt.replies[n]
		}
		rt.mu.Unlock()
		if f == nil {
			http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(rt.bytes()))
			return
		}
		f(w, r, rt)
	default:
		http.NotFound(w, r)
	}
}

// edgeClient is a Copier for rt, with o changed by mod.
func edgeClient(t *testing.T, rt *edgeRuntime, mod func(*proxy.Options)) *Copier {
	t.Helper()
	srv := httptest.NewServer(rt)
	t.Cleanup(srv.Close)
	o := proxy.Options{Runtime: "runtimes/rt-edge", RetryDelay: time.Millisecond,
		Info: api.ConnectionInfo{URL: srv.URL + "/", Token: "edge-token", ExpireTime: time.Now().Add(time.Hour)}}
	if mod != nil {
		mod(&o)
	}
	return newCopier(t, o)
}

// cutAfter answers the whole file without Content-Length (chunked) and
// drops the connection after its first n bytes: the client sees the
// bytes, then an error rather than the end of the reply.
func cutAfter(n int) func(http.ResponseWriter, *http.Request, *edgeRuntime) {
	return func(w http.ResponseWriter, _ *http.Request, rt *edgeRuntime) {
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(rt.bytes()[:n])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}
}

// cutAt answers the whole file with its Content-Length but drops the
// connection after its first n bytes.
func cutAt(n int) func(http.ResponseWriter, *http.Request, *edgeRuntime) {
	return func(w http.ResponseWriter, _ *http.Request, rt *edgeRuntime) {
		data := rt.bytes()
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(data[:n])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}
}

// edgeDownload downloads content/f.bin from rt, through a Copier changed
// by mod, to out.bin in a new directory: that directory, the path, and
// what the download returned.
func edgeDownload(t *testing.T, rt *edgeRuntime, mod func(*proxy.Options)) (dir, out string, m proxy.Model, err error) {
	t.Helper()
	c := edgeClient(t, rt, mod)
	dir = t.TempDir()
	out = filepath.Join(dir, "out.bin")
	m, err = download(t, c, "content/f.bin", out)
	return dir, out, m, err
}

// wantRanges fails unless the files/ requests carried exactly the Range
// headers want ("" for none), in order; why says what a difference means.
func (rt *edgeRuntime) wantRanges(t *testing.T, why string, want ...string) {
	t.Helper()
	if got := rt.sent(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Range headers %q, want %q%s", got, want, why)
	}
}

// wantFile fails unless path holds exactly want.
func wantFile(t *testing.T, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the downloaded file: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the downloaded file has %d bytes (SHA-256 %s), want %d (%s)", len(got), shaOf(got), len(want), shaOf(want))
	}
}

// Guards the 0-byte file: its download creates an empty file, leaves no
// part file, and asks for no bytes (the model's size says there are none).
func TestDownloadZeroByteFile(t *testing.T) {
	rt := &edgeRuntime{data: []byte{}}
	c := edgeClient(t, rt, nil)
	dir := t.TempDir()
	out := filepath.Join(dir, "empty.bin")
	if err := os.WriteFile(out, []byte("an older file"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := download(t, c, "content/f.bin", out)
	if err != nil {
		t.Fatalf("download of a 0-byte file: %v", err)
	}
	if m.Size != 0 {
		t.Errorf("model size %d, want 0", m.Size)
	}
	wantFile(t, out, nil)
	noLeftovers(t, dir, "empty.bin")
	if got := rt.sent(); len(got) != 0 {
		t.Errorf("files/ requests %q for a 0-byte file, want none", got)
	}
}

// Guards the exact-size edge of a resume: a connection dropped right
// after the last byte leaves a complete part file, which is finished
// without asking the runtime again.
func TestDownloadCutAfterTheLastByteCompletes(t *testing.T) {
	data := randomBytes(300_000, 40)
	rt := &edgeRuntime{data: data, replies: []func(http.ResponseWriter, *http.Request, *edgeRuntime){cutAfter(len(data))}}
	dir, out, _, err := edgeDownload(t, rt, nil)
	if err != nil {
		t.Fatalf("download: %v", err)
	}
	wantFile(t, out, data)
	noLeftovers(t, dir, "out.bin")
	if got := rt.sent(); len(got) != 1 {
		t.Errorf("files/ requests %q, want one: every byte had arrived", got)
	}
}

// Guards MaxUnknownSize's edges: a file whose size the runtime did not
// report downloads whole at exactly the limit; one byte more is refused
// with proxy.ErrTooLarge naming the limit, and nothing is left under the
// final name or as a part file; a file of known size is not bounded by it.
func TestDownloadMaxUnknownSizeEdges(t *testing.T) {
	const limit = 30_000
	for _, tc := range []struct {
		name    string
		size    int
		unknown bool
		ok      bool
	}{
		{"unknown size, exactly the limit", limit, true, true},
		{"unknown size, one byte over the limit", limit + 1, true, false},
		{"known size, far over the limit", 5 * limit, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := randomBytes(tc.size, 41)
			rt := &edgeRuntime{data: data, sizeUnknown: tc.unknown}
			dir, out, _, err := edgeDownload(t, rt, func(o *proxy.Options) { o.MaxUnknownSize = limit })
			if tc.ok {
				if err != nil {
					t.Fatalf("download of %d bytes: %v", tc.size, err)
				}
				wantFile(t, out, data)
				noLeftovers(t, dir, "out.bin")
				return
			}
			if !errors.Is(err, proxy.ErrTooLarge) || !strings.Contains(err.Error(), strconv.Itoa(limit)+" bytes") {
				t.Fatalf("download of %d bytes of unknown size (limit %d): %v, want proxy.ErrTooLarge naming the limit", tc.size, limit, err)
			}
			noLeftovers(t, dir)
		})
	}
}

// Guards the resume of a file of unknown size: after a cut, the rest is
// asked for with Range and appended when the answer's Content-Range
// starts there (its total is not compared with a size never reported).
func TestDownloadUnknownSizeResumes(t *testing.T) {
	const cut = 120_000
	data := randomBytes(400_000, 42)
	rt := &edgeRuntime{data: data, sizeUnknown: true, replies: []func(http.ResponseWriter, *http.Request, *edgeRuntime){cutAfter(cut)}}
	_, out, _, err := edgeDownload(t, rt, nil)
	if err != nil {
		t.Fatalf("download: %v", err)
	}
	wantFile(t, out, data)
	rt.wantRanges(t, ": the cut download was not resumed", "", "bytes="+strconv.Itoa(cut)+"-")
}

// Guards the rewrite from byte 0: a file of unknown size that shrank
// after a cut (a rotated log), answered from the start because the
// server ignored Range, ends as the new, shorter version, not with the
// old version's tail after it.
func TestDownloadUnknownSizeRewrittenFromTheStart(t *testing.T) {
	const cut = 200_000
	old, shorter := randomBytes(400_000, 43), randomBytes(50_000, 44)
	rt := &edgeRuntime{data: old, sizeUnknown: true, replies: []func(http.ResponseWriter, *http.Request, *edgeRuntime){
		cutAfter(cut),
		func(w http.ResponseWriter, _ *http.Request, rt *edgeRuntime) { // Range ignored
			rt.set(shorter)
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write(shorter)
		},
	}}
	_, out, _, err := edgeDownload(t, rt, nil)
	if err != nil {
		t.Fatalf("download: %v", err)
	}
	wantFile(t, out, shorter)
}

// Guards the restart after the remote file changed: when a resume's
// Content-Range says another size, the download starts again from byte 0
// with the file's new model, and ends as the new version whole.
func TestDownloadOfAFileChangedMidwayEndsAsTheNewVersion(t *testing.T) {
	const cut = 150_000
	old, grown := randomBytes(300_000, 45), randomBytes(700_000, 46)
	rt := &edgeRuntime{data: old, replies: []func(http.ResponseWriter, *http.Request, *edgeRuntime){
		func(w http.ResponseWriter, r *http.Request, rt *edgeRuntime) {
			defer rt.set(grown) // the file is rewritten while the first reply is cut
			cutAfter(cut)(w, r, rt)
		},
	}}
	_, out, m, err := edgeDownload(t, rt, nil)
	if err != nil {
		t.Fatalf("download: %v", err)
	}
	wantFile(t, out, grown)
	if m.Size != int64(len(grown)) {
		t.Errorf("returned model size %d, want the new version's %d", m.Size, len(grown))
	}
	rt.wantRanges(t, " (cut, resume refused by its Content-Range, restart from 0)", "", "bytes="+strconv.Itoa(cut)+"-", "")
}

// Guards the resume's Content-Range total: one saying the file now has 0
// bytes is another version, never appended to; the download restarts
// from byte 0.
func TestDownloadContentRangeOfAnEmptyFileRestarts(t *testing.T) {
	const cut = 100_000
	data := randomBytes(250_000, 47)
	rt := &edgeRuntime{data: data, replies: []func(http.ResponseWriter, *http.Request, *edgeRuntime){
		cutAfter(cut),
		func(w http.ResponseWriter, _ *http.Request, rt *edgeRuntime) {
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/0", cut, len(data)-1))
			w.WriteHeader(http.StatusPartialContent)
			_, _ = w.Write(rt.bytes()[cut:])
		},
	}}
	_, out, _, err := edgeDownload(t, rt, nil)
	if err != nil {
		t.Fatalf("download: %v", err)
	}
	wantFile(t, out, data)
	rt.wantRanges(t, " (cut, resume, restart from 0)", "", "bytes="+strconv.Itoa(cut)+"-", "")
}

// lostWrites is a part file whose writes report success but keep nothing
// (a failing disk or network file system that lies).
type lostWrites struct{ partFile }

func (lostWrites) WriteAt(p []byte, _ int64) (int, error) { return len(p), nil }

// Guards the final size check: a part file that does not hold the
// runtime's size when the transfer ends is never renamed to the target;
// the download fails with proxy.ErrCorrupt saying both sizes.
func TestDownloadPartOfTheWrongSizeIsNotDelivered(t *testing.T) {
	data := randomBytes(200_000, 48)
	rt := &edgeRuntime{data: data}
	c := edgeClient(t, rt, nil)
	c.wrapPart = func(f partFile) partFile { return lostWrites{f} }
	dir := t.TempDir()
	_, err := download(t, c, "content/f.bin", filepath.Join(dir, "out.bin"))
	if !errors.Is(err, proxy.ErrCorrupt) || !strings.Contains(err.Error(), "received 0 bytes, the runtime has 200000") {
		t.Fatalf("download whose bytes were lost: %v, want proxy.ErrCorrupt naming both sizes", err)
	}
	noLeftovers(t, dir)
}

// reply206 answers 206 with the Content-Range given ("": none) and the
// bytes from `from`.
func reply206(contentRange string, from int) func(http.ResponseWriter, *http.Request, *edgeRuntime) {
	return func(w http.ResponseWriter, _ *http.Request, rt *edgeRuntime) {
		if contentRange != "" {
			w.Header().Set("Content-Range", contentRange)
		}
		w.WriteHeader(http.StatusPartialContent)
		_, _ = w.Write(rt.bytes()[from:])
	}
}

// status answers with the HTTP status code alone.
func status(code int) func(http.ResponseWriter, *http.Request, *edgeRuntime) {
	return func(w http.ResponseWriter, _ *http.Request, _ *edgeRuntime) { w.WriteHeader(code) }
}

// Guards the resume answers that are used, not restarted from byte 0:
// a 206 starting before the offset asked (even at byte 0: the part is
// cut back there and rewritten), one whose total is "*", and a first
// reply that ends cleanly short of the size (a proxy that cut it),
// which is resumed like a dropped connection.
func TestDownloadResumeAnswersUsed(t *testing.T) {
	const size, cut = 400_000, 150_000
	for _, tc := range []struct {
		name    string
		replies []func(http.ResponseWriter, *http.Request, *edgeRuntime)
	}{
		{"206 from byte 0", []func(http.ResponseWriter, *http.Request, *edgeRuntime){cutAfter(cut),
			reply206(fmt.Sprintf("bytes 0-%d/%d", size-1, size), 0)}},
		{"206 from before the offset", []func(http.ResponseWriter, *http.Request, *edgeRuntime){cutAfter(cut),
			reply206(fmt.Sprintf("bytes %d-%d/%d", cut-1000, size-1, size), cut-1000)}},
		{"206 of total *", []func(http.ResponseWriter, *http.Request, *edgeRuntime){cutAfter(cut),
			reply206(fmt.Sprintf("bytes %d-%d/*", cut, size-1), cut)}},
		{"a first reply ending cleanly short", []func(http.ResponseWriter, *http.Request, *edgeRuntime){
			func(w http.ResponseWriter, _ *http.Request, rt *edgeRuntime) {
				w.Header().Set("Content-Length", strconv.Itoa(cut))
				_, _ = w.Write(rt.bytes()[:cut])
			}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := randomBytes(size, 49)
			rt := &edgeRuntime{data: data, replies: tc.replies}
			dir, out, _, err := edgeDownload(t, rt, nil)
			if err != nil {
				t.Fatalf("download: %v", err)
			}
			wantFile(t, out, data)
			noLeftovers(t, dir, "out.bin")
			rt.wantRanges(t, ": the answer was not used as it came", "", "bytes="+strconv.Itoa(cut)+"-")
		})
	}
}

// Guards MaxRetries: a download retries MaxRetries failures in a row
// (here a cut, then a 503) and completes; one failure more and it gives
// up, saying the part file is kept, and the final name stays absent.
func TestDownloadRetriesUpToMaxRetries(t *testing.T) {
	const size, cut, retries = 300_000, 100_000, 2
	for _, tc := range []struct {
		name    string
		replies []func(http.ResponseWriter, *http.Request, *edgeRuntime)
		ok      bool
	}{
		{"MaxRetries failures, then the rest", []func(http.ResponseWriter, *http.Request, *edgeRuntime){
			cutAfter(cut), status(http.StatusServiceUnavailable)}, true},
		{"one failure more", []func(http.ResponseWriter, *http.Request, *edgeRuntime){
			cutAfter(cut), status(http.StatusServiceUnavailable), status(http.StatusServiceUnavailable)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := randomBytes(size, 50)
			rt := &edgeRuntime{data: data, replies: tc.replies}
			_, out, _, err := edgeDownload(t, rt, func(o *proxy.Options) { o.MaxRetries = retries })
			resume := "bytes=" + strconv.Itoa(cut) + "-"
			if tc.ok {
				if err != nil {
					t.Fatalf("download after %d failures in a row (MaxRetries %d): %v", retries, retries, err)
				}
				wantFile(t, out, data)
				rt.wantRanges(t, "", "", resume, resume)
				return
			}
			if err == nil || !strings.Contains(err.Error(), "partial download kept in") {
				t.Fatalf("download after %d failures in a row (MaxRetries %d): %v, want it to give up keeping the part", retries+1, retries, err)
			}
			if n := len(rt.sent()); n != retries+1 {
				t.Errorf("%d requests, want %d", n, retries+1)
			}
			if _, serr := os.Stat(out); serr == nil {
				t.Error("the final name exists after the download gave up")
			}
			if st, serr := os.Stat(out + PartSuffix); serr != nil || st.Size() < cut {
				t.Errorf("the part file is not kept with the %d bytes received: %v", cut, serr)
			}
		})
	}
}

// Guards the end of a reply: one that brought every byte is the end of
// the download, not a failure to retry. With a retry pause of 5 s (the
// longest) the download must finish well within the 4.5 s it is given:
// taking a whole reply for a cut one would cost every download a pause.
func TestDownloadWithoutFailuresNeverPauses(t *testing.T) {
	for _, unknown := range []bool{false, true} {
		t.Run(fmt.Sprintf("size unknown %v", unknown), func(t *testing.T) {
			data := randomBytes(200_000, 51)
			rt := &edgeRuntime{data: data, sizeUnknown: unknown}
			c := edgeClient(t, rt, func(o *proxy.Options) { o.RetryDelay = time.Hour })
			dir := t.TempDir()
			out := filepath.Join(dir, "out.bin")
			ctx, cancel := context.WithTimeout(context.Background(), 4500*time.Millisecond)
			defer cancel()
			if _, err := c.Download(ctx, "content/f.bin", out, nil); err != nil {
				t.Fatalf("a download meeting no failure: %v (did it pause to retry?)", err)
			}
			wantFile(t, out, data)
			if got := rt.sent(); len(got) != 1 {
				t.Errorf("files/ requests %q, want one", got)
			}
		})
	}
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
		reply func(http.ResponseWriter, *http.Request, *edgeRuntime)
	}{
		{"416", status(http.StatusRequestedRangeNotSatisfiable)},
		{"unreadable Content-Range", reply206("bytes garbage", cut)},
		{"Content-Range of another size", reply206(fmt.Sprintf("bytes %d-%d/%d", cut, size+99, size+100), cut)},
		{"Content-Range starting further on", reply206(fmt.Sprintf("bytes %d-%d/%d", cut+1000, size-1, size), cut+1000)},
		{"206 without Content-Range", reply206("", cut)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := &edgeRuntime{data: randomBytes(size, 38), replies: []func(http.ResponseWriter, *http.Request, *edgeRuntime){cutAt(cut), tc.reply}}
			c := edgeClient(t, rt, nil)
			dir := t.TempDir()
			out := filepath.Join(dir, "out.bin")
			if _, err := download(t, c, "content/f.bin", out); err != nil {
				t.Fatalf("download: %v", err)
			}
			if got := fileSHA(t, out); got != shaOf(rt.bytes()) {
				t.Fatalf("SHA-256 %s, want %s: a mangled resume was appended", got, shaOf(rt.bytes()))
			}
			want := []string{"", "bytes=" + strconv.Itoa(cut) + "-", ""}
			if got := rt.sent(); strings.Join(got, "|") != strings.Join(want, "|") {
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
	var replies []func(http.ResponseWriter, *http.Request, *edgeRuntime)
	for range 10 {
		replies = append(replies, cutAt(cut), reply206("", cut))
	}
	rt := &edgeRuntime{data: randomBytes(size, 39), replies: replies}
	c := edgeClient(t, rt, nil)
	dir := t.TempDir()
	_, err := download(t, c, "content/f.bin", filepath.Join(dir, "out.bin"))
	if !errors.Is(err, proxy.ErrCorrupt) {
		t.Fatalf("every resume mangled: %v, want proxy.ErrCorrupt", err)
	}
	if n := len(rt.sent()); n > 8 {
		t.Errorf("%d requests before giving up, want a few restarts", n)
	}
	// The first request and two restarts from byte 0, then it gives up.
	fromZero := 0
	for _, rng := range rt.sent() {
		if rng == "" {
			fromZero++
		}
	}
	if fromZero != 3 {
		t.Errorf("%d requests from byte 0 (%q), want 3: the first and two restarts", fromZero, rt.sent())
	}
	noLeftovers(t, dir)
}
