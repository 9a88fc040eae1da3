// Package safehttp is the redirect policy of every HTTP client colabdash
// has (the MCP endpoint, the Google token endpoints, and any later client
// such as a runtime proxy): a redirect may change the path, never the
// scheme, host or port, so credentials (an Authorization header added by a
// RoundTripper, a client secret in a form body) are never sent to another
// origin. A refused redirect is a *RedirectError naming both URLs.
//
// Use Client to build or wrap an *http.Client; it sets both CheckRedirect
// and a Transport guard. The guard alone (Transport) also protects clients
// that libraries build from a transport, e.g. oauth2.NewClient, which keeps
// the base transport but may drop CheckRedirect.
//
// CheckCredentialURL is the other half: the one rule for which URLs a
// credential may be sent to at all (https, or plain http to loopback).
package safehttp

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// MaxRedirects is how many same-origin redirects one request may follow
// (as net/http's default policy).
const MaxRedirects = 10

// RedirectError is a refused redirect: From is the URL that answered with
// the redirect, To where it pointed (both without user info or query, so
// no secret in them is repeated). errors.As finds it through the
// *url.Error an http.Client returns.
type RedirectError struct {
	From, To string
	// TooMany is set when the request was redirected more than
	// MaxRedirects times (within one origin).
	TooMany bool
}

// Error says which redirect was refused and why, in one line.
func (e *RedirectError) Error() string {
	if e.TooMany {
		return "refused to follow more than " + strconv.Itoa(MaxRedirects) + " redirects (last from " + e.From + " to " + e.To + ")"
	}
	return "refused a redirect from " + e.From + " to " + e.To +
		": credentials are only sent to the scheme, host and port they were meant for"
}

// CheckRedirect is an http.Client.CheckRedirect: it refuses a redirect
// whose scheme, host or port differs from the original request's, and
// more than MaxRedirects redirects. The error is a *RedirectError.
func CheckRedirect(req *http.Request, via []*http.Request) error {
	if len(via) == 0 {
		return nil
	}
	first, prev := via[0], via[len(via)-1]
	if !SameOrigin(first.URL, req.URL) {
		return &RedirectError{From: Redact(prev.URL), To: Redact(req.URL)}
	}
	if len(via) >= MaxRedirects {
		return &RedirectError{From: Redact(prev.URL), To: Redact(req.URL), TooMany: true}
	}
	return nil
}

// Client returns a copy of base (http.DefaultClient when nil) whose
// CheckRedirect applies CheckRedirect first (then base's own, if any) and
// whose Transport is wrapped in the Transport guard. base is not modified.
func Client(base *http.Client) *http.Client {
	if base == nil {
		base = http.DefaultClient
	}
	c := *base
	own := base.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if err := CheckRedirect(req, via); err != nil {
			return err
		}
		if own != nil {
			return own(req, via)
		}
		return nil
	}
	c.Transport = Transport(base.Transport)
	return &c
}

// Transport wraps base (http.DefaultTransport when nil) so it refuses to
// send a redirected request (one whose Request.Response is the redirect
// that caused it) to another scheme, host or port than the request that
// was redirected, with a *RedirectError. It works whatever CheckRedirect
// the http.Client above it has. Wrapping twice is harmless.
func Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	if _, ok := base.(*guard); ok {
		return base
	}
	return &guard{base: base}
}

type guard struct{ base http.RoundTripper }

func (g *guard) RoundTrip(req *http.Request) (*http.Response, error) {
	if r := req.Response; r != nil && r.Request != nil && !SameOrigin(r.Request.URL, req.URL) {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, &RedirectError{From: Redact(r.Request.URL), To: Redact(req.URL)}
	}
	if req.URL != nil && strings.EqualFold(req.URL.Hostname(), "localhost") {
		return g.roundTripLocalhost(req)
	}
	return g.base.RoundTrip(req)
}

