package forward

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/testkit"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/internal/proxytest"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// What a forward passes on to the runtime and back to
// the local client. Each test names the behaviour it guards.

// Guards forward's stripping: the runtime never receives the local
// token (?token=, "Authorization: token …"), the forward's own cookie,
// the client's Referer or its X-Colab-* headers; other query parameters
// and the runtime's own cookies (Jupyter's _xsrf) pass, Origin is the
// runtime's, and the proxy token and agent are the forward's.
func TestForwardStripsLocalCredentials(t *testing.T) {
	e, c, w := emulatorForward(t)
	seen := make(chan *http.Request, 4)
	e.SetOnProxy(func(r *http.Request) {
		if strings.Contains(r.URL.Path, "/api/contents") {
			seen <- r.Clone(context.Background())
		}
	})
	tok := w.f.Token()
	req, _ := http.NewRequest(http.MethodGet, w.base+"/api/contents/content?content=1&token="+tok, nil)
	req.Header.Set("Authorization", "token "+tok)
	req.Header.Set("Cookie", w.f.cookieName()+"="+tok+"; _xsrf=xsrf-value")
	req.Header.Set("Referer", w.base+"/tree?token="+tok)
	req.Header.Set("Origin", w.base)
	req.Header.Set("X-Colab-Evil", "1")
	req.Header.Set(proxy.AgentHeader, "spoofed-agent")
	req.Header.Set(proxy.TokenHeader, "spoofed-proxy-token")
	if code, _ := testkit.Do(t, req); code != http.StatusOK {
		t.Fatalf("forwarded listing: HTTP %d", code)
	}
	var r *http.Request
	select {
	case r = <-seen:
	case <-time.After(30 * time.Second):
		t.Fatal("the runtime received nothing")
	}
	dump := r.URL.RawQuery + "\n"
	for k, vs := range r.Header {
		dump += k + ": " + strings.Join(vs, ", ") + "\n"
	}
	if strings.Contains(dump, tok) {
		t.Errorf("the local token reached the runtime:\n%s", dump)
	}
	if r.URL.Query().Get("content") != "1" || r.URL.Query().Has(LocalTokenParam) {
		t.Errorf("query %q, want content=1 kept and token dropped", r.URL.RawQuery)
	}
	if a := r.Header.Get("Authorization"); a != "" {
		t.Errorf("the runtime received Authorization %q", a)
	}
	if ck, err := r.Cookie("_xsrf"); err != nil || ck.Value != "xsrf-value" {
		t.Errorf("the runtime's own cookie _xsrf was not passed on: %q", r.Header.Get("Cookie"))
	}
	if _, err := r.Cookie(w.f.cookieName()); err == nil {
		t.Errorf("the forward's cookie reached the runtime: %q", r.Header.Get("Cookie"))
	}
	if v := r.Header.Get("Referer"); v != "" {
		t.Errorf("the runtime received Referer %q", v)
	}
	if v := r.Header.Get("X-Colab-Evil"); v != "" {
		t.Errorf("the client's X-Colab-Evil header reached the runtime: %q", v)
	}
	if v := r.Header.Get(proxy.AgentHeader); v != proxy.Agent {
		t.Errorf("%s %q, want the forward's %q", proxy.AgentHeader, v, proxy.Agent)
	}
	if v := r.Header.Values(proxy.TokenHeader); len(v) != 1 || v[0] != c.Info().Token {
		t.Errorf("%s %q, want only the current proxy token", proxy.TokenHeader, v)
	}
	if o := r.Header.Get("Origin"); o == w.base || o == "" {
		t.Errorf("Origin %q, want the runtime's", o)
	}
}

// Guards forward's scrubbing of replies: a runtime (or a middlebox)
// echoing the proxy token in response headers and a Set-Cookie never
// gets it to the local client.
func TestForwardScrubsEchoedProxyToken(t *testing.T) {
	e, c, w := emulatorForward(t)
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyEchoToken, PathPrefix: "api/contents"})
	req, _ := http.NewRequest(http.MethodGet, w.base+"/api/contents/content", nil)
	req.Header.Set("Authorization", "token "+w.f.Token())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("HTTP %d", resp.StatusCode)
	}
	if e.Srv.PendingProxyFaults() != 0 {
		t.Fatal("the echo fault was not used: the test proves nothing")
	}
	ptok := c.Info().Token
	for k, vs := range resp.Header {
		for _, v := range vs {
			if strings.Contains(v, ptok) {
				t.Errorf("the proxy token reached the local client in %s: %q", k, v)
			}
		}
	}
}

// Guards forward's Location rewriting: a redirect into the runtime's URL
// that carries the proxy token reaches the local client as the forward's
// own path, without the token.
func TestForwardRewritesRedirectWithoutProxyToken(t *testing.T) {
	e, _, w := emulatorForward(t)
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyRedirectToken, PathPrefix: "lab", Body: "tree/content?x=1"})
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest(http.MethodGet, w.base+"/lab", nil)
	req.Header.Set("Authorization", "token "+w.f.Token())
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusFound || loc != "/tree/content?x=1" {
		t.Fatalf("redirect: HTTP %d Location %q, want 302 to /tree/content?x=1 (the forward's path, no proxy token)", resp.StatusCode, loc)
	}
}

