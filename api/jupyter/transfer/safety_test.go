package transfer

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/testkit"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// Names from the remote listing are untrusted. Every
// local path is built from one validated component per level and stays
// inside the destination; the offending entry is named.
func TestRecursiveDownloadRejectsTraversal(t *testing.T) {
	listings := map[string]string{
		"content/dir": `[{"name":"ok.txt","path":"content/dir/ok.txt","type":"file","size":2}, %s]`,
	}
	bad := []string{
		`{"name":"../../.bashrc","path":"content/dir/../../.bashrc","type":"file"}`,
		`{"name":"ok2.txt","path":"content/other/ok2.txt","type":"file"}`,
		`{"name":"/etc/cron.d/x","path":"/etc/cron.d/x","type":"file"}`,
		`{"name":"..","path":"content","type":"directory"}`,
		`{"name":"a\\..\\..\\b","path":"content/dir/a\\..\\..\\b","type":"file"}`,
		`{"name":"","path":"content/dir/","type":"file"}`,
	}
	for i, entry := range bad {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				p := strings.TrimPrefix(r.URL.Path, "/api/contents/")
				if strings.HasPrefix(r.URL.Path, "/files/") {
					w.Write([]byte("ok"))
					return
				}
				if p == "content/dir" {
					if r.URL.Query().Get("content") == "0" {
						w.Write([]byte(`{"name":"dir","path":"content/dir","type":"directory"}`))
						return
					}
					fmt.Fprintf(w, `{"name":"dir","path":"content/dir","type":"directory","content":`+listings[p]+`}`, entry)
					return
				}
				w.Write([]byte(`{"name":"ok.txt","path":"content/dir/ok.txt","type":"file","size":2}`))
			}))
			defer srv.Close()
			home := t.TempDir()
			sentinel := filepath.Join(home, ".bashrc")
			os.WriteFile(sentinel, []byte("mine"), 0o644)
			c := newCopier(t, proxy.Options{Runtime: "rt-x", Info: api.ConnectionInfo{URL: srv.URL, Token: "tok-123456"}})
			out := filepath.Join(home, "a", "out")
			os.MkdirAll(filepath.Dir(out), 0o755)
			err := c.DownloadPath(context.Background(), "content/dir", out, false, CopyOptions{Recursive: true})
			if !errors.Is(err, proxy.ErrUnsafeName) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("entry %s: %v, want proxy.ErrUnsafeName in one line", entry, err)
			}
			if b, _ := os.ReadFile(sentinel); string(b) != "mine" {
				t.Fatal("the sentinel was overwritten")
			}
			filepath.WalkDir(home, func(p string, d os.DirEntry, err error) error {
				if p != home && p != sentinel && !strings.HasPrefix(p, filepath.Join(home, "a")) {
					t.Errorf("written outside the destination: %s", p)
				}
				return nil
			})
		})
	}
}

