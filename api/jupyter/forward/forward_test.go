package forward

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/testkit"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/internal/proxytest"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// fwd is a Forwarder serving on 127.0.0.1.
type fwd struct {
	f    *Forwarder
	port int
	base string // http://127.0.0.1:PORT
}

func startForward(t *testing.T, c *proxy.Client) *fwd {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	f, err := New(c, Options{Port: port})
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: f, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return &fwd{f: f, port: port, base: "http://127.0.0.1:" + strconv.Itoa(port)}
}

// emulatorForward starts a forward of a proxy client for a runtime of
// the emulator's own Jupyter tree: the test bed, the client, the forward.
func emulatorForward(t *testing.T) (*env, *proxy.Client, *fwd) {
	t.Helper()
	e := proxytest.NewEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.Client()
	return e, c, startForward(t, c)
}

// get sends a GET through the forward with the local token header.
func (w *fwd) get(t *testing.T, path string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, w.base+path, nil)
	req.Header.Set("Authorization", "token "+w.f.Token())
	return testkit.Do(t, req)
}

// kernelSocket dials a kernel's channels through the forward, like a
// browser: ?token=L and the forward's own Origin.
func (w *fwd) kernelSocket(t *testing.T, kernel string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	u := "ws://127.0.0.1:" + strconv.Itoa(w.port) + "/api/kernels/" + kernel + "/channels?session_id=s1&token=" + w.f.Token()
	c, resp, err := websocket.Dial(ctx, u, &websocket.DialOptions{
		HTTPHeader:      http.Header{"Origin": {w.base}},
		CompressionMode: websocket.CompressionContextTakeover,
	})
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("dial kernel channels: %v (HTTP %d)", err, status)
	}
	c.SetReadLimit(16 << 20)
	t.Cleanup(func() { c.CloseNow() })
	return c
}

// execute sends an execute_request and waits for its execute_reply.
func execute(t *testing.T, c *websocket.Conn, code string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	id := uuid.NewString()
	msg := map[string]any{
		"header":        map[string]any{"msg_id": id, "msg_type": "execute_request", "session": "s1", "username": "t", "version": "5.3", "date": time.Now().UTC().Format(time.RFC3339)},
		"parent_header": map[string]any{}, "metadata": map[string]any{}, "channel": "shell", "buffers": []any{},
		"content": map[string]any{"code": code, "silent": false, "store_history": false, "user_expressions": map[string]any{}, "allow_stdin": false, "stop_on_error": true},
	}
	b, _ := json.Marshal(msg)
	if err := c.Write(ctx, websocket.MessageText, b); err != nil {
		t.Fatalf("write execute_request: %v", err)
	}
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("waiting for execute_reply: %v", err)
		}
		var m struct {
			Header       map[string]any `json:"header"`
			ParentHeader map[string]any `json:"parent_header"`
			Content      map[string]any `json:"content"`
		}
		if json.Unmarshal(data, &m) != nil {
			continue
		}
		if m.Header["msg_type"] == "execute_reply" && m.ParentHeader["msg_id"] == id {
			return m.Content
		}
	}
}

// kernelFor returns a kernel id to talk to: the emulator's kernel of a
// new Colab session, or a kernel started on the real Jupyter server
// (which needs ipykernel; skipped without it).
func kernelFor(t *testing.T, e *env, c *proxy.Client) string {
	t.Helper()
	ctx := context.Background()
	if e.Be == jupytertest.Emulator {
		ss, err := e.Svc.CreateSession(ctx, e.Rt.Name, "")
		if err != nil {
			t.Fatal(err)
		}
		return e.Srv.KernelID(ss.Name)
	}
	if err := exec.Command(jupytertest.JupyterPython(), "-c", "import ipykernel").Run(); err != nil {
		if os.Getenv("COLABDASH_REQUIRE_JUPYTER") == "1" {
			t.Fatal("COLABDASH_REQUIRE_JUPYTER=1 but ipykernel is not installed")
		}
		t.Skip("SKIP real-Jupyter kernel: ipykernel is not installed (apt-get install python3-ipykernel)")
	}
	var k proxy.Kernel
	body := []byte(`{"name": "python3"}`)
	resp, err := c.Do(ctx, &proxy.Request{Op: "start kernel", Method: http.MethodPost, Path: "api/kernels",
		Body: func() (io.Reader, int64) { return bytes.NewReader(body), int64(len(body)) }})
	if err == nil {
		err = json.NewDecoder(resp.Body).Decode(&k)
		resp.Body.Close()
	}
	if err != nil || k.ID == "" {
		t.Fatalf("starting a kernel: %v", err)
	}
	t.Cleanup(func() {
		if resp, err := c.Do(context.Background(), &proxy.Request{Op: "stop kernel", Method: http.MethodDelete, Path: "api/kernels/" + k.ID}); err == nil {
			resp.Body.Close()
		}
	})
	return k.ID
}

