// Package polltest gives the tests of the monitor's poller (ui/poll) and
// of the dashboard that drives it a runtime proxy on loopback: it answers
// the routes the monitor asks (/api/colab/resources, /api/kernels and
// /api/terminals: none) with fixed figures and counts the requests by
// path.
package polltest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	apimon "github.com/colabdash/colabdash/api/monitor"
)

// MemTotal and MemFree are the memory, in bytes, every runtime behind a
// Proxy reports: 400 of 1000 used.
const MemTotal, MemFree = 1000, 600

// LastActivity is the default last_activity of the one kernel (idle, one
// connection) every runtime behind a Proxy reports: 2026-11-29 16:48 UTC.
var LastActivity = time.Date(2026, 11, 29, 16, 48, 0, 0, time.UTC)

// Options say which proxy tokens a Proxy accepts and when its kernels
// were last active.
type Options struct {
	// Tokens are the proxy tokens accepted; none: any token.
	Tokens []string
	// LastActivity is the kernels' last_activity; zero: LastActivity.
	LastActivity time.Time
	// NoResources answers the resources route with the proxy's bare 404
	// even for a token it takes (a route the runtime lacks).
	NoResources bool
}

// Proxy is a runtime proxy on 127.0.0.1 for any number of runtimes, its
// paths /proxy/<id>/<route> as Colab's. It refuses a request that
// carries an Authorization header (400: a bearer token reached the
// runtime) and, when it was given tokens, one whose proxy token
// (apimon.TokenHeader) is not among them (a bare 404, as Colab's proxy
// answers a refused token). Routes other than the monitor's three are a
// 404. Safe for concurrent use.
type Proxy struct {
	srv   *httptest.Server
	last  string // the kernels' last_activity, RFC 3339
	noRes bool
	mu    sync.Mutex
	good  map[string]bool
	count map[string]int
}

// New starts a Proxy as o says; it is closed when t ends.
func New(t testing.TB, o Options) *Proxy {
	t.Helper()
	if o.LastActivity.IsZero() {
		o.LastActivity = LastActivity
	}
	p := &Proxy{good: map[string]bool{}, count: map[string]int{}, last: o.LastActivity.UTC().Format(time.RFC3339), noRes: o.NoResources}
	for _, g := range o.Tokens {
		p.good[g] = true
	}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.count[r.URL.Path]++
	ok := len(p.good) == 0 || p.good[r.Header.Get(apimon.TokenHeader)]
	p.mu.Unlock()
	switch {
	case r.Header.Get("Authorization") != "":
		http.Error(w, "a bearer token reached the runtime", http.StatusBadRequest)
	case !ok, p.noRes && strings.HasSuffix(r.URL.Path, "/api/colab/resources"):
		w.WriteHeader(http.StatusNotFound)
	case strings.HasSuffix(r.URL.Path, "/api/colab/resources"):
		fmt.Fprintf(w, ")]}'\n"+`{"memory":{"totalBytes":%d,"freeBytes":%d},"disks":[{"filesystem":{"label":"kernel","totalBytes":10,"usedBytes":5}}]}`, MemTotal, MemFree)
	case strings.HasSuffix(r.URL.Path, "/api/terminals"):
		fmt.Fprint(w, `[]`)
	case strings.HasSuffix(r.URL.Path, "/api/kernels"):
		fmt.Fprintf(w, `[{"id":"k","name":"python3","execution_state":"idle","last_activity":%q,"connections":1}]`, p.last)
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

// URL is runtime id's base URL behind the proxy, ending in a slash (the
// form of a runtime's connectionInfo.url).
func (p *Proxy) URL(id string) string { return p.srv.URL + "/proxy/" + id + "/" }

// Info is runtime id's connectionInfo with the proxy token token.
func (p *Proxy) Info(id, token string) api.ConnectionInfo {
	return api.ConnectionInfo{URL: p.URL(id), Token: token}
}

// Requests is how many monitor requests (resources, kernels and
// terminals) reached runtime id, refused ones included.
func (p *Proxy) Requests(id string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.count["/proxy/"+id+"/api/colab/resources"] + p.count["/proxy/"+id+"/api/kernels"] + p.count["/proxy/"+id+"/api/terminals"]
}

// MonitorRequests is how many requests the proxy has had on the
// monitor's routes (resources, kernels, terminals), all runtimes
// together.
func (p *Proxy) MonitorRequests() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for path, c := range p.count {
		if strings.HasSuffix(path, "/api/colab/resources") || strings.HasSuffix(path, "/api/kernels") || strings.HasSuffix(path, "/api/terminals") {
			n += c
		}
	}
	return n
}

// Counts is how many requests the proxy has had in all, and for how many
// distinct runtimes.
func (p *Proxy) Counts() (total, runtimes int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ids := map[string]bool{}
	for path, n := range p.count {
		total += n
		id, _, _ := strings.Cut(strings.TrimPrefix(path, "/proxy/"), "/")
		ids[id] = true
	}
	return total, len(ids)
}
