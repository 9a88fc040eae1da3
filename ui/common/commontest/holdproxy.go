package commontest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"
)

// HeldProxy sits on 127.0.0.1 in front of a runtime's proxy: it passes
// every request on, except those its hold function matches, which it
// holds until the client gives up.
type HeldProxy struct {
	// URL is the proxy's address with upstream's path: what a test puts
	// as the runtime's connectionInfo.url.
	URL string
	// Arrived gets a value when a held request has come (its body read
	// first: a server notices the client going away only once it has),
	// Ended when its client has gone. Each buffers eight.
	Arrived, Ended chan struct{}
}

// HoldProxy starts a HeldProxy in front of upstream (a runtime's
// connectionInfo.url) that holds the requests hold matches; it is closed
// when t ends. An upstream that does not parse fails t.
func HoldProxy(t testing.TB, upstream string, hold func(*http.Request) bool) *HeldProxy {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	p := &HeldProxy{Arrived: make(chan struct{}, 8), Ended: make(chan struct{}, 8)}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hold(r) {
			rp.ServeHTTP(w, r)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		p.Arrived <- struct{}{}
		<-r.Context().Done()
		p.Ended <- struct{}{}
	}))
	t.Cleanup(srv.Close)
	p.URL = srv.URL + u.Path
	return p
}
