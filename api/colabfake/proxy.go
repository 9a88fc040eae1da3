package colabfake

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/colabdash/colabdash/api"
)

// Proxy header and query names (colab-api.md §4); the same values as
// api/jupyter's, repeated so the emulator does not import its client.
const (
	proxyTokenHeader = "X-Colab-Runtime-Proxy-Token"
	proxyTokenQuery  = "colab-runtime-proxy-token"
)

// ProxyFaultKind says what an injected ProxyFault does.
type ProxyFaultKind int

// Proxy fault kinds.
const (
	// ProxyCut serves the request but ends the connection after
	// ProxyFault.After bytes of the response body (a download cut
	// mid-way; the client sees an unexpected EOF).
	ProxyCut ProxyFaultKind = iota + 1
	// ProxyDropReply handles the request fully (an upload chunk is
	// applied) and then resets the connection without a reply.
	ProxyDropReply
	// ProxyStatus answers ProxyFault.Status with ProxyFault.Body
	// (Content-Type ProxyFault.ContentType) without handling the request.
	ProxyStatus
	// ProxyIgnoreRange serves a download as 200 with the whole file,
	// ignoring Range (field case 50 b).
	ProxyIgnoreRange
)

// ProxyFault is a programmed failure of the runtime proxy; InjectProxy
// queues it. It matches requests whose method is Method ("" any) and
// whose path below the runtime's URL starts with PathPrefix ("files/",
// "api/contents/"); the first Skip matching requests pass untouched, the
// next Times (0 means 1, negative forever) get the fault.
type ProxyFault struct {
	Kind        ProxyFaultKind
	Method      string
	PathPrefix  string
	Skip        int
	Times       int
	After       int64
	Status      int
	Body        string
	ContentType string
}

type proxyFaultEntry struct {
	f          ProxyFault
	skip, left int
}

// InjectProxy queues a proxy fault.
func (s *Server) InjectProxy(f ProxyFault) {
	left := f.Times
	if left == 0 {
		left = 1
	}
	s.mu.Lock()
	s.proxyFaults = append(s.proxyFaults, &proxyFaultEntry{f: f, skip: f.Skip, left: left})
	s.mu.Unlock()
}

func (s *Server) takeProxyFault(method, rest string) *ProxyFault {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, e := range s.proxyFaults {
		if (e.f.Method != "" && e.f.Method != method) || !strings.HasPrefix(rest, e.f.PathPrefix) {
			continue
		}
		if e.skip > 0 {
			e.skip--
			continue
		}
		f := e.f
		if e.left > 0 {
			if e.left--; e.left == 0 {
				s.proxyFaults = append(s.proxyFaults[:i:i], s.proxyFaults[i+1:]...)
			}
		}
		return &f
	}
	return nil
}

// proxyURL is the connectionInfo.url of runtime id: the emulator's own
// proxy when it knows where it is served, else a fake Colab host.
func (s *Server) proxyURL(id string) string {
	if s.opts.ProxyBase != "" {
		return strings.TrimSuffix(s.opts.ProxyBase, "/") + "/" + id + "/"
	}
	return fakeColabURL(id)
}

// fakeColabURL is a Colab-style proxy host for runtime id that no request
// reaches.
func fakeColabURL(id string) string { return "https://8080-m-s-" + id + ".prod.colab.dev" }