// `cp -r` as cp, scp and docker cp: a directory copied to a missing
// destination becomes it; copied into an existing directory it lands
// below it under its own name (trailing slashes change nothing), uploads
// and downloads alike. So repeating a copy nests once, as GNU cp does.
func TestRecursiveCopyIntoAnExistingDirectoryKeepsItsName(t *testing.T) {
	forEachEnvClient(t, func(t *testing.T, e *env, c *Copier) {
		ctx := context.Background()
		local := t.TempDir()
		proj := testkit.WriteTree(t, filepath.Join(local, "proj"), map[string]string{"a.txt": "a", "sub/b.txt": "b"})
		opts := CopyOptions{Recursive: true}
		for i := 0; i < 2; i++ {
			if err := c.UploadPath(ctx, proj, e.P("proj"), false, opts); err != nil {
				t.Fatal(err)
			}
		}
		if got := strings.Join(remoteNames(t, c, e.P("proj")), ","); got != "a.txt,proj,sub" {
			t.Errorf("remote proj holds %s, want a.txt,proj,sub (the second copy went into it)", got)
		}
		if err := c.UploadPath(ctx, proj+"/", e.P("dst")+"/", true, opts); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(remoteNames(t, c, e.P("dst")), ","); got != "a.txt,sub" {
			t.Errorf("remote dst (missing, so the copy) holds %s, want a.txt,sub", got)
		}
		if got := strings.Join(remoteNames(t, c, e.P("dst/sub")), ","); got != "b.txt" {
			t.Errorf("remote dst/sub holds %s, want b.txt", got)
		}
		out := filepath.Join(local, "out")
		if err := c.DownloadPath(ctx, e.P("dst"), out, false, opts); err != nil {
			t.Fatal(err)
		}
		// out exists now: the same download goes to out/dst.
		if err := c.DownloadPath(ctx, e.P("dst"), out, false, opts); err != nil {
			t.Fatal(err)
		}
		var files []string
		filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if !d.IsDir() {
				rel, _ := filepath.Rel(out, p)
				files = append(files, filepath.ToSlash(rel))
			}
			return nil
		})
		if strings.Join(files, ",") != "a.txt,dst/a.txt,dst/sub/b.txt,sub/b.txt" {
			t.Errorf("downloaded twice: %v, want the copy in out, then in out/dst", files)
		}
		// A file into an existing directory keeps its name.
		if err := c.UploadPath(ctx, filepath.Join(proj, "a.txt"), e.P("dst"), false, CopyOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Stat(ctx, e.P("dst/a.txt")); err != nil {
			t.Error(err)
		}
		// A directory without -r is refused.
		if err := c.UploadPath(ctx, proj, e.P("x"), false, CopyOptions{}); err == nil || !strings.Contains(err.Error(), "-r") {
			t.Errorf("directory without -r: %v", err)
		}
	})
}

// Hidden paths get an error naming the restriction.
func TestHiddenPath(t *testing.T) {
	forEachEnvClient(t, func(t *testing.T, e *env, c *Copier) {
		_, err := c.Download(context.Background(), e.P(".env"), filepath.Join(t.TempDir(), "x"), nil)
		if !errors.Is(err, proxy.ErrHidden) || !strings.Contains(err.Error(), "hidden") {
			t.Fatalf("hidden file: %v", err)
		}
	})
}

// A recursive upload skips hidden entries (files and whole directories:
// Jupyter refuses to create them), copies the rest and warns once with
// their count; a recursive download's warning says hidden names may be
// missing, not that some were skipped.
func TestRecursiveUploadSkipsHidden(t *testing.T) {
	forEachEnvClient(t, func(t *testing.T, e *env, c *Copier) {
		ctx := context.Background()
		proj := testkit.WriteTree(t, filepath.Join(t.TempDir(), "proj"), map[string]string{
			".git/objects/o": "o", ".hidden": "y", "sub/.env": "e", "top.py": "z", "sub/f.txt": "x"})
		var warns []string
		opts := CopyOptions{Recursive: true, Warn: func(s string) { warns = append(warns, s) }}
		if err := c.UploadPath(ctx, proj, e.P("proj"), false, opts); err != nil {
			t.Fatalf("upload with hidden entries: %v", err)
		}
		if got := strings.Join(remoteNames(t, c, e.P("proj")), ","); got != "sub,top.py" {
			t.Errorf("remote proj holds %s, want sub,top.py", got)
		}
		if got := strings.Join(remoteNames(t, c, e.P("proj/sub")), ","); got != "f.txt" {
			t.Errorf("remote proj/sub holds %s, want f.txt", got)
		}
		if len(warns) != 1 || !strings.Contains(warns[0], "skipped 3 hidden entries") {
			t.Errorf("warnings %q, want one counting 3 hidden entries", warns)
		}
		warns = nil
		if err := c.DownloadPath(ctx, e.P("proj"), filepath.Join(t.TempDir(), "out"), false, opts); err != nil {
			t.Fatal(err)
		}
		if len(warns) != 1 || strings.Contains(warns[0], "are not copied") || !strings.Contains(warns[0], "any in /"+e.P("proj")) {
			t.Errorf("download warnings %q, want one saying hidden names in /%s may be missing", warns, e.P("proj"))
		}
	})
}

