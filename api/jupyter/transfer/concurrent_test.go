package transfer

// cp -r moves files several at a time, a small file in one
// request, reported in path order, and one file's failure does not lose
// the others.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/testkit"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// record collects what a copy reports: files (OnFile, in call order),
// warnings and plans.
type record struct {
	mu    sync.Mutex
	files []FileResult
	warns []string
	plans string // Planned calls, each "[N files, B bytes]"
}

func (r *record) opts(jobs int) CopyOptions {
	return CopyOptions{Recursive: true, Jobs: jobs,
		OnFile: func(f FileResult) { r.mu.Lock(); r.files = append(r.files, f); r.mu.Unlock() },
		Warn:   func(s string) { r.mu.Lock(); r.warns = append(r.warns, s); r.mu.Unlock() }}
}

// planned records a Planned call; one made after a file was reported
// is marked so.
func (r *record) planned(files int, bytes int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	late := ""
	if len(r.files) > 0 {
		late = " after a file"
	}
	r.plans += fmt.Sprintf("[%d files, %d bytes%s]", files, bytes, late)
}

// names are the reported files' local sides (upload: Src, download: Dst)
// relative to root, in the order reported.
func (r *record) names(root string, upload bool) []string {
	var out []string
	for _, f := range r.files {
		p := f.Dst
		if upload {
			p = f.Src
		}
		rel, _ := filepath.Rel(root, p)
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

// localTree writes files (relative name: content) below a new directory.
func localTree(t *testing.T, files map[string]string) string {
	t.Helper()
	return testkit.WriteTree(t, filepath.Join(t.TempDir(), "tree"), files)
}

// A recursive upload into an existing directory holding an old copy of
// one file: one request for each directory (one listing of the
// destination, one mkdir for the new subdirectory) and one PUT a file;
// every file lands with its bytes, the old one replaced, and the files
// are reported in path order although four move at once, after Planned
// announced the 12 files and their bytes; a tree without hidden names
// warns nothing. Downloading the tree back costs a stat and a listing
// per directory and one GET a file, announced by Planned with the same
// count and bytes (the listings' sizes) and reported in path order too.
func TestRecursiveCopyRequestsPerFile(t *testing.T) {
	forEachEnvClient(t, func(t *testing.T, e *env, c *Copier) {
		ctx := context.Background()
		files := map[string]string{}
		for i := range 10 {
			files[fmt.Sprintf("f%02d.txt", i)] = strings.Repeat(string(rune('a'+i)), 100+i)
		}
		files["sub/g.txt"], files["sub/h.txt"] = "g", "h"
		src := localTree(t, files)
		// cp -r tree RT:dst, dst holding an older copy of tree: the
		// copy goes into dst/tree (its own name), merged.
		if err := c.MkdirAll(ctx, e.P("dst/tree")); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Upload(ctx, e.P("dst/tree/f03.txt"), strings.NewReader("old, longer than the new one, much longer"), 41, nil); err != nil {
			t.Fatal(err)
		}
		var wantBytes int64
		for _, body := range files {
			wantBytes += int64(len(body))
		}
		var up record
		upOpts := up.opts(4)
		upOpts.Planned = up.planned
		before, _ := e.Srv.ProxyRequests()
		if err := c.UploadPath(ctx, src, e.P("dst"), false, upOpts); err != nil {
			t.Fatal(err)
		}
		after, _ := e.Srv.ProxyRequests()
		if got, want := up.plans, fmt.Sprintf("[%d files, %d bytes]", len(files), wantBytes); got != want {
			t.Errorf("upload announced %s, want %s before the first file", got, want)
		}
		if len(up.warns) != 0 {
			t.Errorf("upload of a tree without hidden names warned %q", up.warns)
		}
		// 12 PUTs, a stat of dst (a directory: the copy goes in it),
		// dst/tree's listing, sub's mkdir.
		if got := after - before; got != len(files)+3 {
			t.Errorf("upload of %d files in 2 directories took %d requests, want %d", len(files), got, len(files)+3)
		}
		want := "f00.txt,f01.txt,f02.txt,f03.txt,f04.txt,f05.txt,f06.txt,f07.txt,f08.txt,f09.txt,sub/g.txt,sub/h.txt"
		if got := strings.Join(up.names(src, true), ","); got != want {
			t.Errorf("upload reported %s, want path order %s", got, want)
		}
		out := filepath.Join(t.TempDir(), "out")
		var down record
		downOpts := down.opts(4)
		downOpts.Planned = down.planned
		before, _ = e.Srv.ProxyRequests()
		if err := c.DownloadPath(ctx, e.P("dst/tree"), out, false, downOpts); err != nil {
			t.Fatal(err)
		}
		after, _ = e.Srv.ProxyRequests()
		if got, want := down.plans, fmt.Sprintf("[%d files, %d bytes]", len(files), wantBytes); got != want {
			t.Errorf("download announced %s, want %s before the first file", got, want)
		}
		// A stat of the source, a listing of each directory, 12 GETs.
		if got := after - before; got != len(files)+3 {
			t.Errorf("download of %d files in 2 directories took %d requests, want %d", len(files), got, len(files)+3)
		}
		if got := strings.Join(down.names(out, false), ","); got != want {
			t.Errorf("download reported %s, want path order %s", got, want)
		}
		for name, body := range files {
			if got := readOr(t, filepath.Join(out, filepath.FromSlash(name))); got != body {
				t.Errorf("%s came back as %q, want %q", name, got, body)
			}
		}
		noLeftovers(t, out, "f00.txt", "f01.txt", "f02.txt", "f03.txt", "f04.txt", "f05.txt", "f06.txt", "f07.txt", "f08.txt", "f09.txt", "sub")
	})
}

// One file that cannot be uploaded (a directory is in its way on the
// runtime) does not stop the others: they all land and are reported,
// and the copy then fails with that file's own error (ErrIsDir).
func TestRecursiveUploadOneFailureKeepsTheRest(t *testing.T) {
	e, c := newEnvClient(t, jupytertest.Emulator)
	ctx := context.Background()
	src := localTree(t, map[string]string{"a.txt": "a", "b.txt": "b", "c.txt": "c", "d.txt": "d", "e.txt": "e"})
	if err := c.MkdirAll(ctx, e.P("dst/tree/c.txt")); err != nil {
		t.Fatal(err)
	}
	var r record
	err := c.UploadPath(ctx, src, e.P("dst"), false, r.opts(2))
	var je *proxy.Error
	if !errors.As(err, &je) || !errors.Is(err, proxy.ErrIsDir) || !strings.HasSuffix(je.Path, "dst/tree/c.txt") {
		t.Fatalf("err = %v, want ErrIsDir for dst/tree/c.txt", err)
	}
	if got := strings.Join(r.names(src, true), ","); got != "a.txt,b.txt,d.txt,e.txt" {
		t.Errorf("reported %s, want the four others in path order", got)
	}
	if got := strings.Join(remoteNames(t, c, e.P("dst/tree")), ","); got != "a.txt,b.txt,c.txt,d.txt,e.txt" {
		t.Errorf("the runtime has %s", got)
	}
}

// Two files the runtime's server keeps failing (500 every time) are each
// named in a warning after the others were downloaded; the error counts
// them, of their kind (ErrServer); nothing appears under their names,
// only their part files, kept for the next run to resume.
func TestRecursiveDownloadFailuresKeepTheRest(t *testing.T) {
	e, c := newEnvClient(t, jupytertest.Emulator)
	ctx := context.Background()
	putTree(t, e, c, map[string]string{"d/a.txt": "a", "d/b.txt": "b", "d/c.txt": "c", "d/e.txt": "e", "d/f.txt": "f"})
	for _, name := range []string{"b.txt", "e.txt"} {
		e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Method: http.MethodGet,
			PathPrefix: "files/" + e.P("d/"+name), Status: 500, Times: 100})
	}
	defer e.Srv.ClearProxyFaults()
	out := filepath.Join(t.TempDir(), "out")
	var r record
	err := c.DownloadPath(ctx, e.P("d"), out, false, r.opts(3))
	if !errors.Is(err, proxy.ErrServer) || !strings.Contains(err.Error(), "2 entries not copied") {
		t.Fatalf("err = %v, want ErrServer counting 2 entries", err)
	}
	if got := strings.Join(r.names(out, false), ","); got != "a.txt,c.txt,f.txt" {
		t.Errorf("reported %s, want the three others in path order", got)
	}
	var named []string
	for _, w := range r.warns {
		if strings.HasPrefix(w, "not copied: ") {
			named = append(named, filepath.Base(strings.SplitN(strings.TrimPrefix(w, "not copied: "), ":", 3)[1]))
		}
	}
	if got := strings.Join(named, ","); got != "b.txt,e.txt" {
		t.Errorf("warnings named %q, want b.txt then e.txt (%q)", got, r.warns)
	}
	noLeftovers(t, out, "a.txt", "b.txt"+PartSuffix, "c.txt", "e.txt"+PartSuffix, "f.txt")
}

