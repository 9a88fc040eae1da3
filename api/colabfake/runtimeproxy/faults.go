package runtimeproxy

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// FaultKind says what an injected Fault does.
type FaultKind int

// Proxy fault kinds (colabfake's ProxyCut, ProxyDropReply, ProxyStatus,
// ProxyIgnoreRange).
const (
	// FaultCut serves the request but ends the connection after
	// Fault.After bytes of the response body (a download cut
	// mid-way; the client sees an unexpected EOF).
	FaultCut FaultKind = iota + 1
	// FaultDropReply handles the request fully (an upload chunk is
	// applied) and then resets the connection without a reply.
	FaultDropReply
	// FaultStatus answers Fault.Status with Fault.Body
	// (Content-Type Fault.ContentType) without handling the request.
	FaultStatus
	// FaultIgnoreRange serves a download as 200 with the whole file,
	// ignoring Range.
	FaultIgnoreRange
)

// Runtime-proxy faults of transfers and of what a reply carries (issue
// 19; colabfake's ProxyStall, ProxyOverlong, ProxyEchoToken,
// ProxyRedirectToken). They are Fault kinds, matched like the others (Method,
// PathPrefix, Skip, Times).
const (
	// FaultStall serves the request but stops sending after
	// Fault.After body bytes (0: before the first) and holds the
	// connection open, sending nothing more, until the client gives up
	// (its request context ends) or the emulator closes: a transfer that
	// stalls without the connection dropping.
	FaultStall FaultKind = iota + 100
	// FaultOverlong serves the request and then sends Fault.After
	// (default 1024) more body bytes ('X') than the real reply holds,
	// without a Content-Length: a download longer than the size the
	// runtime reported.
	FaultOverlong
	// FaultEchoToken serves the request and echoes the proxy token it
	// carried in the response: an X-Colab-Runtime-Proxy-Token header, an
	// X-Debug-Request header quoting the query string, and a Set-Cookie
	// holding it (as a careless server or middlebox might).
	FaultEchoToken
	// FaultRedirectToken answers 302 with a Location back into the
	// runtime's proxy URL (Fault.Body the path below it, default
	// "tree") that carries the proxy token in its
	// colab-runtime-proxy-token query parameter.
	FaultRedirectToken
)

// Runtime-proxy faults of the monitor's routes, matched like
// the others; with PathPrefix "api/colab/resources" they hit Colab's
// resources route only.
const (
	// FaultDelay waits Fault.Delay (ending early when the client gives
	// up or the emulator closes), then serves the request: a slow reply.
	FaultDelay FaultKind = iota + 200
	// FaultStockNotFound answers as a stock jupyter_server does for a
	// route it lacks: 404 text/html with its "Jupyter Server" page, Server:
	// TornadoServer and its Content-Security-Policy.
	FaultStockNotFound
)

// Fault is a programmed failure of the runtime proxy; Inject queues it
// (colabfake.ProxyFault, Server.InjectProxy there). It matches requests whose method is Method ("" any) and
// whose path below the runtime's URL starts with PathPrefix ("files/",
// "api/contents/"); the first Skip matching requests pass untouched, the
// next Times (0 means 1, negative forever) get the fault.
type Fault struct {
	Kind        FaultKind
	Method      string
	PathPrefix  string
	Skip        int
	Times       int
	After       int64
	Status      int
	Body        string
	ContentType string
	// Delay is FaultDelay's wait.
	Delay time.Duration
}

type faultEntry struct {
	f          Fault
	skip, left int
}

// Inject queues a proxy fault.
func (s *Server) Inject(f Fault) {
	left := f.Times
	if left == 0 {
		left = 1
	}
	s.mu.Lock()
	s.faults = append(s.faults, &faultEntry{f: f, skip: f.Skip, left: left})
	s.mu.Unlock()
}

func (s *Server) takeFault(method, rest string) *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, e := range s.faults {
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
				s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
			}
		}
		return &f
	}
	return nil
}

// PendingFaults returns how many queued proxy faults have not been
// used up (a test checks its fault was met).
func (s *Server) PendingFaults() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.faults)
}

// ClearFaults drops every queued proxy fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	s.faults = nil
	s.mu.Unlock()
}