// Guards the Host check's loopback rule: without Wide (no --address) a
// Host that is an IP literal other than 127.0.0.1 or [::1] is refused
// before anything reaches the runtime; with Wide it is accepted on the
// forward's port only.
func TestForwardIPLiteralHostNeedsWide(t *testing.T) {
	e := proxytest.NewEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.Client()
	for _, wide := range []bool{false, true} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		f, err := New(c, Options{Port: port, Wide: wide})
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: f, ReadHeaderTimeout: 10 * time.Second}
		go srv.Serve(ln)
		send := func(host string) int {
			req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(port)+"/api/contents/content", nil)
			req.Host = host
			req.Header.Set("Authorization", "token "+f.Token())
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp.StatusCode
		}
		before, _ := e.Srv.ProxyRequests()
		got := send("192.0.2.7:" + strconv.Itoa(port))
		after, _ := e.Srv.ProxyRequests()
		if !wide && (got != http.StatusForbidden || after != before) {
			t.Errorf("without Wide, Host 192.0.2.7: HTTP %d, %d requests reached the runtime; want 403 and none", got, after-before)
		}
		if wide && got != http.StatusOK {
			t.Errorf("with Wide, Host 192.0.2.7: HTTP %d, want 200", got)
		}
		if got := send("192.0.2.7:" + strconv.Itoa(port+1)); got != http.StatusForbidden {
			t.Errorf("wide=%v, Host on another port: HTTP %d, want 403", wide, got)
		}
		if got := send("evil.example:" + strconv.Itoa(port)); got != http.StatusForbidden {
			t.Errorf("wide=%v, a host name: HTTP %d, want 403", wide, got)
		}
		srv.Close()
	}
}

// Guards KeepFresh: with no request at all, a forward renews the proxy
// token once less than RenewLead is left, so the first request after an
// idle hour does not wait for (or fail on) a renewal.
func TestForwardKeepFreshRenewsWhileIdle(t *testing.T) {
	e, c, w := emulatorForward(t)
	old := c.Info().Token
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.f.KeepFresh(ctx, 5*time.Millisecond); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	e.Clk.Advance(57 * time.Minute) // 3 min left: inside the 5 min lead
	deadline := time.Now().Add(30 * time.Second)
	for c.Info().Token == old {
		if time.Now().After(deadline) {
			t.Fatal("KeepFresh did not renew the proxy token within 30 s of entering the renewal lead")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if total, _ := e.Srv.ProxyRequests(); total != 0 {
		t.Errorf("%d proxy requests: the renewal should need none", total)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("KeepFresh did not return when its context ended")
	}
}

// A reply's headers reach the local client without the proxy token in
// any form the redactor knows: whole, upper-cased, URL-encoded,
// JSON-escaped, base64-encoded, in a header's name, and split across two
// headers or the two lines of a folded header. The forward's own local
// token and the headers without a secret pass untouched.
func TestForwardStripsEveryFormOfTheProxyToken(t *testing.T) {
	_, c, w := emulatorForward(t)
	ptok := c.Info().Token
	quoted, _ := json.Marshal("x\"" + ptok)
	half := len(ptok) / 2
	carriers := map[string]string{
		"X-Whole":      "tok=" + ptok,
		"X-Upper":      strings.ToUpper(ptok),
		"X-Query":      url.QueryEscape("a&" + ptok + "/?"),
		"X-Path":       "/p/" + url.PathEscape(ptok),
		"X-Json":       string(quoted),
		"X-Base64":     base64.StdEncoding.EncodeToString([]byte("user:" + ptok)),
		"X-Base64url":  base64.RawURLEncoding.EncodeToString([]byte("zz" + ptok)),
		"X-Split-One":  "a " + ptok[:half],
		"X-Split-Two":  ptok[half:] + " b",
		"X-Folded":     "first line " + ptok[:half] + " " + ptok[half:], // as Go joins an obs-fold
		"X-" + ptok:    "the name",
		"Set-Cookie":   "s=" + url.QueryEscape(ptok) + "; Path=/",
		"Content-Type": "text/plain; " + strings.ToLower(ptok),
	}
	keep := map[string]string{
		"X-Plain":    "nothing secret here",
		"X-Local":    w.f.Token(),
		"Set-Cookie": "_xsrf=2|abc|def|123; Path=/",
	}
	resp := &http.Response{Header: http.Header{}}
	for k, v := range carriers {
		resp.Header.Add(k, v)
	}
	for k, v := range keep {
		resp.Header.Add(k, v)
	}
	if err := w.f.modifyResponse(resp); err != nil {
		t.Fatal(err)
	}
	for k := range carriers {
		if k != "Set-Cookie" && resp.Header.Get(k) != "" {
			t.Errorf("header %s reaches the local client: %q", k, resp.Header.Get(k))
		}
	}
	for k, vs := range resp.Header {
		for _, v := range append(vs, k) {
			if strings.Contains(strings.ToLower(v), strings.ToLower(ptok[:8])) || strings.Contains(strings.ToLower(v), strings.ToLower(ptok[len(ptok)-8:])) {
				t.Errorf("header %s carries a piece of the proxy token: %q", k, v)
			}
		}
	}
	for _, k := range []string{"X-Plain", "X-Local", "Set-Cookie"} {
		if vs := resp.Header.Values(k); len(vs) != 1 || vs[0] != keep[k] {
			t.Errorf("header %s was dropped or changed: %q", k, vs)
		}
	}
}
