package forward

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake/testkit"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// stubRuntime is a forward to a runtime whose Jupyter server is h, with
// a renewal counter, and the forward's own logger's output.
type stubRuntime struct {
	w        *fwd
	renewals atomic.Int32
	log      *testkit.SyncBuffer
}

// newStub starts it; the proxy token expires after left.
func newStub(t *testing.T, left time.Duration, h http.HandlerFunc, renew func() (api.ConnectionInfo, error)) *stubRuntime {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	s := &stubRuntime{log: &testkit.SyncBuffer{}}
	c, err := proxy.New(proxy.Options{Runtime: "runtimes/rt-stub", Info: api.ConnectionInfo{URL: srv.URL + "/", Token: "proxy-tok-0", ExpireTime: time.Now().Add(left)},
		Renew: func(context.Context) (api.ConnectionInfo, error) {
			s.renewals.Add(1)
			if renew != nil {
				return renew()
			}
			return api.ConnectionInfo{URL: srv.URL + "/", Token: "proxy-tok-" + strconv.Itoa(int(s.renewals.Load())), ExpireTime: time.Now().Add(time.Hour)}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	f, err := New(c, Options{Port: port, Logger: slog.New(slog.NewTextHandler(s.log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: f, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	s.w = &fwd{f: f, port: port, base: "http://127.0.0.1:" + strconv.Itoa(port)}
	return s
}

// countingStub is a stub runtime (newStub, its token good for an hour,
// no renewal) that answers {} to every request, and the count of the
// requests that reached it.
func countingStub(t *testing.T) (*stubRuntime, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	s := newStub(t, time.Hour, func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		io.WriteString(w, `{}`)
	}, nil)
	return s, &n
}

func (s *stubRuntime) send(t *testing.T, method, path string, hdr http.Header) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(method, s.w.base+path, strings.NewReader(""))
	for k, v := range hdr {
		req.Header[k] = v
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// Guards which requests with ?token= are a browser's navigation (a GET
// or HEAD of "/" or of an HTML page: answered with a redirect dropping
// the token) and which are forwarded as they are (an API GET, a POST).
func TestForwardNavigationOnlyForPages(t *testing.T) {
	s, got := countingStub(t)
	tok := "?token=" + s.w.f.Token()
	for _, tc := range []struct {
		method, path string
		hdr          http.Header
		redirect     bool
	}{
		{http.MethodGet, "/" + tok, nil, true},
		{http.MethodHead, "/" + tok, nil, true},
		{http.MethodGet, "/tree" + tok, http.Header{"Accept": {"text/html,application/xhtml+xml"}}, true},
		{http.MethodGet, "/api/contents/content" + tok, nil, false},
		{http.MethodPost, "/" + tok, http.Header{"Accept": {"text/html"}}, false},
		{http.MethodPut, "/api/contents/content/x" + tok, nil, false},
	} {
		before := got.Load()
		resp := s.send(t, tc.method, tc.path, tc.hdr)
		forwarded := got.Load() != before
		if tc.redirect && (resp.StatusCode != http.StatusFound || forwarded || strings.Contains(resp.Header.Get("Location"), "token=")) {
			t.Errorf("%s %s: %d (forwarded %v, Location %q), want a redirect without the token", tc.method, tc.path, resp.StatusCode, forwarded, resp.Header.Get("Location"))
		}
		if !tc.redirect && (resp.StatusCode != http.StatusOK || !forwarded) {
			t.Errorf("%s %s: %d (forwarded %v), want it forwarded", tc.method, tc.path, resp.StatusCode, forwarded)
		}
	}
}

// Guards the retry of a forwarded request after the proxy's bare 404:
// only a GET or HEAD is renewed and sent again (once); a POST is not
// repeated, and a 404 with a body (Jupyter's own) renews nothing.
func TestForwardRetriesOnlyIdempotentBare404(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	s := newStub(t, time.Hour, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Method+" "+r.URL.Path]++
		mu.Unlock()
		switch {
		case r.URL.Path == "/api/jupyters-own-404":
			w.WriteHeader(404)
			io.WriteString(w, `{"message":"Not Found"}`)
		case r.Header.Get(proxy.TokenHeader) == "proxy-tok-0":
			w.WriteHeader(404) // the proxy's bare 404 for an old token
		default:
			io.WriteString(w, `{}`)
		}
	}, nil)
	auth := http.Header{"Authorization": {"token " + s.w.f.Token()}}
	if resp := s.send(t, http.MethodPost, "/api/sessions", auth); resp.StatusCode != 404 || s.renewals.Load() != 0 {
		t.Errorf("POST refused by the proxy: %d after %d renewals, want the 404 passed on and no renewal", resp.StatusCode, s.renewals.Load())
	}
	if resp := s.send(t, http.MethodGet, "/api/jupyters-own-404", auth); resp.StatusCode != 404 || s.renewals.Load() != 0 {
		t.Errorf("Jupyter's own 404: %d after %d renewals, want it passed on and no renewal", resp.StatusCode, s.renewals.Load())
	}
	if resp := s.send(t, http.MethodGet, "/api/contents", auth); resp.StatusCode != 200 || s.renewals.Load() != 1 {
		t.Errorf("GET refused by the proxy: %d after %d renewals, want 200 after one renewal", resp.StatusCode, s.renewals.Load())
	}
	mu.Lock()
	defer mu.Unlock()
	if seen["POST /api/sessions"] != 1 || seen["GET /api/contents"] != 2 || seen["GET /api/jupyters-own-404"] != 1 {
		t.Errorf("requests at the runtime: %v; want the POST once, the GET twice, Jupyter's 404 once", seen)
	}
}

// Guards the forward's log: a refused request is logged on the logger
// given (with its reason, never the token), and so is KeepFresh's
// renewal failing (here: the runtime is gone).
func TestForwardLogsRefusalsAndFailedRenewals(t *testing.T) {
	// 3 minutes left: inside the renewal lead, and get_runtime says the
	// runtime is gone.
	s := newStub(t, 3*time.Minute, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{}`) }, func() (api.ConnectionInfo, error) {
		return api.ConnectionInfo{}, &api.Error{Code: api.NotFound, Message: "runtimes/rt-stub"}
	})
	s.send(t, http.MethodGet, "/api/contents?token=wrong-token-0123456789", nil)
	if l := s.log.String(); !strings.Contains(l, "request refused") || !strings.Contains(l, "wrong token") || strings.Contains(l, s.w.f.Token()) {
		t.Fatalf("log after a refusal: %q", l)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.w.f.KeepFresh(ctx, time.Millisecond); close(done) }()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(s.log.String(), "renewal failed") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	<-done
	if !strings.Contains(s.log.String(), "proxy token renewal failed") {
		t.Fatalf("a failed renewal was not logged: %q", s.log.String())
	}
}

// Guards the Origin rule's other half: a WebSocket upgrade without any
// Origin (a non-browser client, such as a Jupyter console) is accepted.
func TestForwardUpgradeWithoutOrigin(t *testing.T) {
	e, c, w := emulatorForward(t)
	kernel := kernelFor(t, e, c)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, resp, err := websocket.Dial(ctx, "ws://127.0.0.1:"+strconv.Itoa(w.port)+"/api/kernels/"+kernel+"/channels?session_id=s1&token="+w.f.Token(), nil)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("an upgrade without Origin: %v (HTTP %d), want it accepted", err, status)
	}
	conn.CloseNow()
}

// Guards what the runtime receives and what comes back, beyond the
// credentials: an escaped slash in a path (JupyterLab's settings API:
// "@jupyterlab%2Fapputils-extension") arrives escaped; a request without
// Origin arrives without one; a reply without Location gets none; a
// redirect within the runtime's proxy URL (relative or absolute) becomes
// the forward's own path, one to another origin is left as it is.
func TestForwardPathsOriginsAndRedirects(t *testing.T) {
	var mu sync.Mutex
	var uris, origins []string
	var base string
	s := newStub(t, time.Hour, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		uris = append(uris, r.RequestURI)
		origins = append(origins, r.Header.Get("Origin"))
		mu.Unlock()
		switch r.URL.Path {
		case "/rel":
			w.Header().Set("Location", "/tree/a?b=1")
			w.WriteHeader(http.StatusFound)
		case "/abs":
			w.Header().Set("Location", base+"/tree/x")
			w.WriteHeader(http.StatusFound)
		case "/away":
			w.Header().Set("Location", "https://accounts.example/login?next=1")
			w.WriteHeader(http.StatusFound)
		default:
			io.WriteString(w, `{}`)
		}
	}, nil)
	base = strings.TrimSuffix(s.w.f.c.Info().URL, "/")
	auth := http.Header{"Authorization": {"token " + s.w.f.Token()}}
	resp := s.send(t, http.MethodGet, "/lab/api/settings/@jupyterlab%2Fapputils-extension:themes", auth)
	if resp.StatusCode != 200 || resp.Header.Get("Location") != "" {
		t.Fatalf("settings GET: %d, Location %q; want 200 and no Location", resp.StatusCode, resp.Header.Get("Location"))
	}
	for path, want := range map[string]string{"/rel": "/tree/a?b=1", "/abs": "/tree/x", "/away": "https://accounts.example/login?next=1"} {
		if got := s.send(t, http.MethodGet, path, auth).Header.Get("Location"); got != want {
			t.Errorf("redirect from %s: Location %q, want %q", path, got, want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(uris) == 0 || uris[0] != "/lab/api/settings/@jupyterlab%2Fapputils-extension:themes" || origins[0] != "" {
		t.Fatalf("the runtime received %q with Origin %q; want the escaped slash kept and no Origin", uris, origins)
	}
}

// A request of a page on another local origin is refused before it
// reaches the runtime, whatever its method: the cookie a ?token=
// navigation set goes with it (every port of 127.0.0.1 is one site), and
// the runtime only sees the Origin the forward rewrites. The forward's own
// origin, and none, pass.
func TestForwardRefusesAForeignOriginOnEveryRequest(t *testing.T) {
	s, reached := countingStub(t)
	auth := http.Header{"Authorization": {"token " + s.w.f.Token()}}
	host := strings.TrimPrefix(s.w.base, "http://")
	for _, c := range []struct {
		method, origin string
		want           int
	}{
		{http.MethodPut, "http://127.0.0.1:3000", http.StatusForbidden},
		{http.MethodPost, "null", http.StatusForbidden},
		{http.MethodGet, "http://evil.example", http.StatusForbidden},
		{http.MethodPost, "http://" + host, http.StatusOK},
		{http.MethodPost, "", http.StatusOK},
	} {
		h := auth.Clone()
		if c.origin != "" {
			h.Set("Origin", c.origin)
		}
		before := reached.Load()
		if resp := s.send(t, c.method, "/api/contents/content/x.txt", h); resp.StatusCode != c.want {
			t.Errorf("%s with Origin %q: HTTP %d, want %d", c.method, c.origin, resp.StatusCode, c.want)
		}
		if forwarded := reached.Load() > before; forwarded != (c.want == http.StatusOK) {
			t.Errorf("%s with Origin %q: reached the runtime %v", c.method, c.origin, forwarded)
		}
	}
}