// roundTripLocalhost sends a request for "localhost" to the literal
// loopback addresses instead of letting the dialler resolve the name:
// Go's resolver reads /etc/hosts first (hosts: files dns), but where the
// file lacks the name (some containers) or a cgo resolver is configured
// otherwise, "localhost" would be asked of DNS and a plain-http
// credential could follow the answer off the machine. The Host header
// keeps the name the URL had. 127.0.0.1 is tried first; when nothing
// listens there (a dial error, so nothing was sent) the request goes to
// [::1] if its body can be replayed.
func (g *guard) roundTripLocalhost(req *http.Request) (*http.Response, error) {
	orig, host := req, req.Host
	if host == "" {
		host = req.URL.Host
	}
	send := func(ip string) (*http.Response, error) {
		out := req.Clone(req.Context())
		out.Host = host
		if p := req.URL.Port(); p != "" {
			out.URL.Host = net.JoinHostPort(ip, p)
		} else if strings.Contains(ip, ":") {
			out.URL.Host = "[" + ip + "]"
		} else {
			out.URL.Host = ip
		}
		resp, err := g.base.RoundTrip(out)
		if resp != nil {
			resp.Request = orig
		}
		return resp, err
	}
	resp, err := send("127.0.0.1")
	var op *net.OpError
	if err == nil || !errors.As(err, &op) || op.Op != "dial" {
		return resp, err
	}
	if req.Body != nil && req.Body != http.NoBody {
		if req.GetBody == nil {
			return resp, err
		}
		body, berr := req.GetBody()
		if berr != nil {
			return resp, err
		}
		req = req.Clone(req.Context())
		req.Body = body
	}
	return send("::1")
}

// SameOrigin reports whether a and b have the same scheme, host and port
// (compared case-insensitively, with a missing port taken as the scheme's
// default: 80 for http, 443 for https).
func SameOrigin(a, b *url.URL) bool {
	if a == nil || b == nil {
		return false
	}
	sa, sb := strings.ToLower(a.Scheme), strings.ToLower(b.Scheme)
	return sa == sb && strings.EqualFold(a.Hostname(), b.Hostname()) && port(sa, a) == port(sb, b)
}

func port(scheme string, u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch scheme {
	case "http":
		return "80"
	case "https":
		return "443"
	}
	return ""
}

// Redact renders u for an error message without its user info, query and
// fragment (which may carry tokens): "https://host:port/path".
func Redact(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}
	if c.Host == "" && u.Opaque != "" {
		return u.Scheme + ":…"
	}
	s := c.String()
	if u.RawQuery != "" || u.ForceQuery {
		s += "?…"
	}
	return s
}

// IsRedirect reports whether err is (or wraps) a refused redirect.
func IsRedirect(err error) bool {
	var re *RedirectError
	return errors.As(err, &re)
}

// PlainHTTPError is a URL CheckCredentialURL refused: plain http to a
// host that is not loopback, where a credential (an OAuth bearer token,
// a proxy token, a Jupyter token) would cross the network unencrypted.
// URL is the refused URL and HTTPS the https form to use instead, both
// without user info or query (Redact), so no secret in them is repeated.
type PlainHTTPError struct {
	URL, HTTPS string
}

// Error says why the URL is refused and what to use, in one line.
func (e *PlainHTTPError) Error() string {
	return "plain http would send credentials unencrypted over the network; use " + e.HTTPS +
		" (http is accepted only for loopback: 127.0.0.0/8, ::1, localhost without a trailing dot)"
}

// CheckCredentialURL is the one rule for where a credential may be sent:
// an https URL anywhere, a plain http URL only to a loopback host
// (127.0.0.0/8, ::1 or localhost: the embedded emulator, tests), where
// nothing crosses a network. It checks the scheme and host only; a URL
// that is not http or https is the caller's to refuse. The error is a
// *PlainHTTPError.
func CheckCredentialURL(u *url.URL) error {
	if u == nil || !strings.EqualFold(u.Scheme, "http") || IsLoopbackHost(u.Hostname()) {
		return nil
	}
	https := *u
	https.Scheme = "https"
	return &PlainHTTPError{URL: Redact(u), HTTPS: Redact(&https)}
}

// IsLoopbackHost reports whether host (a URL's Hostname(), without port
// or brackets) names this machine without any lookup that could leave
// it: exactly "localhost" (any case, no trailing dot) or a literal IP
// address in 127.0.0.0/8 or ::1 (IPv4-mapped forms such as
// ::ffff:127.0.0.1 included). "localhost." is refused: a fully
// qualified name skips /etc/hosts and is asked of DNS, whose answer
// would receive the credential. Transport dials "localhost" itself as
// 127.0.0.1 (then ::1), never through a resolver. This is the one rule:
// the embedded emulator answers exactly these Host names too.
func IsLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
