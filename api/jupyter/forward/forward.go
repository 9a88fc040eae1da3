// Package forward serves a runtime's Jupyter server on a local address
// (colabdash forward): Forwarder checks each local request's Host, token
// and Origin, strips local credentials, and relays it through the
// runtime proxy with the current proxy token of a proxy.Client.
package forward

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// LocalTokenParam is the query parameter (and "Authorization: token …"
// scheme) a Forwarder's local clients authenticate with, as Jupyter's own
// token auth does.
const LocalTokenParam = "token"

// Forwarder serves a runtime's Jupyter server on a local address: every
// HTTP request and WebSocket upgrade that passes its checks is forwarded
// to connectionInfo.url with the current proxy token (a header on HTTP,
// the colab-runtime-proxy-token query parameter on upgrades), renewed
// ahead of expiry by the Client, so a local Jupyter client or editor stays
// connected for hours. WebSocket frames are relayed byte for byte
// (extensions are negotiated between the two ends); an open socket is
// not torn down by a renewal.
//
// Security (field cases 55, 56): a request is refused (403) before
// anything reaches the runtime unless its Host is exactly
// 127.0.0.1:PORT, localhost:PORT, [::1]:PORT or another loopback IP
// literal (any IP literal when listening beyond loopback), it carries the local token (the
// ?token= query, "Authorization: token …", or the cookie set after a
// ?token= navigation), and its Origin (on any request, a WebSocket
// upgrade or not) is absent or the forward's own. The local token, the cookie and any
// X-Colab-* header are stripped before forwarding; Host and Origin are
// rewritten to the runtime's. The proxy token never appears in a response.
type Forwarder struct {
	c     *proxy.Client
	token string
	port  int
	wide  bool // listening beyond loopback: IP-literal Hosts allowed
	log   *slog.Logger
	rp    *httputil.ReverseProxy

	goneOnce sync.Once
	gone     chan struct{} // closed once a renewal said the runtime is gone
	goneErr  error         // that renewal's error, set before gone closes
}

// Options configure New.
type Options struct {
	// Port is the local port the forward listens on (needed for the Host
	// check and the cookie name).
	Port int
	// Wide is true when listening beyond loopback (--address): Hosts that
	// are IP literals are accepted as well; the token is still required.
	Wide bool
	// LocalToken is the token local clients must present; empty: 32 random
	// bytes (256 bits, crypto/rand), URL-safe base64.
	LocalToken string
	// Logger gets one record per refused request (never a token).
	Logger *slog.Logger
}

// New builds a Forwarder to c's runtime. The local token is registered
// with c's redactor. Errors: a LocalToken shorter than 16 characters, or
// no randomness for one.
func New(c *proxy.Client, o Options) (*Forwarder, error) {
	if o.LocalToken == "" {
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return nil, err
		}
		o.LocalToken = base64.RawURLEncoding.EncodeToString(b)
	}
	if len(o.LocalToken) < 16 {
		return nil, errors.New("the local token must be at least 16 characters")
	}
	if o.Logger == nil {
		o.Logger = c.Options().Logger
	}
	c.Options().Redactor.Add(o.LocalToken)
	f := &Forwarder{c: c, token: o.LocalToken, port: o.Port, wide: o.Wide, log: o.Logger, gone: make(chan struct{})}
	f.rp = &httputil.ReverseProxy{
		Rewrite:        f.rewrite,
		Transport:      &renewingTransport{c: c, noteGone: f.noteGone},
		ModifyResponse: f.modifyResponse,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			msg := "colabdash forward: the runtime could not be reached"
			var je *proxy.Error
			if errors.As(err, &je) {
				msg = "colabdash forward: " + je.Error()
			}
			if errors.Is(err, context.Canceled) {
				return
			}
			http.Error(w, c.Options().Redactor.Redact(msg), http.StatusBadGateway)
		},
		FlushInterval: -1,
	}
	return f, nil
}

// Token returns the local token.
func (f *Forwarder) Token() string { return f.token }

// URL returns the address a Jupyter client opens: http://HOST:PORT/?token=….
func (f *Forwarder) URL(host string) string {
	return "http://" + net.JoinHostPort(host, strconv.Itoa(f.port)) + "/?" + LocalTokenParam + "=" + f.token
}

// Gone is closed once a renewal of the proxy token (KeepFresh's, or a
// forwarded request's) found that the runtime no longer exists (deleted
// or reclaimed: get_runtime's NOT_FOUND). A runtime never comes back
// under its id, so nothing the forward serves can succeed after it; its
// caller stops. GoneErr says which renewal.
func (f *Forwarder) Gone() <-chan struct{} { return f.gone }

// GoneErr is the *proxy.Error (kind proxy.ErrRuntimeGone) that closed
// Gone; nil while Gone is open.
func (f *Forwarder) GoneErr() error {
	select {
	case <-f.gone:
		return f.goneErr
	default:
		return nil
	}
}

