package colabfake

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// Runtime-proxy faults of transfers and of what a reply carries (issue
// 19). They are ProxyFault kinds, matched like the others (Method,
// PathPrefix, Skip, Times).
const (
	// ProxyStall serves the request but stops sending after
	// ProxyFault.After body bytes (0: before the first) and holds the
	// connection open, sending nothing more, until the client gives up
	// (its request context ends) or the emulator closes: a transfer that
	// stalls without the connection dropping.
	ProxyStall ProxyFaultKind = iota + 100
	// ProxyOverlong serves the request and then sends ProxyFault.After
	// (default 1024) more body bytes ('X') than the real reply holds,
	// without a Content-Length: a download longer than the size the
	// runtime reported.
	ProxyOverlong
	// ProxyEchoToken serves the request and echoes the proxy token it
	// carried in the response: an X-Colab-Runtime-Proxy-Token header, an
	// X-Debug-Request header quoting the query string, and a Set-Cookie
	// holding it (as a careless server or middlebox might).
	ProxyEchoToken
	// ProxyRedirectToken answers 302 with a Location back into the
	// runtime's proxy URL (ProxyFault.Body the path below it, default
	// "tree") that carries the proxy token in its
	// colab-runtime-proxy-token query parameter.
	ProxyRedirectToken
)

// applyIssue19Fault acts on the fault kinds of this file. It returns the
// writer the request is then served with, or handled true when the reply
// is complete (nothing more is served).
func (s *Server) applyIssue19Fault(f *ProxyFault, w http.ResponseWriter, r *http.Request, id, tok string) (_ http.ResponseWriter, handled bool) {
	switch f.Kind {
	case ProxyStall:
		return &stallWriter{ResponseWriter: w, left: f.After, ctx: r.Context(), done: s.ctx.Done()}, false
	case ProxyOverlong:
		n := f.After
		if n <= 0 {
			n = 1024
		}
		return &overlongWriter{ResponseWriter: w, extra: n}, false
	case ProxyEchoToken:
		w.Header().Set(proxyTokenHeader, tok)
		w.Header().Set("X-Debug-Request", r.URL.RawQuery+" token="+tok)
		http.SetCookie(w, &http.Cookie{Name: "colab-proxy-echo", Value: tok, Path: "/"})
		return w, false
	case ProxyRedirectToken:
		p := f.Body
		if p == "" {
			p = "tree"
		}
		base := strings.TrimSuffix(s.proxyURL(id), "/")
		if s.opts.ProxyBase == "" {
			base = "/proxy/" + id
		}
		sep := "?"
		if strings.Contains(p, "?") {
			sep = "&"
		}
		loc := base + "/" + strings.TrimPrefix(p, "/") + sep + proxyTokenQuery + "=" + tok
		w.Header().Set("Location", loc)
		w.WriteHeader(http.StatusFound)
		return w, true
	}
	return w, false
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

// finishIssue19 completes a reply whose writer a fault of this file
// wrapped (the overlong reply's extra bytes).
func finishIssue19(w http.ResponseWriter) {
	if o, ok := w.(*overlongWriter); ok {
		o.finish()
	}
}

// ReplaceFile gives the runtime's file p (a Jupyter path such as
// "content/a.bin") the new content data, as another program on the
// runtime rewriting it between two downloads would (runtime: its name
// "runtimes/ID" or its ID). Its modification
// time (the contents model's last_modified) becomes modTime, or now when
// modTime is zero; a caller passing the old time models a rewrite that
// keeps it (cp -p, rsync -t, an unpacked archive). The emulator's own
// file tree only (not with Options.JupyterUpstream).
func (s *Server) ReplaceFile(runtime string, p string, data []byte, modTime time.Time) error {
	if s.upstream != nil {
		return fmt.Errorf("ReplaceFile: the emulator forwards to a Jupyter server; change the file there")
	}
	root, err := s.fileRoot()
	if err != nil {
		return err
	}
	sp, ok := remotePath(strings.TrimPrefix(runtime, "runtimes/"), cleanJupyterPath(p))
	if !ok {
		return fmt.Errorf("ReplaceFile: bad path %q", p)
	}
	f, err := root.OpenFile(sp, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if modTime.IsZero() {
		modTime = s.clock()
	}
	return root.Chtimes(sp, modTime, modTime)
}

// ModTime returns the modification time (last_modified) of the
// runtime's file p in the emulator's own file tree.
func (s *Server) ModTime(runtime string, p string) (time.Time, error) {
	root, err := s.fileRoot()
	if err != nil {
		return time.Time{}, err
	}
	sp, ok := remotePath(strings.TrimPrefix(runtime, "runtimes/"), cleanJupyterPath(p))
	if !ok {
		return time.Time{}, fmt.Errorf("ModTime: bad path %q", p)
	}
	st, err := root.Stat(sp)
	if err != nil {
		return time.Time{}, err
	}
	return st.ModTime(), nil
}

// PendingProxyFaults returns how many queued proxy faults have not been
// used up (a test checks its fault was met).
func (s *Server) PendingProxyFaults() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.proxyFaults)
}

// ClearProxyFaults drops every queued proxy fault.
func (s *Server) ClearProxyFaults() {
	s.mu.Lock()
	s.proxyFaults = nil
	s.mu.Unlock()
}