// ProxyHandler serves the runtime proxy under "/proxy/" (Start mounts it
// there): "/proxy/{runtime id}/…" is that runtime's Jupyter server. A
// request needs the runtime's current, unexpired proxy token in the
// X-Colab-Runtime-Proxy-Token header or the colab-runtime-proxy-token
// query parameter (with Options.StrictTokenPlacement: the header on plain
// HTTP, the query on WebSocket upgrades only); otherwise, and for an
// unknown runtime, it answers 404 with an empty body, as Colab does.
//
// Behind the token it serves, from the runtime's own file tree (a
// directory per runtime, removed with the runtime): GET/HEAD files/{path}
// (Range), the contents API (GET with content=0/1, PUT file with base64
// or text content and chunk 1, 2, …, -1 with LargeFileManager semantics,
// PUT directory, PATCH rename, DELETE), GET api/sessions (one Jupyter
// session per open Colab session, with a kernel), POST
// api/kernels/{id}/interrupt and a kernel channels WebSocket that answers
// execute_request with execute_reply. Hidden names (a segment starting
// with ".") are neither listed nor served, except that files/ serves the
// rich-output bundles under content/.dsm_outputs/, as Colab documents
// (colab-api.md §4), and Colab's terminal WebSocket colab/tty (serveTTY:
// an emulated shell, or a real one with Options.TTYShell; the token in
// the header even with StrictTokenPlacement). With Options.JupyterUpstream
// every request behind the token goes to that Jupyter server instead.
func (s *Server) ProxyHandler() http.Handler { return http.HandlerFunc(s.serveProxy) }

func proxyNotFound(w http.ResponseWriter) {
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(http.StatusNotFound)
}

func (s *Server) serveProxy(w http.ResponseWriter, r *http.Request) {
	if !loopbackHost(r.Host) {
		http.Error(w, "Host is not a loopback name", http.StatusForbidden)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/proxy/")
	if !ok {
		proxyNotFound(w)
		return
	}
	id, rest, _ := strings.Cut(rest, "/")
	if s.opts.OnProxyRequest != nil {
		s.opts.OnProxyRequest(r)
	}
	upgrade := strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
	tok := r.Header.Get(proxyTokenHeader)
	qtok := r.URL.Query().Get(proxyTokenQuery)
	if s.opts.StrictTokenPlacement {
		// colab/tty takes the header, as Colab's own terminal client sends it.
		if upgrade && rest != ttyPath {
			tok = qtok
		}
	} else if tok == "" {
		tok = qtok
	}
	now := s.clock()
	s.mu.Lock()
	rt := s.lookupRuntime(api.RuntimeName(id))
	valid := rt != nil && rt.rt.ConnectionInfo != nil && tok != "" &&
		subtle.ConstantTimeCompare([]byte(tok), []byte(rt.rt.ConnectionInfo.Token)) == 1 &&
		now.Before(rt.rt.ConnectionInfo.ExpireTime)
	var exp time.Time
	if valid {
		exp = rt.rt.ConnectionInfo.ExpireTime
	}
	s.proxyRequests++
	if !valid {
		s.proxyRefused++
	}
	s.mu.Unlock()
	if !valid {
		proxyNotFound(w)
		return
	}
	if s.bodyTooLarge(w, r) {
		return
	}
	if s.opts.XSSI {
		w = &xssiWriter{ResponseWriter: w}
	}
	serve := func(w http.ResponseWriter, r *http.Request) {
		if s.upstream == nil && rest == ttyPath && upgrade {
			s.serveTTY(w, r, id, exp)
			return
		}
		if s.upstream != nil {
			s.serveUpstream(w, r, id, rest)
			return
		}
		s.serveJupyter(w, r, id, rest)
	}
	if f := s.takeProxyFault(r.Method, rest); f != nil {
		switch f.Kind {
		case ProxyStatus:
			if f.ContentType != "" {
				w.Header().Set("Content-Type", f.ContentType)
			}
			w.WriteHeader(f.Status)
			_, _ = io.WriteString(w, f.Body)
			return
		case ProxyDropReply:
			serve(newBufferWriter(), r)
			resetConn(w)
			return
		case ProxyCut:
			w = &cutWriter{ResponseWriter: w, left: f.After}
		case ProxyIgnoreRange:
			r.Header.Del("Range")
		default:
			var done bool
			if w, done = s.applyIssue19Fault(f, w, r, id, tok); done {
				return
			}
		}
	}
	serve(w, r)
	finishIssue19(w)
}

// cutWriter aborts the response after left more body bytes.
type cutWriter struct {
	http.ResponseWriter
	left int64
}

func (c *cutWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > c.left {
		n, _ := c.ResponseWriter.Write(p[:c.left])
		c.left = 0
		if f, ok := c.ResponseWriter.(http.Flusher); ok {
			f.Flush()
		}
		_ = n
		panic(http.ErrAbortHandler)
	}
	c.left -= int64(len(p))
	return c.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection's Flush.
func (c *cutWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// ReadFrom hides the underlying io.ReaderFrom so every byte passes Write.
func (c *cutWriter) ReadFrom(r io.Reader) (int64, error) {
	return io.Copy(struct{ io.Writer }{c}, r)
}

// serveUpstream forwards an authenticated proxy request to the Jupyter
// server at Options.JupyterUpstream, without the proxy token, with the
// upstream's own token (from the upstream URL's ?token=) when it has one.
func (s *Server) serveUpstream(w http.ResponseWriter, r *http.Request, id, rest string) {
	up := s.upstream
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			u := *up.base
			u.Path = strings.TrimSuffix(u.Path, "/") + "/" + rest
			u.RawPath = ""
			q := pr.In.URL.Query()
			q.Del(proxyTokenQuery)
			u.RawQuery = q.Encode()
			pr.Out.URL = &u
			pr.Out.Host = u.Host
			pr.Out.Header.Del(proxyTokenHeader)
			if up.token != "" {
				pr.Out.Header.Set("Authorization", "token "+up.token)
			}
			if o := pr.In.Header.Get("Origin"); o != "" {
				pr.Out.Header.Set("Origin", up.base.Scheme+"://"+up.base.Host)
			}
		},
		ModifyResponse: func(resp *http.Response) error {
			// Redirects point below the runtime's proxy URL, as Colab's do.
			if loc := resp.Header.Get("Location"); loc != "" {
				if lu, err := url.Parse(loc); err == nil && (lu.Host == "" || lu.Host == up.base.Host) {
					p := strings.TrimPrefix(lu.Path, strings.TrimSuffix(up.base.Path, "/"))
					lu.Scheme, lu.Host, lu.Path = "", "", "/proxy/"+id+p
					resp.Header.Set("Location", lu.String())
				}
			}
			return nil
		},
		FlushInterval: -1,
	}
	rp.ServeHTTP(w, r)
}

type upstream struct {
	base  *url.URL
	token string
}

func parseUpstream(raw string) (*upstream, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("colabfake: --jupyter-upstream %q is not an http(s) URL", raw)
	}
	up := &upstream{token: u.Query().Get("token")}
	u.RawQuery, u.Fragment = "", ""
	up.base = u
	return up, nil
}