// noteGone closes Gone when err says the runtime no longer exists.
func (f *Forwarder) noteGone(err error) {
	var je *proxy.Error
	if !errors.As(err, &je) || !errors.Is(je.Kind, proxy.ErrRuntimeGone) {
		return
	}
	f.goneOnce.Do(func() {
		f.goneErr = err
		close(f.gone)
	})
}

func (f *Forwarder) cookieName() string { return "colabdash-forward-" + strconv.Itoa(f.port) }

// KeepFresh renews the proxy token ahead of expiry until ctx ends,
// checking every interval (default 30 s), so the first request after an
// idle hour does not wait for a renewal.
func (f *Forwarder) KeepFresh(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = 30 * time.Second
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if _, err := f.c.Fresh(ctx); err != nil && ctx.Err() == nil {
			f.noteGone(err)
			f.log.Warn("forward: proxy token renewal failed", "runtime", f.c.Runtime(), "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (f *Forwarder) hostOK(host string) bool {
	p := ":" + strconv.Itoa(f.port)
	switch host {
	case "127.0.0.1" + p, "localhost" + p, "[::1]" + p:
		return true
	}
	// An IP literal on the forward's port: any when listening beyond
	// loopback, else a loopback one (127.0.0.2 when --address named it;
	// a literal is not open to DNS rebinding, a name would be).
	h, port, err := net.SplitHostPort(host)
	if err != nil || ":"+port != p {
		return false
	}
	ip := net.ParseIP(h)
	return ip != nil && (f.wide || ip.IsLoopback())
}

func (f *Forwarder) originOK(origin, host string) bool {
	if origin == "" {
		return true
	}
	return origin == "http://"+host && f.hostOK(host)
}

func (f *Forwarder) tokenOK(s string) bool {
	return s != "" && subtle.ConstantTimeCompare([]byte(s), []byte(f.token)) == 1
}

// ServeHTTP checks Host, the local token and Origin, then forwards.
func (f *Forwarder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	refuse := func(status int, why string) {
		f.log.Info("forward: request refused", "reason", why, "method", r.Method, "path", r.URL.Path)
		http.Error(w, "colabdash forward: "+why, status)
	}
	if !f.hostOK(r.Host) {
		refuse(http.StatusForbidden, "Host "+strconv.Quote(r.Host)+" is not this forward's address")
		return
	}
	upgrade := isUpgrade(r)
	// Every request, not only a WebSocket's: a page of another local
	// port is the same site, so its POST carries the cookie, and the
	// runtime sees only the Origin this forward rewrites.
	if !f.originOK(r.Header.Get("Origin"), r.Host) {
		refuse(http.StatusForbidden, "Origin "+strconv.Quote(r.Header.Get("Origin"))+" is not this forward's")
		return
	}
	qtok := r.URL.Query().Get(LocalTokenParam)
	authz := r.Header.Get("Authorization")
	htok, _ := strings.CutPrefix(authz, "token ")
	ctok := ""
	if ck, err := r.Cookie(f.cookieName()); err == nil {
		ctok = ck.Value
	}
	if !f.tokenOK(qtok) && !f.tokenOK(htok) && !f.tokenOK(ctok) {
		refuse(http.StatusUnauthorized, "missing or wrong token (open the URL colabdash forward printed)")
		return
	}
	if f.tokenOK(qtok) {
		http.SetCookie(w, &http.Cookie{Name: f.cookieName(), Value: f.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		if !upgrade && (r.Method == http.MethodGet || r.Method == http.MethodHead) &&
			(r.URL.Path == "/" || strings.Contains(r.Header.Get("Accept"), "text/html")) {
			// A browser navigation: drop the token from the address bar.
			u := *r.URL
			q := u.Query()
			q.Del(LocalTokenParam)
			u.RawQuery = q.Encode()
			u.Scheme, u.Host = "", ""
			http.Redirect(w, r, u.RequestURI(), http.StatusFound)
			return
		}
	}
	f.rp.ServeHTTP(w, r)
}

func isUpgrade(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket") &&
		strings.Contains(strings.ToLower(r.Header.Get("Connection")), "upgrade")
}

// rewrite points the request at the runtime, without local credentials.
func (f *Forwarder) rewrite(pr *httputil.ProxyRequest) {
	in, out := pr.In, pr.Out
	base, _ := f.c.Endpoint()
	out.URL.Scheme, out.URL.Host = base.Scheme, base.Host
	out.URL.Path = strings.TrimSuffix(base.Path, "/") + "/" + strings.TrimPrefix(in.URL.Path, "/")
	out.URL.RawPath = ""
	if in.URL.RawPath != "" {
		out.URL.RawPath = strings.TrimSuffix(base.EscapedPath(), "/") + "/" + strings.TrimPrefix(in.URL.RawPath, "/")
	}
	q := in.URL.Query()
	q.Del(LocalTokenParam)
	q.Del(proxy.TokenQuery)
	out.URL.RawQuery = q.Encode()
	out.Host = base.Host
	out.Header.Del("Authorization")
	out.Header.Del("Referer")
	for k := range out.Header {
		if strings.HasPrefix(strings.ToLower(k), "x-colab-") {
			out.Header.Del(k)
		}
	}
	// Keep the runtime's own cookies (Jupyter's _xsrf), drop the forward's.
	if cs := in.Cookies(); len(cs) > 0 {
		out.Header.Del("Cookie")
		for _, ck := range cs {
			if ck.Name != f.cookieName() {
				out.AddCookie(ck)
			}
		}
	}
	if out.Header.Get("Origin") != "" {
		out.Header.Set("Origin", base.Scheme+"://"+base.Host)
	}
	out.Header.Set(proxy.AgentHeader, proxy.Agent)
	// X-Forwarded-For, -Host, -Proto and Forwarded are already gone:
	// ReverseProxy strips them before Rewrite, which never sets them.
}

// modifyResponse rewrites redirects that point into the runtime's URL to
// the forward's own paths, and drops every header value (and every
// header named) that carries the proxy token or another secret in any
// form (carriesSecret); the header's other values stay (one Set-Cookie
// of several).
func (f *Forwarder) modifyResponse(resp *http.Response) error {
	base, ci := f.c.Endpoint()
	tok := ci.Token
	if loc := resp.Header.Get("Location"); loc != "" {
		if u, err := url.Parse(loc); err == nil {
			if u.Host == "" || (u.Host == base.Host && u.Scheme == base.Scheme) {
				p := strings.TrimPrefix(u.Path, strings.TrimSuffix(base.Path, "/"))
				q := u.Query()
				q.Del(proxy.TokenQuery)
				u.Scheme, u.Host, u.Path, u.RawPath, u.RawQuery = "", "", "/"+strings.TrimPrefix(p, "/"), "", q.Encode()
				resp.Header.Set("Location", u.String())
			}
		}
	}
	red := f.c.Options().Redactor
	for k, vs := range resp.Header {
		if f.carriesSecret(red, tok, k) {
			resp.Header.Del(k)
			continue
		}
		kept := vs[:0]
		for _, v := range vs {
			if !f.carriesSecret(red, tok, v) {
				kept = append(kept, v)
			}
		}
		if len(kept) == 0 {
			resp.Header.Del(k)
		} else {
			resp.Header[k] = kept
		}
	}
	return nil
}

// carriesSecret reports whether s, a response header's name or value,
// holds the proxy token tok or any secret the redactor knows, in any form
// it knows (any letter case, URL-encoded, JSON-escaped, base64, or a
// piece of 8 bytes or more of its start or end, as a token split across
// two headers or a folded line leaves it). The forward's own local token
// is the local client's already: it does not count.
func (f *Forwarder) carriesSecret(red *api.Redactor, tok, s string) bool {
	if tok != "" && strings.Contains(s, tok) {
		return true
	}
	return red.Carries(strings.ReplaceAll(s, f.token, ""))
}

// renewingTransport sends a forwarded request with the current proxy
// token; a GET or HEAD refused by the proxy (bare 404) is sent once more
// after a renewal. A renewal that finds the runtime gone is told to
// noteGone.
type renewingTransport struct {
	c        *proxy.Client
	noteGone func(error)
}

func (t *renewingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c := t.c
	send := func() (*http.Response, string, error) {
		ci, err := c.Fresh(req.Context())
		if err != nil {
			t.noteGone(err)
			return nil, "", err
		}
		r := req.Clone(req.Context())
		if isUpgrade(req) {
			q := r.URL.Query()
			q.Set(proxy.TokenQuery, ci.Token)
			r.URL.RawQuery = q.Encode()
		} else {
			r.Header.Set(proxy.TokenHeader, ci.Token)
		}
		resp, err := c.Options().Transport.RoundTrip(r)
		if err != nil {
			return nil, ci.Token, &redactedError{msg: c.Options().Redactor.Redact(proxy.StripURL(err)), cause: urlCause(err)}
		}
		return resp, ci.Token, nil
	}
	resp, used, err := send()
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusNotFound && !isUpgrade(req) && (req.Method == http.MethodGet || req.Method == http.MethodHead) {
		first := make([]byte, 1)
		n, _ := io.ReadFull(resp.Body, first)
		if n == 0 {
			// The proxy's bare 404: renew and try once more.
			resp.Body.Close()
			if rerr := c.RenewIfCurrent(req.Context(), used); rerr != nil {
				t.noteGone(rerr)
				return nil, rerr
			}
			resp, _, err = send()
			return resp, err
		}
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(first[:n]), resp.Body), resp.Body}
	}
	return resp, nil
}

// redactedError is a failed forward: its text is redacted and without
// the URL (which carries the proxy token on an upgrade), and it unwraps
// to the cause (context.Canceled when the local client went away, a
// net.Error…), so callers can still errors.Is / errors.As it.
type redactedError struct {
	msg   string
	cause error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.cause }

// urlCause returns what a *url.Error wraps (its URL dropped), else err.
func urlCause(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
