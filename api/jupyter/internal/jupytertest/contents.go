package jupytertest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// ContentsServer starts a loopback server that answers as a Jupyter
// server would: every contents GET (api/contents/PATH) with body(PATH) as
// JSON, every /files/NAME GET with "data of NAME". It checks no token and
// is closed when the test ends; the result is its URL with a trailing
// slash, a connectionInfo url.
func ContentsServer(t testing.TB, body func(path string) string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, ok := strings.CutPrefix(r.URL.Path, "/files/"); ok {
			fmt.Fprintf(w, "data of %s", p)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body(strings.TrimPrefix(r.URL.Path, "/api/contents/")))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}
