package colabfake

// The front door of the MCP endpoint: loopback checks, the bearer check
// and HTTP-level faults, before go-sdk's handler.

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake/runtimeproxy"
	"github.com/colabdash/colabdash/api/safehttp"
)

type frontDoor struct {
	s    *Server
	next http.Handler
}

// loopbackHost reports whether a Host header or Origin host names the
// loopback interface by the same rule colabdash's client applies before
// it sends a credential over plain http (safehttp.IsLoopbackHost:
// "localhost" in any case, or a literal loopback IP such as 127.0.0.1,
// [::1] or [::ffff:127.0.0.1]), so every endpoint URL the client accepts
// is answered and no other name is (DNS rebinding protection).
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return safehttp.IsLoopbackHost(host)
}

func originOK(origin string) bool {
	if origin == "" {
		return true
	}
	rest, ok := strings.CutPrefix(origin, "http://")
	if !ok {
		rest, ok = strings.CutPrefix(origin, "https://")
	}
	if !ok {
		return false
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	return loopbackHost(rest)
}

type rpcPeek struct {
	Method string          `json:"method"`
	ID     json.RawMessage `json:"id"`
	Params struct {
		Name string `json:"name"`
	} `json:"params"`
}

// ServeHTTP checks Host, Origin and the bearer, applies Options.Latency
// and HTTP-level faults, then hands the request to go-sdk's handler.
func (d *frontDoor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s := d.s
	if !loopbackHost(r.Host) {
		e := newErr(api.PermissionDenied, "Host %q is not a loopback name; the Colab emulator only answers localhost, 127.0.0.0/8 and [::1].", r.Host)
		e.reason = api.ReasonEmulatorHostNotLoopback
		writeGoogleError(w, e)
		return
	}
	if !originOK(r.Header.Get("Origin")) {
		e := newErr(api.PermissionDenied, "Origin %q is not a loopback origin; the Colab emulator only answers localhost, 127.0.0.0/8 and [::1].", r.Header.Get("Origin"))
		e.reason = api.ReasonEmulatorHostNotLoopback
		writeGoogleError(w, e)
		return
	}
	authz := r.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(authz, "Bearer ")
	if (!ok || strings.TrimSpace(tok) == "") && !s.opts.NoAuth {
		w.Header().Set("WWW-Authenticate", `Bearer realm="colabdash-emulator"`)
		writeGoogleError(w, newErr(api.Unauthenticated, "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential."))
		return
	}
	if s.opts.OnRequest != nil {
		s.opts.OnRequest(r)
	}
	if r.Method != http.MethodPost {
		d.next.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	if err != nil {
		writeGoogleError(w, newErr(api.InvalidArgument, "cannot read the request body"))
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var peek rpcPeek
	_ = json.Unmarshal(body, &peek)
	hasID := len(peek.ID) > 0 && string(peek.ID) != "null"
	if s.opts.Latency > 0 {
		if sleepCtx(r.Context(), s.opts.Latency) != nil {
			return
		}
	}
	sid := r.Header.Get("Mcp-Session-Id")
	f := s.takeFault(levelHTTP, peek.Method, peek.Params.Name, hasID, sid != "")
	if f == nil {
		d.next.ServeHTTP(w, r)
		return
	}
	if f.wait(r.Context()) != nil {
		return
	}
	id := string(peek.ID)
	if id == "" {
		id = "null"
	}
	switch f.Kind {
	case FaultLatency:
		d.next.ServeHTTP(w, r)
	case FaultHTTPStatus:
		if ct := guessContentType(f.ContentType, f.Body); ct != "" {
			w.Header().Set("Content-Type", ct)
		}
		if f.RetryAfter != "" {
			w.Header().Set("Retry-After", f.RetryAfter)
		}
		status := f.Status
		if status == 0 {
			status = http.StatusInternalServerError
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, f.Body)
	case FaultReset:
		if !f.Unprocessed {
			d.next.ServeHTTP(newBufferWriter(), r)
		}
		runtimeproxy.ResetConn(w)
	case FaultDropSession:
		for ss := range s.mcp.Sessions() {
			if ss.ID() == sid {
				_ = ss.Close()
			}
		}
		body := f.Body
		if body == "" {
			body = `{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":` + id + `}`
		}
		if ct := guessContentType(f.ContentType, body); ct != "" {
			w.Header().Set("Content-Type", ct)
		}
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, body)
	case FaultMalformed:
		if !f.Unprocessed {
			d.next.ServeHTTP(newBufferWriter(), r)
		}
		b := f.Body
		if b == "" {
			b = "this is not JSON"
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, b)
	case FaultTruncated:
		bw := newBufferWriter()
		d.next.ServeHTTP(bw, r)
		full := bw.buf.Bytes()
		n := f.Size
		if n <= 0 || n > len(full) {
			n = len(full) / 2
		}
		for k, v := range bw.header {
			if k != "Content-Length" {
				w.Header()[k] = v
			}
		}
		w.WriteHeader(bw.status())
		_, _ = w.Write(full[:n])
	case FaultOversized:
		if !f.Unprocessed {
			d.next.ServeHTTP(newBufferWriter(), r)
		}
		n := f.Size
		if n <= 0 {
			n = 8 << 20
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[{"type":"text","text":"`)
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		for left := n; left > 0; left -= len(chunk) {
			if left < len(chunk) {
				chunk = chunk[:left]
			}
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		_, _ = io.WriteString(w, `"}],"isError":false}}`)
	default:
		d.next.ServeHTTP(w, r)
	}
}

// guessContentType returns ct, or when it is empty a Content-Type guessed
// from body (JSON, HTML, plain text; "" for an empty body).
func guessContentType(ct, body string) string {
	if ct != "" {
		return ct
	}
	switch b := strings.TrimSpace(body); {
	case b == "":
		return ""
	case strings.HasPrefix(b, "{"):
		return "application/json; charset=UTF-8"
	case strings.HasPrefix(b, "<"):
		return "text/html; charset=UTF-8"
	}
	return "text/plain; charset=utf-8"
}

// bufferWriter is an http.ResponseWriter (and Flusher) that keeps the reply
// in memory, for faults that change or drop it.
type bufferWriter struct {
	header http.Header
	code   int
	buf    bytes.Buffer
}

func newBufferWriter() *bufferWriter { return &bufferWriter{header: http.Header{}} }

// Header, WriteHeader, Write and Flush implement http.ResponseWriter and
// http.Flusher in memory.
func (b *bufferWriter) Header() http.Header { return b.header }

func (b *bufferWriter) WriteHeader(code int) {
	if b.code == 0 {
		b.code = code
	}
}

func (b *bufferWriter) Write(p []byte) (int, error) {
	if b.code == 0 {
		b.code = http.StatusOK
	}
	return b.buf.Write(p)
}

func (b *bufferWriter) Flush() {}

func (b *bufferWriter) status() int {
	if b.code == 0 {
		return http.StatusOK
	}
	return b.code
}