// Done-when: a forward keeps an HTTP request and a WebSocket working
// across a proxy-token renewal; new upgrades carry the new token, the open
// socket is not torn down.
func TestForwardAcrossRenewal(t *testing.T) {
	jupytertest.ForEachBackend(t, func(t *testing.T, be jupytertest.Backend) {
		e := proxytest.NewEnv(t, be, colabfake.Options{StrictTokenPlacement: true})
		c := e.Client()
		w := startForward(t, c)
		kernel := kernelFor(t, e, c)
		if status, body := w.get(t, "/api/contents/"+e.Dir); status != 200 || !strings.Contains(body, `"type"`) {
			t.Fatalf("GET through the forward: %d %s", status, body)
		}
		ws := w.kernelSocket(t, kernel)
		if r := execute(t, ws, "1+1"); r["status"] != "ok" {
			t.Fatalf("execute_reply %v", r)
		}
		e.Clk.Advance(2 * time.Hour) // the first token is long expired
		if status, body := w.get(t, "/api/contents/"+e.Dir); status != 200 {
			t.Fatalf("GET after the token expired: %d %s", status, body)
		}
		if c.Renewals() != 1 {
			t.Fatalf("%d renewals, want 1", c.Renewals())
		}
		if r := execute(t, ws, "2+2"); r["status"] != "ok" {
			t.Fatalf("the open socket after the renewal: %v", r)
		}
		ws2 := w.kernelSocket(t, kernel)
		if r := execute(t, ws2, "3+3"); r["status"] != "ok" {
			t.Fatalf("a new socket after the renewal: %v", r)
		}
		if _, refused := e.Srv.ProxyRequests(); refused != 0 {
			t.Errorf("%d requests reached the proxy with a stale token", refused)
		}
	})
}

// When the forward's clock does not see the expiry coming, a GET the proxy
// refuses (bare 404) is renewed and sent again.
func TestForwardRenewsOnProxy404(t *testing.T) {
	e := proxytest.NewEnv(t, jupytertest.Emulator, colabfake.Options{StrictTokenPlacement: true})
	c := e.Client(func(o *proxy.Options) { o.Now = func() time.Time { return jupytertest.T0 } })
	w := startForward(t, c)
	e.Clk.Advance(2 * time.Hour)
	if status, body := w.get(t, "/api/contents/content"); status != 200 {
		t.Fatalf("GET: %d %s", status, body)
	}
	if c.Renewals() != 1 {
		t.Fatalf("%d renewals, want 1", c.Renewals())
	}
}

// Requests with a foreign Host, without the local token,
// or an upgrade from a foreign Origin are refused before anything reaches
// the runtime; the navigation with ?token= sets a strict cookie and drops
// the token from the address; the proxy token never reaches the browser.
func TestForwardRefusesForeignRequests(t *testing.T) {
	e := proxytest.NewEnv(t, jupytertest.Emulator, colabfake.Options{StrictTokenPlacement: true})
	c := e.Client()
	w := startForward(t, c)
	kernel := kernelFor(t, e, c)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	send := func(host, path string, hdr http.Header) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, w.base+path, nil)
		if host != "-" {
			req.Host = host
		}
		for k, v := range hdr {
			req.Header[k] = v
		}
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	port := strconv.Itoa(w.port)
	tok := w.f.Token()
	before, _ := e.Srv.ProxyRequests()
	for _, tc := range []struct {
		name, host, path string
		hdr              http.Header
	}{
		{"a evil host", "evil.example:" + port, "/api/contents?token=" + tok, nil},
		{"b prefix host", "localhost.evil.com:" + port, "/api/contents?token=" + tok, nil},
		{"c no token", "127.0.0.1:" + port, "/api/contents", nil},
		{"c wrong token", "127.0.0.1:" + port, "/api/contents?token=" + tok[:len(tok)-1] + "x", nil},
		{"e foreign origin upgrade", "127.0.0.1:" + port, "/api/kernels/" + kernel + "/channels?token=" + tok, http.Header{
			"Origin": {"https://evil.example"}, "Upgrade": {"websocket"}, "Connection": {"Upgrade"},
			"Sec-Websocket-Version": {"13"}, "Sec-Websocket-Key": {"dGhlIHNhbXBsZSBub25jZQ=="}}},
	} {
		resp := send(tc.host, tc.path, tc.hdr)
		if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s: %d, want 403 or 401", tc.name, resp.StatusCode)
		}
	}
	// (f) an empty Host, and none at all, sent raw (net/http's client
	// always fills it in).
	for _, raw := range []string{"GET /api/contents?token=" + tok + " HTTP/1.1\r\nHost: \r\n\r\n", "GET /api/contents?token=" + tok + " HTTP/1.0\r\n\r\n"} {
		conn, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(conn, raw)
		b := make([]byte, 12)
		io.ReadFull(conn, b)
		conn.Close()
		if st := string(b[9:12]); st != "403" && st != "400" {
			t.Errorf("request %q: status %s, want 403 or 400", raw, st)
		}
	}
	if after, _ := e.Srv.ProxyRequests(); after != before {
		t.Fatalf("%d refused requests reached the runtime proxy", after-before)
	}
	// (d) the navigation with the token.
	resp := send("127.0.0.1:"+port, "/?token="+tok, http.Header{"Accept": {"text/html"}})
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusFound || strings.Contains(loc, tok) {
		t.Fatalf("navigation: %d Location %q, want a redirect without the token", resp.StatusCode, loc)
	}
	var ck *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Value == tok {
			ck = c
		}
	}
	if ck == nil || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode {
		t.Fatalf("cookie %+v, want HttpOnly SameSite=Strict with the token", ck)
	}
	resp = send("localhost:"+port, "/api/contents/content", http.Header{"Cookie": {ck.Name + "=" + ck.Value}})
	if resp.StatusCode != 200 {
		t.Fatalf("with the cookie: %d", resp.StatusCode)
	}
	for k, vs := range resp.Header {
		for _, v := range vs {
			if strings.Contains(v, c.Info().Token) {
				t.Fatalf("the proxy token reached the browser in %s", k)
			}
		}
	}
}

