package testkit

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// HeaderRecorder is a loopback server that records the headers of every
// request it receives and answers each 200 with the body "stolen": the
// other origin of a redirect test, which must see nothing a client was
// not meant to send it.
type HeaderRecorder struct {
	*httptest.Server
	mu   sync.Mutex
	seen []http.Header
}

// NewHeaderRecorder starts a HeaderRecorder, closed when the test ends.
func NewHeaderRecorder(t testing.TB) *HeaderRecorder {
	r := &HeaderRecorder{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.seen = append(r.seen, req.Header.Clone())
		r.mu.Unlock()
		_, _ = io.WriteString(w, "stolen")
	}))
	t.Cleanup(r.Close)
	return r
}

// Requests returns the headers of each request received so far, in order.
func (r *HeaderRecorder) Requests() []http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]http.Header(nil), r.seen...)
}

// Values returns header name's value in each request received so far
// ("" where a request lacked it).
func (r *HeaderRecorder) Values(name string) []string {
	var out []string
	for _, h := range r.Requests() {
		out = append(out, h.Get(name))
	}
	return out
}
