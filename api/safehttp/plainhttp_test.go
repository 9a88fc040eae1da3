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
)

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
