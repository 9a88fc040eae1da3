package safehttp

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"golang.org/x/oauth2"
)

// recorder is a second loopback listener that records every request's
// headers: after a refused redirect it must have seen nothing.
type recorder struct {
	*httptest.Server
	mu   sync.Mutex
	seen []http.Header
}

func newRecorder(t *testing.T) *recorder {
	r := &recorder{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.seen = append(r.seen, req.Header.Clone())
		r.mu.Unlock()
		io.WriteString(w, "stolen")
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *recorder) requests() []http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]http.Header(nil), r.seen...)
}

// redirector answers every request with status and a Location to target
// (the same path on another origin).
func redirector(t *testing.T, status int, target string) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target+r.URL.Path, status)
	}))
	t.Cleanup(s.Close)
	return s
}

func bearerClient(base *http.Client) *http.Client {
	c := *base
	c.Transport = &oauth2.Transport{Base: base.Transport,
		Source: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "ya29.SECRET-bearer"})}
	return &c
}

// A 307 from the endpoint to another port on localhost
// carried the bearer token. With Client, no request reaches the other
// listener, and the error names both URLs.
func TestCrossOriginRedirectRefusedNoCredentialsSent(t *testing.T) {
	for _, status := range []int{301, 302, 303, 307, 308} {
		rec := newRecorder(t)
		// "localhost" vs 127.0.0.1 and another port: a different origin.
		other := strings.Replace(rec.URL, "127.0.0.1", "localhost", 1)
		src := redirector(t, status, other)
		hc := bearerClient(Client(&http.Client{}))
		resp, err := hc.Post(src.URL+"/mcp", "application/json", strings.NewReader(`{"client_secret":"x"}`))
		if resp != nil {
			resp.Body.Close()
		}
		var re *RedirectError
		if !errors.As(err, &re) {
			t.Fatalf("%d: err = %v, want a *RedirectError", status, err)
		}
		if !strings.Contains(err.Error(), src.URL+"/mcp") || !strings.Contains(err.Error(), other+"/mcp") {
			t.Errorf("%d: error %q should name both URLs", status, err)
		}
		if n := len(rec.requests()); n != 0 {
			t.Errorf("%d: the other origin received %d requests (Authorization %q)", status, n, rec.requests()[0].Get("Authorization"))
		}
	}
}

// The Transport guard alone refuses too, under a client whose
// CheckRedirect follows anything (as a library-built client may).
func TestTransportGuardWithoutCheckRedirect(t *testing.T) {
	rec := newRecorder(t)
	src := redirector(t, http.StatusTemporaryRedirect, rec.URL)
	hc := bearerClient(&http.Client{Transport: Transport(nil)})
	resp, err := hc.Get(src.URL + "/token")
	if resp != nil {
		resp.Body.Close()
	}
	if !IsRedirect(err) {
		t.Fatalf("err = %v, want a refused redirect", err)
	}
	if n := len(rec.requests()); n != 0 {
		t.Fatalf("the other origin received %d requests", n)
	}
}

// A redirect within the origin (another path) is followed, with the
// credentials.
func TestSameOriginRedirectFollowed(t *testing.T) {
	var auth string
	mux := http.NewServeMux()
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/new", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/new", func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Get("Authorization")
		io.WriteString(w, "ok")
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	resp, err := bearerClient(Client(nil)).Get(srv.URL + "/old")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || auth != "Bearer ya29.SECRET-bearer" {
		t.Fatalf("status %d, Authorization %q", resp.StatusCode, auth)
	}
}

func TestTooManyRedirects(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Path+"x", http.StatusFound)
	}))
	defer srv.Close()
	_, err := Client(nil).Get(srv.URL + "/a")
	var re *RedirectError
	if !errors.As(err, &re) || !re.TooMany {
		t.Fatalf("err = %v", err)
	}
}

func TestSameOriginAndRedact(t *testing.T) {
	u := func(s string) *url.URL { v, _ := url.Parse(s); return v }
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"https://h/x", "https://H:443/y", true},
		{"http://h/x", "http://h:80/", true},
		{"https://h/x", "http://h/x", false},
		{"http://h:1/x", "http://h:2/x", false},
		{"https://a.example/x", "https://b.example/x", false},
		{"https://h/x", "https://h.evil/x", false},
	} {
		if got := SameOrigin(u(c.a), u(c.b)); got != c.same {
			t.Errorf("SameOrigin(%s, %s) = %v", c.a, c.b, got)
		}
	}
	if got := Redact(u("https://user:pw@h:8/p?token=SECRET#f")); got != "https://h:8/p?…" {
		t.Errorf("Redact = %q", got)
	}
}

// Client leaves its argument alone.
func TestClientDoesNotMutateBase(t *testing.T) {
	base := &http.Client{}
	_ = Client(base)
	if base.CheckRedirect != nil || base.Transport != nil {
		t.Fatal("base was modified")
	}
}
