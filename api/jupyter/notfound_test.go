package jupyter

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
)

// stockNotFound is the shape of a stock jupyter-server's 404 for an
// unknown route or a /files/ miss (measured on Debian's 1.23.3, field
// case 75): text/html, its "Jupyter Server" page.
const stockNotFound = "<!DOCTYPE HTML>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>Jupyter Server</title>\n</head>\n" +
	"<body><div class=\"error\"><h1>404 : Not Found</h1>\n<p>You are requesting a page that does not exist!</p></div></body></html>\n"

// Field case 75: a 404 from Jupyter itself, whatever its body (JSON on
// the API routes, HTML on unknown routes and /files/), means "not found
// on the server": no renewal. Only the proxy's bare 404 renews the token,
// once.
func TestJupyterNotFoundIsNotAProxyRefusal(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		// The emulator serves Colab's routes (issue 21); without them it
		// answers as a stock server does.
		e := newEnv(t, be, colabfake.Options{NoColabExtensions: true})
		c := e.client()
		ctx := context.Background()
		// A Colab route a stock server lacks: HTML 404 on the real
		// server and on the emulator without Colab's routes.
		for _, p := range []string{"api/colab/resources", "colab/tty", "files/" + e.p("missing.bin")} {
			resp, err := c.do(ctx, &request{op: "get", method: http.MethodGet, path: p, retry404: true, remote: p})
			if err == nil {
				resp.Body.Close()
				t.Fatalf("GET %s: no error", p)
			}
			if !errors.Is(err, ErrNotFound) {
				t.Errorf("GET %s: %v, want not found on the server", p, err)
			}
		}
		if _, err := c.Download(ctx, e.p("missing.bin"), filepath.Join(t.TempDir(), "x"), nil); !errors.Is(err, ErrNotFound) || strings.Contains(err.Error(), "resume") {
			t.Errorf("download of a missing file: %v, want not found and no resume advice", err)
		}
		if n := c.Renewals(); n != 0 {
			t.Errorf("Jupyter's own 404s renewed the token %d times, want 0", n)
		}
	})
}

// The proxy's own 404 (empty body) still renews once, and a front end's
// HTML page without Jupyter's fingerprint is not taken for Jupyter's.
func TestProxyBare404StillRenews(t *testing.T) {
	for _, tc := range []struct {
		name, ct, body string
		want           error
	}{
		{"bare", "", "", ErrRefused},
		{"a front end's HTML", "text/html; charset=UTF-8", "<html><title>Error 404 (Not Found)!!1</title></html>", ErrRefused},
		{"Jupyter's HTML", "text/html", stockNotFound, ErrNotFound},
		{"Jupyter's JSON", "application/json", `{"message": "file or directory does not exist: 'content/x'", "reason": null}`, ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, backendEmulator, colabfake.Options{})
			e.srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, PathPrefix: "files/", Status: 404, ContentType: tc.ct, Body: tc.body, Times: -1})
			c := e.client()
			resp, err := c.do(context.Background(), &request{op: "download", method: http.MethodGet, path: "files/content/x", retry404: true, remote: "content/x"})
			if err == nil {
				resp.Body.Close()
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("%v, want %v", err, tc.want)
			}
			// The proxy's 404 renews and retries once; the retry's 404
			// renews again only to tell a gone runtime from a refusal.
			if n := c.Renewals(); (tc.want == ErrRefused) != (n > 0) || n > 2 {
				t.Errorf("renewed %d times", n)
			}
		})
	}
}

// Field case 75's kind in cp -r: an entry the listing names whose GET
// then answers Jupyter's 404 is skipped with a warning naming it, the
// rest is copied, and the download ends with ErrSkipped (exit 1), no
// resume advice. On the real server the file is removed between the
// listing and its GET, so the 404 is jupyter-server's own HTML page.
func TestRecursiveDownloadSkipsListedEntryThatIsGone(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		e := newEnv(t, be, colabfake.Options{})
		c := e.client()
		ctx := context.Background()
		src := t.TempDir()
		for _, n := range []string{"a.txt", "b.txt", "c.txt"} {
			if err := os.WriteFile(filepath.Join(src, n), []byte("data of "+n), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		remote := e.p("tree")
		if err := c.UploadPath(ctx, src, remote, false, CopyOptions{Recursive: true}); err != nil {
			t.Fatal(err)
		}
		gone := remote + "/b.txt"
		if be == backendJupyter {
			var once sync.Once
			e.setOnProxy(func(r *http.Request) {
				if strings.HasSuffix(r.URL.Path, "/files/"+gone) {
					once.Do(func() { _ = os.Remove(filepath.Join(jupyterServer.root, gone)) })
				}
			})
		} else {
			e.srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, PathPrefix: "files/" + gone, Status: 404,
				ContentType: "text/html", Body: stockNotFound, Times: -1})
		}
		dst := filepath.Join(t.TempDir(), "out")
		var warns []string
		err := c.DownloadPath(ctx, remote, dst, false, CopyOptions{Recursive: true, Warn: func(s string) { warns = append(warns, s) }})
		if !errors.Is(err, ErrSkipped) || !strings.Contains(err.Error(), "/"+gone) || strings.Contains(err.Error(), "resume") {
			t.Fatalf("DownloadPath: %v, want ErrSkipped naming /%s, without resume advice", err, gone)
		}
		noLeftovers(t, dst, "a.txt", "c.txt")
		named := false
		for _, w := range warns {
			named = named || strings.Contains(w, "skipped rt-files:/"+gone+":")
		}
		if !named {
			t.Errorf("warnings %q: none names the skipped entry", warns)
		}
		if n := c.Renewals(); n != 0 {
			t.Errorf("Jupyter's 404 renewed the token %d times", n)
		}
	})
}