// A recursive download where one file fails (the server answers 500
// every time) and nothing else goes wrong copies the others and returns
// that file's own error, as a single copy would, without counting it in
// a "not copied" line.
func TestRecursiveDownloadOneFailureIsReturnedAsItIs(t *testing.T) {
	e, c := newEnvClient(t, jupytertest.Emulator)
	ctx := context.Background()
	putTree(t, e, c, map[string]string{"d/a.txt": "a", "d/b.txt": "b", "d/c.txt": "c"})
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Method: http.MethodGet,
		PathPrefix: "files/" + e.P("d/b.txt"), Status: 500, Times: 100})
	defer e.Srv.ClearProxyFaults()
	out := filepath.Join(t.TempDir(), "out")
	var r record
	err := c.DownloadPath(ctx, e.P("d"), out, false, r.opts(2))
	var je *proxy.Error
	if !errors.As(err, &je) || !errors.Is(err, proxy.ErrServer) || !strings.HasSuffix(je.Path, "d/b.txt") || strings.Contains(err.Error(), "not copied") {
		t.Fatalf("err = %v, want b.txt's own ErrServer", err)
	}
	if got := strings.Join(r.names(out, false), ","); got != "a.txt,c.txt" {
		t.Errorf("reported %s, want the two others", got)
	}
	for _, w := range r.warns {
		if strings.HasPrefix(w, "not copied: ") {
			t.Errorf("warned %q: a single failure is the error, not a warning", w)
		}
	}
}