// RemoveAll removes a tree in one DELETE of its top, which a server with
// its trash on does whole; the emulator deletes a runtime's files with
// the runtime.
func TestRemoveAllAndRuntimeDeletion(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{DeleteToTrash: true})
	c := e.client()
	ctx := context.Background()
	if err := c.MkdirAll(ctx, e.P("t/u/v")); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "f")
	os.WriteFile(p, []byte("x"), 0o644)
	if _, err := upload(t, c, p, e.P("t/u/f")); err != nil {
		t.Fatal(err)
	}
	var removed []string
	if err := c.RemoveAll(ctx, e.P("t"), func(p string) { removed = append(removed, p) }); err != nil {
		t.Fatal(err)
	}
	if len(removed) != 1 || removed[0] != e.P("t") {
		t.Fatalf("removed %v, want the top directory alone", removed)
	}
	if _, err := c.Stat(ctx, e.P("t")); !errors.Is(err, proxy.ErrNotFound) {
		t.Fatalf("after RemoveAll: %v", err)
	}
	if _, err := upload(t, c, p, e.P("keep")); err != nil {
		t.Fatal(err)
	}
	if err := e.Svc.DeleteRuntime(ctx, e.Rt.Name); err != nil {
		t.Fatal(err)
	}
	rt, err := e.Srv.AddRuntime(api.Runtime{Name: e.Rt.Name, ConnectionInfo: &api.ConnectionInfo{}})
	if err != nil {
		t.Fatal(err)
	}
	c2 := e.client(func(o *proxy.Options) { o.Info = *rt.ConnectionInfo })
	if _, err := c2.Stat(ctx, e.P("keep")); !errors.Is(err, proxy.ErrNotFound) {
		t.Fatalf("a file outlived its runtime: %v", err)
	}
}

// Field cases 49 (b) and 51: behind a contents manager that ignores
// "chunk" (each piece overwrites the last) the server still answers 200 to
// every chunk; the size read back after the last one exposes it, the
// upload fails as corrupt and nothing is left under the final name.
func TestUploadDetectsOverwritingServer(t *testing.T) {
	files := map[string][]byte{"content": nil}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := strings.TrimPrefix(r.URL.Path, "/api/contents/")
		switch r.Method {
		case http.MethodGet:
			b, ok := files[p]
			if !ok {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(404)
				w.Write([]byte(`{"message":"file or directory does not exist"}`))
				return
			}
			typ := "file"
			if p == "content" {
				typ = "directory"
			}
			fmt.Fprintf(w, `{"name":%q,"path":%q,"type":%q,"size":%d}`, p[strings.LastIndex(p, "/")+1:], p, typ, len(b))
		case http.MethodPut:
			var m struct{ Content string }
			json.NewDecoder(r.Body).Decode(&m)
			b, _ := base64.StdEncoding.DecodeString(m.Content)
			files[p] = b // ignores "chunk": only the last piece survives
			fmt.Fprintf(w, `{"name":"x","path":%q,"type":"file","size":%d}`, p, len(b))
		case http.MethodPatch:
			var m struct{ Path string }
			json.NewDecoder(r.Body).Decode(&m)
			files[m.Path] = files[p]
			delete(files, p)
			fmt.Fprintf(w, `{"name":"x","path":%q,"type":"file","size":%d}`, m.Path, len(files[m.Path]))
		case http.MethodDelete:
			delete(files, p)
			w.WriteHeader(204)
		}
	}))
	defer srv.Close()
	c := newCopier(t, proxy.Options{Runtime: "rt-x", Info: api.ConnectionInfo{URL: srv.URL, Token: "tok-123456"}, ChunkSize: 1 << 20})
	data := strings.Repeat("x", 3<<20+5)
	_, err := c.Upload(context.Background(), "content/big.bin", strings.NewReader(data), int64(len(data)), nil)
	if !errors.Is(err, proxy.ErrCorrupt) || !strings.Contains(err.Error(), fmt.Sprint(len(data))) {
		t.Fatalf("upload to an overwriting server: %v, want proxy.ErrCorrupt naming the sizes", err)
	}
	if _, ok := files["content/big.bin"]; ok {
		t.Fatal("a corrupt upload was left under the final name")
	}
	if _, ok := files["content/big.bin"+PartSuffix]; ok {
		t.Fatal("the part file was left behind")
	}
}

