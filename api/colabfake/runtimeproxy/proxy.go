// Package runtimeproxy is the Colab emulator's runtime proxy: each
// runtime's connectionInfo.url ("/proxy/{runtime id}/…"), checked against
// the runtime's proxy token as Colab does, and what answers behind it.
//
// Behind the token it serves, from the runtime's own file tree (a
// directory per runtime, removed with the runtime): GET/HEAD files/{path}
// (Range), the contents API (GET with content=0/1, PUT file with base64
// or text content and chunk 1, 2, …, -1 with LargeFileManager semantics,
// PUT directory, PATCH rename, DELETE, optionally to the trash), GET
// api/sessions (one Jupyter session per open Colab session, with a
// kernel), GET api/kernels and api/kernels/{id} (execution state, last
// activity, connections), POST api/kernels/{id}/interrupt, a kernel
// channels WebSocket that answers execute_request with execute_reply, and
// Colab's GET api/colab/resources (RAM, disks, GPUs). Hidden names
// (a segment starting with ".") are neither listed nor served, except
// that files/ serves the rich-output bundles under content/.dsm_outputs/,
// as Colab documents. Colab's terminal WebSocket
// colab/tty is package terminal's. With Config.JupyterUpstream every
// request behind the token goes to that Jupyter server instead.
//
// Between the client and all of that sit the programmed failures (Fault)
// and a front end's ways: nginx's HTML 413 past Config.ProxyMaxBody,
// Colab's XSSI guard (Config.XSSI).
//
// The file layout: proxy.go the token check and the routing (and the
// forwarding to a real Jupyter server), faults.go the programmed
// failures, limits.go the front end's body limit and XSSI guard,
// jupyter.go the Jupyter routes, files/ and contents models, store.go the
// per-runtime file trees, contents.go and upload.go the contents API,
// trash.go delete-to-trash, synthetic.go the generated large directory,
// kernels.go sessions, kernels and their channels, resources.go Colab's
// api/colab/resources (routed from serveJupyter, jupyter.go).
//
// The emulator's shared state (runtimes, sessions, proxy tokens and the
// lock over them) stays in package colabfake; the proxy reads it through
// Runtimes.
package runtimeproxy

import (
	"context"
	"crypto/subtle"
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake/runtimeproxy/terminal"
)

// Proxy header and query names; the same values as
// api/jupyter's, repeated so the emulator does not import its client.
const (
	// TokenHeader carries the runtime's proxy token on plain HTTP.
	TokenHeader = "X-Colab-Runtime-Proxy-Token"
	// TokenQuery carries it as a query parameter (WebSocket upgrades).
	TokenQuery = "colab-runtime-proxy-token"
)

// Prefix is the path the proxy is served under (Start in package
// colabfake mounts it there): "/proxy/{runtime id}/…".
const Prefix = "/proxy/"

// Runtimes is what the proxy reads of the emulator's shared state. Every
// method takes the emulator's lock for its own duration; a runtime id is
// the bare id ("rt-x"), not "runtimes/rt-x".
type Runtimes interface {
	// Now is the emulator's clock (token expiry, the trash's deletion
	// dates, the terminal's expiry check).
	Now() time.Time
	// Token returns runtime id's current proxy token and its expireTime;
	// ok is false when the runtime does not exist or has no
	// connectionInfo.
	Token(id string) (token string, expire time.Time, ok bool)
	// Earlier returns the tokens of runtime id that a renewal replaced,
	// with their expireTimes: each is still good until it expires.
	Earlier(id string) []api.ConnectionInfo
	// Exists reports whether runtime id exists (a reclaimed runtime
	// takes its terminal with it).
	Exists(id string) bool
	// Kernels returns the kernels of runtime id's open Colab sessions,
	// in session order (nil for an unknown runtime), giving a session
	// its kernel id on first use.
	Kernels(id string) []Kernel
	// HasKernel reports whether one of runtime id's open sessions has
	// the kernel kernelID.
	HasKernel(id, kernelID string) bool
	// InterruptKernel stops the code running in kernel kernelID of
	// runtime id, as SIGINT to the kernel does, and counts the
	// interrupt; it reports whether the kernel exists (nothing happens
	// when it does not).
	InterruptKernel(id, kernelID string) bool
	// TouchKernel records activity of kernel kernelID of runtime id (a
	// message on its channels socket): its last_activity becomes now.
	TouchKernel(id, kernelID string)
	// Activity is what runtime id's resource figures follow; ok is false
	// for an unknown runtime.
	Activity(id string) (a Activity, ok bool)
}

