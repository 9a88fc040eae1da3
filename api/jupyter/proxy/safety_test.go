package proxy

// The proxy token reaches only the runtime's own host, over TLS: a
// redirect elsewhere and a plain http connection URL are refused.

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
)

// A redirect to another host is refused: the token header never reaches
// it.
func TestRedirectToOtherHostRefused(t *testing.T) {
	var leaked atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(TokenHeader) != "" || r.URL.Query().Get(TokenQuery) != "" {
			leaked.Add(1)
		}
		w.Write([]byte(`{"name":"x","type":"file"}`))
	}))
	defer other.Close()
	same := 0
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.Contains(r.URL.Path, "same"):
			same++
			if same == 1 {
				http.Redirect(w, r, srv.URL+"/api/contents/content/final", http.StatusFound)
				return
			}
		case strings.Contains(r.URL.Path, "final"):
			w.Write([]byte(`{"name":"final","path":"content/final","type":"file","size":1}`))
			return
		}
		http.Redirect(w, r, other.URL+"/steal", http.StatusFound)
	}))
	defer srv.Close()
	c, err := New(Options{Runtime: "runtimes/rt-x", Info: api.ConnectionInfo{URL: srv.URL + "/", Token: "secret-proxy-token"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Stat(context.Background(), "content/a")
	if !errors.Is(err, ErrRedirect) || leaked.Load() != 0 {
		t.Fatalf("cross-host redirect: %v (leaked %d), want ErrRedirect and nothing sent", err, leaked.Load())
	}
	if m, err := c.Stat(context.Background(), "content/same"); err != nil || m.Name != "final" {
		t.Fatalf("same-origin redirect: %+v %v, want it followed", m, err)
	}
}

// sentRecorder is a Transport that records what would have been sent and
// sends nothing (the test never touches a network).
type sentRecorder struct {
	mu   sync.Mutex
	urls []string
}

func (r *sentRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.urls = append(r.urls, req.URL.Scheme+"://"+req.URL.Host+" "+req.Header.Get(TokenHeader))
	r.mu.Unlock()
	return nil, errors.New("sentRecorder sends nothing")
}

func (r *sentRecorder) sent() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.urls...)
}

// The proxy token goes with every request, so a connectionInfo.url that
// is plain http to a host that is not loopback is refused, whether it
// came with the client or with a renewal: the token never travels in
// clear. Loopback http (the emulator) is accepted.
func TestPlainHTTPConnectionURLRefused(t *testing.T) {
	rec := &sentRecorder{}
	_, err := New(Options{Runtime: "runtimes/rt-x", Transport: rec,
		Info: api.ConnectionInfo{URL: "http://8080-m-s-rt-x.prod.colab.dev/", Token: "secret-proxy-token"}})
	if !errors.Is(err, ErrNoConnection) || !strings.Contains(err.Error(), "unencrypted") ||
		!strings.Contains(err.Error(), "https://8080-m-s-rt-x.prod.colab.dev/") || strings.Contains(err.Error(), "secret-proxy-token") {
		t.Fatalf("plain http connectionInfo.url: %v, want ErrNoConnection saying unencrypted and naming the https form", err)
	}
	if _, err := New(Options{Runtime: "runtimes/rt-x", Transport: rec,
		Info: api.ConnectionInfo{URL: "http://127.0.0.1:9/proxy/rt-x/", Token: "t"}}); err != nil {
		t.Fatalf("loopback http refused: %v", err)
	}

	now := time.Now()
	c, err := New(Options{Runtime: "runtimes/rt-x", Transport: rec, Now: func() time.Time { return now },
		Info: api.ConnectionInfo{URL: "https://8080-m-s-rt-x.prod.colab.dev/", Token: "old-token", ExpireTime: now.Add(-time.Minute)},
		Renew: func(context.Context) (api.ConnectionInfo, error) {
			return api.ConnectionInfo{URL: "http://8080-m-s-rt-x.prod.colab.dev/", Token: "renewed-token", ExpireTime: now.Add(time.Hour)}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Stat(context.Background(), "content/a")
	if err == nil || !strings.Contains(err.Error(), "unencrypted") {
		t.Fatalf("after a renewal to plain http: %v, want the refusal", err)
	}
	for _, s := range rec.sent() {
		if strings.HasPrefix(s, "http://") || strings.Contains(s, "renewed-token") {
			t.Fatalf("sent %q: the proxy token went over plain http", s)
		}
	}
}