// A recursive download stats only the top path: every file and
// directory below is known from its parent's listing (size,
// last_modified, type), so none costs a second round trip.
func TestTreeWalksUseListingMetadata(t *testing.T) {
	forEachEnvClient(t, func(t *testing.T, e *env, c *Copier) {
		ctx := context.Background()
		local := t.TempDir()
		want := map[string]string{"a.txt": "alpha", "b.txt": "bravo!", "sub/c.txt": "charlie", "sub/d.txt": "delta delta"}
		proj := testkit.WriteTree(t, filepath.Join(local, "proj"), want)
		if err := c.UploadPath(ctx, proj, e.P("proj"), false, CopyOptions{Recursive: true}); err != nil {
			t.Fatal(err)
		}
		var stats atomic.Int32
		e.SetOnProxy(func(r *http.Request) {
			if strings.Contains(r.URL.Path, "/api/contents/") && r.URL.Query().Get("content") == "0" {
				stats.Add(1)
			}
		})
		out := filepath.Join(local, "out")
		if err := c.DownloadPath(ctx, e.P("proj"), out, false, CopyOptions{Recursive: true}); err != nil {
			t.Fatal(err)
		}
		if n := stats.Swap(0); n != 1 {
			t.Errorf("recursive download of 2 directories and 4 files sent %d stats, want 1 (the top)", n)
		}
		for name, body := range want {
			if b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(name))); err != nil || string(b) != body {
				t.Errorf("downloaded %s: %q, %v; want %q", name, b, err, body)
			}
		}
	})
}

// The link check's Python counts the hidden names below the directory
// (a hidden directory once, not what it holds), the names a download
// cannot copy.
func TestLinkCodeCountsHiddenNames(t *testing.T) {
	root := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(root, ".git", "objects"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, ".git", "objects", ".o"), []byte("o"), 0o644))
	must(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, ".env"), []byte("e"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "sub", ".x"), []byte("x"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "sub", "a.txt"), []byte("a"), 0o644))
	l, err := ParseLinks(runLinkCode(t, root))
	if err != nil || l.Hidden != 3 {
		t.Fatalf("hidden = %d (%v), want 3 (.git, .env, sub/.x)", l.Hidden, err)
	}
	if l, err := ParseLinks(runLinkCode(t, filepath.Join(root, "sub", "a.txt")+"-none")); err == nil {
		t.Fatalf("a missing root: %+v", l)
	}
	must(t, os.RemoveAll(filepath.Join(root, ".git")))
	must(t, os.Remove(filepath.Join(root, ".env")))
	must(t, os.Remove(filepath.Join(root, "sub", ".x")))
	if l, err := ParseLinks(runLinkCode(t, root)); err != nil || l.Hidden != 0 {
		t.Fatalf("hidden = %d (%v) in a tree without hidden names, want 0", l.Hidden, err)
	}
}

// A recursive download warns of hidden names only when the runtime's
// check found some, and says how many; a tree without any downloads
// without a word. Without the check (-L) it still says some may be
// missing, since nothing counted them.
func TestDownloadWarnsOfHiddenNamesOnlyWhenThereAreSome(t *testing.T) {
	files := t.TempDir()
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{FilesDir: files})
	c := e.client()
	ctx := context.Background()
	proj := filepath.Join(t.TempDir(), "proj")
	must(t, os.MkdirAll(proj, 0o755))
	must(t, os.WriteFile(filepath.Join(proj, "a.txt"), []byte("a"), 0o644))
	if err := c.UploadPath(ctx, proj, e.P("proj"), false, CopyOptions{Recursive: true}); err != nil {
		t.Fatal(err)
	}
	hidden := 0
	check := func(context.Context, string) (Links, error) { return Links{Hidden: hidden}, nil }
	var warns []string
	o := CopyOptions{Recursive: true, Links: check, Warn: func(s string) { warns = append(warns, s) }}
	if err := c.DownloadPath(ctx, e.P("proj"), filepath.Join(t.TempDir(), "out"), false, o); err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 {
		t.Errorf("a tree without hidden names warned %q", warns)
	}
	hidden = 2
	if err := c.DownloadPath(ctx, e.P("proj"), filepath.Join(t.TempDir(), "out"), false, o); err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || !strings.HasPrefix(warns[0], "2 hidden names in /"+e.P("proj")+" not copied") {
		t.Errorf("warnings %q, want one counting 2 hidden names", warns)
	}
}
