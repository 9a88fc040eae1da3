// Package holdproxy puts a proxy on loopback in front of a runtime's
// Jupyter proxy that passes every request on but those it holds: a
// transfer stalled mid-way, for the tests of what closing its pane or
// cancelling it does. Tests only; it listens on 127.0.0.1 alone.
package holdproxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
)

// Proxy is a started proxy: a held request is read whole and then kept
// waiting until its client gives up. Arrived gets a value when a held
// request comes, Ended when its client has gone.
type Proxy struct {
	URL            string // the runtime's connectionInfo.url through the proxy
	Arrived, Ended <-chan struct{}
}

// Downloads is the hold of Start for downloads: the requests for a
// file's bytes (/files/…).
func Downloads(r *http.Request) bool { return strings.Contains(r.URL.Path, "/files/") }

// Start starts a Proxy in front of upstream (a runtime's
// connectionInfo.url, "http://127.0.0.1:PORT/path/"), holding the
// requests hold matches; it closes when the test ends. An upstream that
// is not a URL fails the test. Arrived and Ended hold up to 8 values
// unread; a ninth held request waits for the test to read one.
func Start(t testing.TB, upstream string, hold func(*http.Request) bool) Proxy {
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
	return Proxy{URL: srv.URL + u.Path, Arrived: arrived, Ended: ended}
}