// NewForwarder refuses a short local token.
func TestForwardTokenLength(t *testing.T) {
	e := proxytest.NewEnv(t, jupytertest.Emulator, colabfake.Options{})
	if _, err := New(e.Client(), Options{Port: 1, LocalToken: "short"}); err == nil {
		t.Fatal("a 5-character local token was accepted")
	}
	f, err := New(e.Client(), Options{Port: 8888})
	if err != nil || len(f.Token()) < 32 || !strings.HasPrefix(f.URL("127.0.0.1"), "http://127.0.0.1:8888/?token=") {
		t.Fatalf("generated token %q, URL %q, %v", f.Token(), f.URL("127.0.0.1"), err)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A forwarded request that fails keeps its cause: a local client that
// went away is context.Canceled to errors.Is (the forward then stays
// quiet instead of answering 502), a network failure stays a net error;
// the text still has neither the URL nor the proxy token.
func TestForwardErrorKeepsCause(t *testing.T) {
	const tok = "proxy-token-0123456789"
	for _, tc := range []struct {
		name  string
		cause error
		is    func(error) bool
	}{
		{"cancelled", context.Canceled, func(err error) bool { return errors.Is(err, context.Canceled) }},
		{"refused", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")},
			func(err error) bool { var oe *net.OpError; return errors.As(err, &oe) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := proxy.New(proxy.Options{Runtime: "rt-x", Info: api.ConnectionInfo{URL: "http://127.0.0.1:9/", Token: tok},
				Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
					return nil, &url.Error{Op: "Get", URL: r.URL.String() + "?" + proxy.TokenQuery + "=" + tok, Err: tc.cause}
				})})
			if err != nil {
				t.Fatal(err)
			}
			req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:9/api/contents", nil)
			_, err = (&renewingTransport{c: c}).RoundTrip(req)
			if err == nil || !tc.is(err) {
				t.Fatalf("error %v (%T) does not unwrap to %v", err, err, tc.cause)
			}
			if strings.Contains(err.Error(), tok) || strings.Contains(err.Error(), "http://") {
				t.Fatalf("error text %q carries the URL or the proxy token", err)
			}
		})
	}
}

// Forwarding headers a local client sends (X-Forwarded-For, Forwarded…)
// never reach the runtime, and the forward adds none of its own.
func TestForwardDropsForwardingHeaders(t *testing.T) {
	e, _, w := emulatorForward(t)
	seen := make(chan http.Header, 4)
	e.SetOnProxy(func(r *http.Request) { seen <- r.Header.Clone() })
	req, _ := http.NewRequest(http.MethodGet, w.base+"/api/contents/content", nil)
	req.Header.Set("Authorization", "token "+w.f.Token())
	req.Header.Set("X-Forwarded-For", "10.9.8.7")
	req.Header.Set("X-Forwarded-Host", "evil.example")
	req.Header.Set("Forwarded", "for=10.9.8.7")
	if code, _ := testkit.Do(t, req); code != http.StatusOK {
		t.Fatalf("forwarded listing: HTTP %d", code)
	}
	h := <-seen
	for _, k := range []string{"X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "Forwarded"} {
		if v := h.Values(k); len(v) > 0 {
			t.Errorf("the runtime received %s: %q", k, v)
		}
	}
}
