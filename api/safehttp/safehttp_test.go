package safehttp

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"golang.org/x/oauth2"

	"github.com/colabdash/colabdash/api/colabfake/testkit"
)

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
		rec := testkit.NewHeaderRecorder(t)
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
		if n := len(rec.Requests()); n != 0 {
			t.Errorf("%d: the other origin received %d requests (Authorization %q)", status, n, rec.Requests()[0].Get("Authorization"))
		}
	}
}

// The Transport guard alone refuses too, under a client whose
// CheckRedirect follows anything (as a library-built client may).
func TestTransportGuardWithoutCheckRedirect(t *testing.T) {
	rec := testkit.NewHeaderRecorder(t)
	src := redirector(t, http.StatusTemporaryRedirect, rec.URL)
	hc := bearerClient(&http.Client{Transport: Transport(nil)})
	resp, err := hc.Get(src.URL + "/token")
	if resp != nil {
		resp.Body.Close()
	}
	if !IsRedirect(err) {
		t.Fatalf("err = %v, want a refused redirect", err)
	}
	if n := len(rec.Requests()); n != 0 {
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

// A credential goes over https anywhere and over plain http only to
// loopback; the refusal names the https form without repeating a secret
// the URL carries.
func TestCheckCredentialURL(t *testing.T) {
	for _, c := range []struct {
		raw   string
		ok    bool
		https string
	}{
		{"https://colaboratory.googleapis.com/mcp", true, ""},
		{"https://10.0.0.5:8443/mcp", true, ""},
		{"http://127.0.0.1:8089/mcp", true, ""},
		{"http://127.8.9.10/mcp", true, ""},
		{"http://[::1]:8089/mcp", true, ""},
		{"http://localhost:8089/mcp", true, ""},
		{"http://LOCALHOST:8089/mcp", true, ""},
		{"http://[::ffff:127.0.0.1]:8089/mcp", true, ""},
		// A trailing dot makes a fully qualified name that the resolver
		// asks DNS about: its answer would get the token.
		{"http://localhost.:8089/mcp", false, "https://localhost.:8089/mcp"},
		{"http://LOCALHOST./mcp", false, "https://LOCALHOST./mcp"},
		{"http://localhost.localdomain/mcp", false, "https://localhost.localdomain/mcp"},
		{"http://[::1%25lo]:8089/mcp", false, "https://[::1%25lo]:8089/mcp"},
		{"HTTP://127.0.0.1/mcp", true, ""},
		{"http://colab.example.com/mcp", false, "https://colab.example.com/mcp"},
		{"http://10.0.0.5:8888/?token=SECRET", false, "https://10.0.0.5:8888/?…"},
		{"http://user:SECRET@192.168.1.2/x", false, "https://192.168.1.2/x"},
		{"http://128.0.0.1/mcp", false, "https://128.0.0.1/mcp"},
		{"http://localhost.example.com/mcp", false, "https://localhost.example.com/mcp"},
		{"http://[::2]/mcp", false, "https://[::2]/mcp"},
		{"HTTP://colab.example.com/mcp", false, "https://colab.example.com/mcp"},
	} {
		u, err := url.Parse(c.raw)
		if err != nil {
			t.Fatal(err)
		}
		err = CheckCredentialURL(u)
		if (err == nil) != c.ok {
			t.Errorf("%s: err %v, want ok %v", c.raw, err, c.ok)
			continue
		}
		if c.ok {
			continue
		}
		var pe *PlainHTTPError
		if !errors.As(err, &pe) || pe.HTTPS != c.https {
			t.Errorf("%s: %#v, want the https form %s", c.raw, err, c.https)
		}
		msg := err.Error()
		if strings.Contains(msg, "SECRET") || strings.Contains(msg, "\n") || !strings.Contains(msg, "unencrypted") || !strings.Contains(msg, c.https) {
			t.Errorf("%s: message %q", c.raw, msg)
		}
	}
}

// dialRecorder is a base transport that records where each request was
// to be dialled and with which Host header, and answers 200 without any
// network.
type dialRecorder struct {
	mu    sync.Mutex
	hosts []string // URL.Host (what would be dialled)
	heads []string // Host header
}

func (d *dialRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	d.mu.Lock()
	d.hosts = append(d.hosts, r.URL.Host)
	d.heads = append(d.heads, r.Host)
	d.mu.Unlock()
	return &http.Response{StatusCode: 200, Body: http.NoBody, Request: r}, nil
}

// "localhost" is dialled as a literal loopback address, never handed to
// a resolver (where /etc/hosts lacks it, DNS would answer), and the Host
// header keeps the name. The response still names the request sent.
func TestLocalhostDialledWithoutResolver(t *testing.T) {
	for _, c := range []struct{ url, dial, host string }{
		{"http://localhost:8089/mcp", "127.0.0.1:8089", "localhost:8089"},
		{"http://LOCALHOST:8089/mcp", "127.0.0.1:8089", "LOCALHOST:8089"},
		{"http://localhost/mcp", "127.0.0.1", "localhost"},
		{"http://127.0.0.1:8089/mcp", "127.0.0.1:8089", "127.0.0.1:8089"},
	} {
		rec := &dialRecorder{}
		req, _ := http.NewRequest("GET", c.url, nil)
		resp, err := Transport(rec).RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Request != req {
			t.Errorf("%s: the response names another request", c.url)
		}
		if rec.hosts[0] != c.dial || rec.heads[0] != c.host {
			t.Errorf("%s: dialled %q with Host %q, want %q with Host %q", c.url, rec.hosts[0], rec.heads[0], c.dial, c.host)
		}
	}
}

// A server listening only on [::1] is still reached as "localhost", with
// the request body intact.
func TestLocalhostFallsBackToIPv6(t *testing.T) {
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skip("no IPv6 loopback:", err)
	}
	var got, host string
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got, host = string(b), r.Host
	})}}
	srv.Start()
	defer srv.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	if c, err := net.Dial("tcp", "127.0.0.1:"+port); err == nil {
		c.Close()
		t.Skip("something listens on 127.0.0.1:" + port)
	}
	resp, err := Client(nil).Post("http://localhost:"+port+"/x", "text/plain", strings.NewReader("body"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got != "body" || host != "localhost:"+port {
		t.Fatalf("server got body %q Host %q", got, host)
	}
}