// cp -r up where a file on the runtime is in the way of one of the
// source's directories: the files beside it are copied, the runtime's
// file is left alone, and the copy fails with ErrNotDir naming that
// directory, never silently leaving its files out.
func TestRecursiveUploadFileInTheWayOfADirectory(t *testing.T) {
	forEachEnvClient(t, func(t *testing.T, e *env, c *Copier) {
		ctx := context.Background()
		putTree(t, e, c, map[string]string{"dst/tree/sub": "mine"})
		src := localTree(t, map[string]string{"a.txt": "a", "sub/b.txt": "b", "z.txt": "z"})
		err := c.UploadPath(ctx, src, e.P("dst"), false, CopyOptions{Recursive: true})
		var je *proxy.Error
		if !errors.As(err, &je) || !errors.Is(err, proxy.ErrNotDir) || !strings.HasSuffix(je.Path, "dst/tree/sub") {
			t.Fatalf("err = %v, want ErrNotDir naming dst/tree/sub", err)
		}
		if got := strings.Join(remoteNames(t, c, e.P("dst/tree")), ","); got != "a.txt,sub,z.txt" {
			t.Errorf("the runtime's dst/tree holds %s, want a.txt,sub,z.txt", got)
		}
		if m, err := c.Stat(ctx, e.P("dst/tree/sub")); err != nil || m.IsDir() || m.Size != 4 {
			t.Errorf("the runtime's dst/tree/sub is now %+v (%v), want its own 4-byte file", m, err)
		}
	})
}

// runPlan: at most n jobs run at once; finish sees every job in plan
// order whatever order they end in; after a failure that would fail
// every file (the runtime gone) no other job starts, and that failure
// is returned once the running ones are finished.
func TestRunPlanOrderAndStop(t *testing.T) {
	ctx := context.Background()
	const n = 3
	var running, most atomic.Int32
	release := make([]chan struct{}, 8)
	for i := range release {
		release[i] = make(chan struct{})
	}
	var finished []int
	var started atomic.Int32
	jobs := make([]fileJob, 8)
	for i := range jobs {
		jobs[i] = fileJob{
			run: func(ctx context.Context) (FileResult, error) {
				started.Add(1)
				r := running.Add(1)
				for m := most.Load(); r > m && !most.CompareAndSwap(m, r); m = most.Load() {
				}
				<-release[i]
				running.Add(-1)
				return FileResult{Bytes: int64(i)}, nil
			},
			finish: func(r FileResult, err error) { finished = append(finished, int(r.Bytes)) },
		}
	}
	// End them last to first: the later ones as soon as they start.
	go func() {
		for i := len(release) - 1; i >= 0; i-- {
			close(release[i])
		}
	}()
	if err := runPlan(ctx, jobs, n); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(finished) != "[0 1 2 3 4 5 6 7]" || most.Load() > n {
		t.Errorf("finished %v with up to %d at once, want plan order with at most %d", finished, most.Load(), n)
	}

	gone := &proxy.Error{Op: "download", Kind: proxy.ErrRuntimeGone}
	finished, started = nil, atomic.Int32{}
	for i := range jobs {
		jobs[i].run = func(ctx context.Context) (FileResult, error) {
			started.Add(1)
			if i == 2 {
				return FileResult{}, gone
			}
			return FileResult{Bytes: int64(i)}, nil
		}
	}
	if err := runPlan(ctx, jobs, 1); err != gone {
		t.Fatalf("err = %v, want the runtime gone", err)
	}
	if fmt.Sprint(finished) != "[0 1]" || started.Load() != 3 {
		t.Errorf("finished %v after %d started, want [0 1] and nothing started after the failure", finished, started.Load())
	}
}

// runPlan: a copy interrupted (ctx cancelled) while no file failed, the
// file in flight ending well, starts no other file and fails with the
// cancellation; it never reports success for a copy that stopped half
// way.
func TestRunPlanInterruptedBetweenFilesFails(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var finished []int
	var started atomic.Int32
	jobs := make([]fileJob, 4)
	for i := range jobs {
		jobs[i] = fileJob{
			run: func(context.Context) (FileResult, error) {
				started.Add(1)
				if i == 1 {
					cancel() // the user interrupts as this file completes
				}
				return FileResult{Bytes: int64(i)}, nil
			},
			finish: func(r FileResult, err error) { finished = append(finished, int(r.Bytes)) },
		}
	}
	if err := runPlan(ctx, jobs, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("runPlan = %v, want the cancellation", err)
	}
	if fmt.Sprint(finished) != "[0 1]" || started.Load() != 2 {
		t.Errorf("finished %v after %d started, want [0 1] and nothing started after the interruption", finished, started.Load())
	}
}