// applyFault acts on fault f of a request of runtime id that carried the
// proxy token tok; serve serves the request. It returns the writer the
// request is then served with, or handled true when the reply is complete
// (nothing more is served).
func (s *Server) applyFault(f *Fault, w http.ResponseWriter, r *http.Request, id, tok string, serve http.HandlerFunc) (_ http.ResponseWriter, handled bool) {
	switch f.Kind {
	case FaultStatus:
		if f.ContentType != "" {
			w.Header().Set("Content-Type", f.ContentType)
		}
		w.WriteHeader(f.Status)
		_, _ = io.WriteString(w, f.Body)
		return w, true
	case FaultDropReply:
		serve(discardWriter{header: http.Header{}}, r)
		ResetConn(w)
		return w, true
	case FaultCut:
		return &cutWriter{ResponseWriter: w, left: f.After}, false
	case FaultDelay:
		t := time.NewTimer(f.Delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return w, true
		case <-s.ctx.Done():
			return w, true
		}
		return w, false
	case FaultStockNotFound:
		StockNotFound(w)
		return w, true
	case FaultIgnoreRange:
		r.Header.Del("Range")
		return w, false
	case FaultStall:
		return &stallWriter{ResponseWriter: w, left: f.After, ctx: r.Context(), done: s.ctx.Done()}, false
	case FaultOverlong:
		n := f.After
		if n <= 0 {
			n = 1024
		}
		return &overlongWriter{ResponseWriter: w, extra: n}, false
	case FaultEchoToken:
		w.Header().Set(TokenHeader, tok)
		w.Header().Set("X-Debug-Request", r.URL.RawQuery+" token="+tok)
		http.SetCookie(w, &http.Cookie{Name: "colab-proxy-echo", Value: tok, Path: "/"})
		return w, false
	case FaultRedirectToken:
		p := f.Body
		if p == "" {
			p = "tree"
		}
		base := Prefix + id
		if s.opts.ProxyBase != "" {
			base = strings.TrimSuffix(s.opts.ProxyBase, "/") + "/" + id
		}
		sep := "?"
		if strings.Contains(p, "?") {
			sep = "&"
		}
		loc := base + "/" + strings.TrimPrefix(p, "/") + sep + TokenQuery + "=" + tok
		w.Header().Set("Location", loc)
		w.WriteHeader(http.StatusFound)
		return w, true
	}
	return w, false
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

// stallWriter passes left more body bytes, then blocks every Write until
// ctx or done ends, then aborts the reply.
type stallWriter struct {
	http.ResponseWriter
	left int64
	ctx  context.Context
	done <-chan struct{}
}

func (s *stallWriter) Write(p []byte) (int, error) {
	if int64(len(p)) <= s.left {
		s.left -= int64(len(p))
		return s.ResponseWriter.Write(p)
	}
	if s.left > 0 {
		_, _ = s.ResponseWriter.Write(p[:s.left])
		s.left = 0
	}
	if fl, ok := s.ResponseWriter.(http.Flusher); ok {
		fl.Flush()
	}
	select {
	case <-s.ctx.Done():
	case <-s.done:
	}
	panic(http.ErrAbortHandler)
}

// Unwrap lets http.ResponseController reach the connection's Flush.
func (s *stallWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// ReadFrom hides the underlying io.ReaderFrom so every byte passes Write.
func (s *stallWriter) ReadFrom(r io.Reader) (int64, error) {
	return io.Copy(struct{ io.Writer }{s}, r)
}

// overlongWriter drops the reply's Content-Length and, once the handler
// has written its body, sends extra more bytes.
type overlongWriter struct {
	http.ResponseWriter
	extra   int64
	started bool
}

func (o *overlongWriter) WriteHeader(code int) {
	o.started = true
	o.Header().Del("Content-Length")
	o.ResponseWriter.WriteHeader(code)
}

func (o *overlongWriter) Write(p []byte) (int, error) {
	if !o.started {
		o.WriteHeader(http.StatusOK)
	}
	return o.ResponseWriter.Write(p)
}

// finish sends the extra bytes (after the handler returned).
func (o *overlongWriter) finish() {
	if !o.started {
		return
	}
	chunk := []byte(strings.Repeat("X", 4096))
	for left := o.extra; left > 0; left -= int64(len(chunk)) {
		if left < int64(len(chunk)) {
			chunk = chunk[:left]
		}
		if _, err := o.ResponseWriter.Write(chunk); err != nil {
			return
		}
	}
}

// Unwrap lets http.ResponseController reach the connection's Flush.
func (o *overlongWriter) Unwrap() http.ResponseWriter { return o.ResponseWriter }

// finishFault completes a reply whose writer a fault wrapped (the
// overlong reply's extra bytes).
func finishFault(w http.ResponseWriter) {
	if o, ok := w.(*overlongWriter); ok {
		o.finish()
	}
}

// discardWriter is an http.ResponseWriter (and Flusher) that drops the
// reply: FaultDropReply serves the request into it.
type discardWriter struct{ header http.Header }

// Header, WriteHeader, Write and Flush implement http.ResponseWriter and
// http.Flusher, keeping nothing.
func (d discardWriter) Header() http.Header         { return d.header }
func (d discardWriter) WriteHeader(int)             {}
func (d discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d discardWriter) Flush()                      {}

// ResetConn hijacks the connection and closes it with SO_LINGER 0, so the
// client sees a TCP reset instead of a reply (colabfake's MCP faults use
// it too).
func ResetConn(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}
