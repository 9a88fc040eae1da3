package colabfake

// The runtime proxy (package runtimeproxy) glued to the emulator's state:
// where it is served, what it reads of the runtimes (proxyState), and the
// names importers know it by.

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake/runtimeproxy"
	"github.com/colabdash/colabdash/api/colabfake/runtimeproxy/terminal"
	"github.com/google/uuid"
)

// ProxyFaultKind says what an injected ProxyFault does
// (runtimeproxy.FaultKind).
type ProxyFaultKind = runtimeproxy.FaultKind

// ProxyFault is a programmed failure of the runtime proxy; InjectProxy
// queues it. It matches requests whose method is Method ("" any) and
// whose path below the runtime's URL starts with PathPrefix ("files/",
// "api/contents/"); the first Skip matching requests pass untouched, the
// next Times (0 means 1, negative forever) get the fault
// (runtimeproxy.Fault).
type ProxyFault = runtimeproxy.Fault

// Proxy fault kinds (runtimeproxy's Fault… kinds, documented there).
const (
	// ProxyCut serves the request but ends the connection after
	// ProxyFault.After bytes of the response body.
	ProxyCut = runtimeproxy.FaultCut
	// ProxyDropReply handles the request fully, then resets the
	// connection without a reply.
	ProxyDropReply = runtimeproxy.FaultDropReply
	// ProxyStatus answers ProxyFault.Status with ProxyFault.Body without
	// handling the request.
	ProxyStatus = runtimeproxy.FaultStatus
	// ProxyIgnoreRange serves a download as 200 with the whole file,
	// ignoring Range.
	ProxyIgnoreRange = runtimeproxy.FaultIgnoreRange
	// ProxyStall stops sending after ProxyFault.After body bytes and holds
	// the connection open until the client gives up.
	ProxyStall = runtimeproxy.FaultStall
	// ProxyOverlong sends ProxyFault.After (default 1024) more body bytes
	// than the real reply holds, without a Content-Length.
	ProxyOverlong = runtimeproxy.FaultOverlong
	// ProxyEchoToken echoes the request's proxy token in the response's
	// headers and a cookie.
	ProxyEchoToken = runtimeproxy.FaultEchoToken
	// ProxyRedirectToken answers 302 to a Location in the runtime's
	// proxy URL that carries the proxy token in its query.
	ProxyRedirectToken = runtimeproxy.FaultRedirectToken
	// ProxyDelay waits ProxyFault.Delay, then serves the request (a
	// slow reply).
	ProxyDelay = runtimeproxy.FaultDelay
	// ProxyStockNotFound answers a stock jupyter_server's HTML 404 (a
	// route it lacks, such as api/colab/resources).
	ProxyStockNotFound = runtimeproxy.FaultStockNotFound
)

// TTYPrompt is the emulated shell's prompt (terminal.Prompt).
const TTYPrompt = terminal.Prompt

// SyntheticDir is the directory Options.ManyFiles fills, in every
// runtime's tree (/content/many; runtimeproxy.SyntheticDir).
const SyntheticDir = runtimeproxy.SyntheticDir

// SyntheticName is the name of the i-th (1-based) entry of SyntheticDir
// (runtimeproxy.SyntheticName).
func SyntheticName(i int) string { return runtimeproxy.SyntheticName(i) }