// ProxyRequests returns how many requests reached the runtime proxy, and
// how many of them it refused with 404 for a missing, wrong or expired
// token or an unknown runtime.
func (s *Server) ProxyRequests() (total, refused int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proxyRequests, s.proxyRefused
}

// Interrupts returns how many times kernelID was interrupted through the
// proxy.
func (s *Server) Interrupts(kernelID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.interrupts[kernelID]
}

// KernelID returns the Jupyter kernel id of a Colab session
// ("runtimes/r/sessions/s"), "" when the session is not open.
func (s *Server) KernelID(session string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	rname := session
	if i := strings.Index(session, "/sessions/"); i >= 0 {
		rname = session[:i]
	}
	r := s.lookupRuntime(rname)
	if r == nil {
		return ""
	}
	if ss := r.findSession(session); ss != nil {
		return ss.kernelID()
	}
	return ""
}

// files is the emulator's per-runtime file store, created on first use.
type files struct {
	once sync.Once
	dir  string // root of every runtime's tree
	root *os.Root
	err  error
	own  bool // dir was made by the emulator: removed on Close
}

// jsonError writes Jupyter's error body {"message": …, "reason": null}.
func jsonError(w http.ResponseWriter, status int, format string, a ...any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"message": fmt.Sprintf(format, a...), "reason": nil})
}
