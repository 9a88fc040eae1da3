package commontest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
)

// HeldProxy is a proxy on loopback in front of a runtime's Jupyter proxy
// that passes every request on but those it holds: a held request is read
// whole and then kept waiting until the client gives up (a transfer
// stalled mid-way, to close its pane or cancel it under). Arrived gets a
// value when a held request comes, Ended when its client has gone.
type HeldProxy struct {
	URL            string // the runtime's connectionInfo.url through the proxy
	Arrived, Ended <-chan struct{}
}

// HoldDownloads is the hold of HoldProxy for downloads: the requests
// for a file's bytes (/files/…).
func HoldDownloads(r *http.Request) bool { return strings.Contains(r.URL.Path, "/files/") }

// HoldProxy starts a HeldProxy in front of upstream (a runtime's
// connectionInfo.url, "http://127.0.0.1:PORT/path/"), holding the
// requests hold matches; it closes when the test ends. An upstream that
// is not a URL fails the test. Arrived and Ended hold up to 8 values
// unread; a ninth held request waits for the test to read one.
func HoldProxy(t testing.TB, upstream string, hold func(*http.Request) bool) HeldProxy {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	arrived, ended := make(chan struct{}, 8), make(chan struct{}, 8)
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hold(r) {
			rp.ServeHTTP(w, r)
			return
		}
		// Read the body first: the server notices the client going away
		// only once it has.
		_, _ = io.Copy(io.Discard, r.Body)
		arrived <- struct{}{}
		<-r.Context().Done()
		ended <- struct{}{}
	}))
	t.Cleanup(srv.Close)
	return HeldProxy{URL: srv.URL + u.Path, Arrived: arrived, Ended: ended}
}