// newProxy builds s's runtime proxy from s.opts.
func (s *Server) newProxy() (*runtimeproxy.Server, error) {
	o := s.opts
	return runtimeproxy.New(runtimeproxy.Config{
		Context:              s.ctx,
		ProxyBase:            o.ProxyBase,
		FilesDir:             o.FilesDir,
		DemoFiles:            o.Seed == SeedDemo,
		ManyFiles:            o.ManyFiles,
		XSSI:                 o.XSSI,
		JupyterUpstream:      o.JupyterUpstream,
		StrictTokenPlacement: o.StrictTokenPlacement,
		TTYShell:             o.TTYShell,
		TTYCloseOnExpiry:     o.TTYCloseOnExpiry,
		OnProxyRequest:       o.OnProxyRequest,
		DeleteToTrash:        o.DeleteToTrash,
		ProxyMaxBody:         o.ProxyMaxBody,
		Latency:              o.ProxyLatency,
		ResourcesFromHost:    o.ResourcesFromHost,
		ResourcesNoXSSI:      o.ResourcesNoXSSI,
		GPUFiguresOmitted:    o.GPUFiguresOmitted,
		NoColabExtensions:    o.NoColabExtensions,
	}, proxyState{s})
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
// unknown runtime, it answers 404 with an empty body, as Colab does; a
// Host that is not a loopback name gets 403.
//
// Behind the token it serves, from the runtime's own file tree (a
// directory per runtime, removed with the runtime): GET/HEAD files/{path}
// (Range), the contents API (GET with content=0/1, PUT file with base64
// or text content and chunk 1, 2, …, -1 with LargeFileManager semantics,
// PUT directory, PATCH rename, DELETE), GET api/sessions (one Jupyter
// session per open Colab session, with a kernel), POST
// api/kernels/{id}/interrupt and a kernel channels WebSocket that answers
// execute_request with execute_reply. Hidden names (a segment starting with
// ".") are neither listed nor served, except that files/ serves the
// rich-output bundles under content/.dsm_outputs/, as Colab documents, and
// Colab's terminal WebSocket colab/tty (package runtimeproxy/terminal: an
// emulated shell, or a real one with Options.TTYShell; the token in the header
// even with StrictTokenPlacement). With Options.JupyterUpstream every request
// behind the token goes to that Jupyter server instead. See package
// runtimeproxy.
func (s *Server) ProxyHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopbackHost(r.Host) {
			http.Error(w, "Host is not a loopback name", http.StatusForbidden)
			return
		}
		s.proxy.ServeHTTP(w, r)
	})
}

// InjectProxy queues a proxy fault.
func (s *Server) InjectProxy(f ProxyFault) { s.proxy.Inject(f) }

// PendingProxyFaults returns how many queued proxy faults have not been
// used up (a test checks its fault was met).
func (s *Server) PendingProxyFaults() int { return s.proxy.PendingFaults() }

// ClearProxyFaults drops every queued proxy fault.
func (s *Server) ClearProxyFaults() { s.proxy.ClearFaults() }

// ProxyRequests returns how many requests reached the runtime proxy, and
// how many of them it refused with 404 for a missing, wrong or expired
// token or an unknown runtime.
func (s *Server) ProxyRequests() (total, refused int) { return s.proxy.Requests() }

// TTYStats returns how many terminal sockets are open now, how many
// client frames they received in all, and every size ({cols, rows}) the
// clients sent, in order.
func (s *Server) TTYStats() (open, frames int, sizes [][2]int) { return s.proxy.TTYStats() }

// ReplaceFile gives the runtime's file p (a Jupyter path such as
// "content/a.bin") the new content data, as another program on the
// runtime rewriting it between two downloads would (runtime: its name
// "runtimes/ID" or its ID). Its modification time (the contents model's
// last_modified) becomes modTime, or now when modTime is zero; a caller
// passing the old time models a rewrite that keeps it (cp -p, rsync -t,
// an unpacked archive). The emulator's own file tree only (not with
// Options.JupyterUpstream).
func (s *Server) ReplaceFile(runtime string, p string, data []byte, modTime time.Time) error {
	return s.proxy.ReplaceFile(runtime, p, data, modTime)
}

// ModTime returns the modification time (last_modified) of the
// runtime's file p in the emulator's own file tree.
func (s *Server) ModTime(runtime string, p string) (time.Time, error) {
	return s.proxy.ModTime(runtime, p)
}

// DiskUsage is the bytes of every regular file in runtime id's tree,
// hidden ones and the trash included: what `du -sb /` would say of the
// emulated runtime.
func (s *Server) DiskUsage(id string) int64 { return s.proxy.DiskUsage(id) }

// TrashNames lists what runtime id's trash holds (the names in its
// files/ directory), for tests.
func (s *Server) TrashNames(id string) []string { return s.proxy.TrashNames(id) }

// Interrupts returns how many times kernelID was interrupted through the
// proxy.
func (s *Server) Interrupts(kernelID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.interrupts[kernelID]
}