// Kernel is the Jupyter kernel behind one open Colab session, as
// api/kernels and api/sessions report it (filled in by colabfake from its
// emulated runs; the proxy adds the connections it counts).
type Kernel struct {
	// Session is the Colab session's id (the last segment of its name),
	// which is also the Jupyter session's id, path and name.
	Session string
	// ID is the Jupyter kernel id (a UUID).
	ID string
	// ExecutionState is "busy" while an emulated run is in flight,
	// "starting" for a kernel that never came up, else
	// "idle".
	ExecutionState string
	// LastActivity is the kernel's start, then the start and the end of
	// each run: it stands still while a run prints nothing.
	LastActivity time.Time
}

// Config is the proxy's part of colabfake.Options (fields named as
// there; see each one's documentation in colabfake.Options).
type Config struct {
	// Context ends when the emulator closes: kernel channels, terminals
	// and stalled replies end with it.
	Context context.Context
	// ProxyBase is where the proxy is served ("" when the emulator is not
	// listening itself: a redirect fault then points at "/proxy/{id}/").
	ProxyBase string
	// FilesDir holds the runtimes' file trees; "" means a temporary
	// directory made on first use and removed on Close.
	FilesDir string
	// DemoFiles puts the demo seed's sample files in every new tree.
	DemoFiles bool
	// ManyFiles, XSSI, JupyterUpstream, StrictTokenPlacement, TTYShell,
	// TTYCloseOnExpiry, OnProxyRequest, DeleteToTrash and ProxyMaxBody
	// are colabfake.Options' fields of the same names.
	ManyFiles            int
	XSSI                 bool
	JupyterUpstream      string
	StrictTokenPlacement bool
	TTYShell             bool
	TTYCloseOnExpiry     bool
	OnProxyRequest       func(*http.Request)
	DeleteToTrash        bool
	ProxyMaxBody         int64
	// Latency is colabfake.Options.ProxyLatency: a real delay before
	// every request is looked at (see ServeHTTP).
	Latency time.Duration
	// ResourcesFromHost, ResourcesNoXSSI, GPUFiguresOmitted and
	// NoColabExtensions are colabfake.Options' fields of the same names
	// (api/colab/resources, resources.go).
	ResourcesFromHost bool
	ResourcesNoXSSI   bool
	GPUFiguresOmitted bool
	NoColabExtensions bool
}

// Server is the runtime proxy of one emulator. It is safe for concurrent
// use.
type Server struct {
	opts     Config
	rt       Runtimes
	ctx      context.Context
	upstream *upstream
	tty      *terminal.Server
	files    files

	mu            sync.Mutex
	faults        []*faultEntry
	proxyRequests int
	proxyRefused  int
	// conns are the open channels sockets by kernel id (their number is
	// a kernel's "connections"; Publish writes to them).
	conns map[string]map[*websocket.Conn]struct{}
}

// New builds the proxy over rt with opts. Errors: a
// Config.JupyterUpstream that is not an http(s) URL.
func New(opts Config, rt Runtimes) (*Server, error) {
	s := &Server{opts: opts, rt: rt, ctx: opts.Context}
	if s.ctx == nil {
		s.ctx = context.Background()
	}
	if opts.JupyterUpstream != "" {
		up, err := parseUpstream(opts.JupyterUpstream)
		if err != nil {
			return nil, err
		}
		s.upstream = up
	}
	s.tty = terminal.New(terminal.Config{
		Context:       s.ctx,
		Shell:         opts.TTYShell,
		CloseOnExpiry: opts.TTYCloseOnExpiry,
		Now:           rt.Now,
		Exists:        rt.Exists,
		Dir:           s.contentDir,
	})
	return s, nil
}

// CheckUpstream returns New's error for a Config.JupyterUpstream of raw
// ("" is fine), so a caller can refuse it before building anything.
func CheckUpstream(raw string) error {
	if raw == "" {
		return nil
	}
	_, err := parseUpstream(raw)
	return err
}

// Close closes the file store and removes it when the proxy made it.
func (s *Server) Close() { s.closeFiles() }

// RemoveRuntime deletes runtime id's file tree (the runtime is gone);
// with Config.JupyterUpstream the files are that server's and stay.
func (s *Server) RemoveRuntime(id string) {
	if s.upstream == nil {
		s.removeFiles(id)
	}
}

// TTYStats returns how many terminal sockets are open now, how many
// client frames they received in all, and every size ({cols, rows}) the
// clients sent, in order.
func (s *Server) TTYStats() (open, frames int, sizes [][2]int) { return s.tty.Stats() }

