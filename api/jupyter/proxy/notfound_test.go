package proxy

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
)

// stockNotFound is the shape of a stock jupyter-server's 404 for an
// unknown route or a /files/ miss (measured on Debian's 1.23.3):
// text/html, its "Jupyter Server" page.
const stockNotFound = "<!DOCTYPE HTML>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>Jupyter Server</title>\n</head>\n" +
	"<body><div class=\"error\"><h1>404 : Not Found</h1>\n<p>You are requesting a page that does not exist!</p></div></body></html>\n"

// A 404 from Jupyter itself, whatever its body (JSON on
// the API routes, HTML on unknown routes and /files/), means "not found
// on the server": no renewal. Only the proxy's bare 404 renews the token,
// once.
func TestJupyterNotFoundIsNotAProxyRefusal(t *testing.T) {
	jupytertest.ForEachBackend(t, func(t *testing.T, be jupytertest.Backend) {
		e := newEnv(t, be, colabfake.Options{NoColabExtensions: true})
		c := e.client()
		ctx := context.Background()
		// A Colab route a stock server lacks: HTML 404 on the real
		// server, JSON 404 from the emulator's Jupyter.
		for _, p := range []string{"api/colab/resources", "colab/tty", "files/" + e.P("missing.bin")} {
			resp, err := c.Do(ctx, &Request{Op: "get", Method: http.MethodGet, Path: p, Retry404: true, Remote: p})
			if err == nil {
				resp.Body.Close()
				t.Fatalf("GET %s: no error", p)
			}
			if !errors.Is(err, ErrNotFound) {
				t.Errorf("GET %s: %v, want not found on the server", p, err)
			}
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
			e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
			e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, PathPrefix: "files/", Status: 404, ContentType: tc.ct, Body: tc.body, Times: -1})
			c := e.client()
			resp, err := c.Do(context.Background(), &Request{Op: "download", Method: http.MethodGet, Path: "files/content/x", Retry404: true, Remote: "content/x"})
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