// KernelConnections returns how many channels sockets are open on the
// kernel of a Colab session (name "runtimes/R/sessions/S"); 0 when it has
// none or there is no such session.
func (s *Server) KernelConnections(session string) int {
	kid := s.KernelID(session)
	if kid == "" {
		return 0
	}
	return s.proxy.Connections(kid)
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

// liveRuns returns the session's executions still running. Call with s.mu
// held.
func (ss *sessionState) liveRuns() []*execRecord {
	var out []*execRecord
	for rec := range ss.running {
		if rec.interrupt != nil {
			out = append(out, rec)
		}
	}
	return out
}

func (ss *sessionState) kernelID() string {
	if ss.kernel == "" {
		ss.kernel = uuid.NewString()
	}
	return ss.kernel
}

// proxyState is what the runtime proxy reads of s (runtimeproxy.Runtimes),
// each method under s.mu.
type proxyState struct{ s *Server }

// Now is the emulator's clock.
func (p proxyState) Now() time.Time { return p.s.clock() }

// Token returns runtime id's current proxy token and expireTime.
func (p proxyState) Token(id string) (string, time.Time, bool) {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	rt := s.lookupRuntime(api.RuntimeName(id))
	if rt == nil || rt.rt.ConnectionInfo == nil {
		return "", time.Time{}, false
	}
	return rt.rt.ConnectionInfo.Token, rt.rt.ConnectionInfo.ExpireTime, true
}

// Earlier returns the proxy tokens of runtime id that a renewal replaced
// and their expireTimes, newest last.
func (p proxyState) Earlier(id string) []api.ConnectionInfo {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	rt := s.lookupRuntime(api.RuntimeName(id))
	if rt == nil || rt.rt.ConnectionInfo == nil {
		return nil
	}
	return slices.Clone(rt.earlier)
}

// Exists reports whether runtime id exists.
func (p proxyState) Exists(id string) bool {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lookupRuntime(api.RuntimeName(id)) != nil
}

// Kernels returns the kernels of runtime id's open sessions.
func (p proxyState) Kernels(id string) []runtimeproxy.Kernel {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	rt := s.lookupRuntime("runtimes/" + id)
	if rt == nil {
		return nil
	}
	out := make([]runtimeproxy.Kernel, 0, len(rt.sessions))
	for _, ss := range rt.sessions {
		state := "idle"
		switch {
		case ss.starting:
			state = "starting"
		case ss.runs > 0:
			state = "busy"
		}
		out = append(out, runtimeproxy.Kernel{Session: ss.name[strings.LastIndexByte(ss.name, '/')+1:], ID: ss.kernelID(),
			ExecutionState: state, LastActivity: ss.lastActivity})
	}
	return out
}

// TouchKernel makes kernelID's last_activity now.
func (p proxyState) TouchKernel(id, kernelID string) {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	rt := s.lookupRuntime("runtimes/" + id)
	if rt == nil {
		return
	}
	for _, ss := range rt.sessions {
		if ss.kernel != "" && ss.kernel == kernelID {
			ss.lastActivity = s.now()
		}
	}
}

// Activity is what runtime id's resource figures follow.
func (p proxyState) Activity(id string) (runtimeproxy.Activity, bool) {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	rt := s.lookupRuntime("runtimes/" + id)
	if rt == nil {
		return runtimeproxy.Activity{}, false
	}
	a := runtimeproxy.Activity{Spec: rt.rt.RuntimeSpec, Sessions: len(rt.sessions), GPUBusy: rt.gpuRuns > 0, GPUEverUsed: rt.gpuEverUsed}
	for _, ss := range rt.sessions {
		a.Runs += ss.runs
	}
	return a, true
}

// HasKernel reports whether an open session of runtime id has kernelID.
func (p proxyState) HasKernel(id, kernelID string) bool {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	return p.hasKernel(s.lookupRuntime("runtimes/"+id), kernelID)
}

// hasKernel is HasKernel for runtime rt (nil: none). Call with s.mu held.
func (p proxyState) hasKernel(rt *runtimeState, kid string) bool {
	if rt == nil {
		return false
	}
	for _, ss := range rt.sessions {
		if ss.kernel != "" && ss.kernel == kid {
			return true
		}
	}
	return false
}

// InterruptKernel counts an interrupt of kernelID and stops the runs of
// its session, as SIGINT to the kernel does.
func (p proxyState) InterruptKernel(id, kernelID string) bool {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	rt := s.lookupRuntime("runtimes/" + id)
	if !p.hasKernel(rt, kernelID) {
		return false
	}
	if s.interrupts == nil {
		s.interrupts = map[string]int{}
	}
	s.interrupts[kernelID]++
	for _, ss := range rt.sessions {
		if ss.kernel != kernelID {
			continue
		}
		for _, rec := range ss.liveRuns() {
			rec.interrupted = true
			rec.interrupt()
		}
	}
	return true
}