func (s *Server) clock() time.Time { return s.rt.Now() }

// wait sleeps d; false when ctx or the emulator ended first.
func (s *Server) wait(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-s.ctx.Done():
		return false
	}
}

func proxyNotFound(w http.ResponseWriter) {
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(http.StatusNotFound)
}

// ServeHTTP serves "/proxy/{runtime id}/…" (see the package comment). A
// request needs the runtime's current, unexpired proxy token in the
// X-Colab-Runtime-Proxy-Token header or the colab-runtime-proxy-token
// query parameter (with Config.StrictTokenPlacement: the header on plain
// HTTP, the query on WebSocket upgrades only, except that colab/tty takes
// the header); otherwise, and for an unknown runtime, it answers 404 with
// an empty body, as Colab does. The caller checks Host.
//
// With Config.Latency every request waits that long before anything else
// (a network round trip: a WebSocket's upgrade waits, its frames do not);
// the wait ends early, answering nothing, when the request's context or
// the emulator's ends.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.opts.Latency > 0 && !s.wait(r.Context(), s.opts.Latency) {
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, Prefix)
	if !ok {
		proxyNotFound(w)
		return
	}
	id, rest, _ := strings.Cut(rest, "/")
	if s.opts.OnProxyRequest != nil {
		s.opts.OnProxyRequest(r)
	}
	upgrade := strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
	tok := r.Header.Get(TokenHeader)
	qtok := r.URL.Query().Get(TokenQuery)
	if s.opts.StrictTokenPlacement {
		// colab/tty takes the header, as Colab's own terminal client sends it.
		if upgrade && rest != terminal.Path {
			tok = qtok
		}
	} else if tok == "" {
		tok = qtok
	}
	now := s.clock()
	want, exp, known := s.rt.Token(id)
	valid := known && tok != "" &&
		subtle.ConstantTimeCompare([]byte(tok), []byte(want)) == 1 &&
		now.Before(exp)
	if !valid && known && tok != "" {
		for _, ci := range s.rt.Earlier(id) {
			if subtle.ConstantTimeCompare([]byte(tok), []byte(ci.Token)) == 1 && now.Before(ci.ExpireTime) {
				valid = true
			}
		}
	}
	s.mu.Lock()
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
		s.serveRuntime(w, r, id, rest, exp, upgrade)
	}
	if f := s.takeFault(r.Method, rest); f != nil {
		var done bool
		if w, done = s.applyFault(f, w, r, id, tok, serve); done {
			return
		}
	}
	serve(w, r)
	finishFault(w)
}

// serveRuntime serves one token-checked request of runtime id (rest: the
// path below its URL; exp: the expireTime of the token it carried):
// Colab's terminal, or the Jupyter server (the emulator's own, or
// Config.JupyterUpstream).
func (s *Server) serveRuntime(w http.ResponseWriter, r *http.Request, id, rest string, exp time.Time, upgrade bool) {
	if s.upstream != nil {
		s.serveUpstream(w, r, id, rest)
		return
	}
	if s.opts.NoColabExtensions && (rest == terminal.Path || rest == ResourcesPath) {
		StockNotFound(w)
		return
	}
	if rest == terminal.Path && upgrade {
		if err := s.tty.Serve(w, r, id, exp); err != nil {
			jsonError(w, http.StatusInternalServerError, "starting a shell: %v", err)
		}
		return
	}
	s.serveJupyter(w, r, id, rest)
}

// Requests returns how many requests reached the runtime proxy, and how
// many of them it refused with 404 for a missing, wrong or expired token
// or an unknown runtime.
func (s *Server) Requests() (total, refused int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proxyRequests, s.proxyRefused
}

// serveUpstream forwards an authenticated proxy request to the Jupyter
// server at Config.JupyterUpstream, without the proxy token, with the
// upstream's own token (from the upstream URL's ?token=) when it has one.
func (s *Server) serveUpstream(w http.ResponseWriter, r *http.Request, id, rest string) {
	up := s.upstream
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			u := *up.base
			u.Path = strings.TrimSuffix(u.Path, "/") + "/" + rest
			u.RawPath = ""
			q := pr.In.URL.Query()
			q.Del(TokenQuery)
			u.RawQuery = q.Encode()
			pr.Out.URL = &u
			pr.Out.Host = u.Host
			pr.Out.Header.Del(TokenHeader)
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
					lu.Scheme, lu.Host, lu.Path = "", "", Prefix+id+p
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
