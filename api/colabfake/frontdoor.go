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

// rpcPeek is what the front door reads of a JSON-RPC request to match
// faults: the method, the id and a tools/call's tool name.
type rpcPeek struct {
	Method string          `json:"method"`
	ID     json.RawMessage `json:"id"`
	Params struct {
		Name string `json:"name"`
	} `json:"params"`
}

// hasID reports whether the message is a request (an id that is not
// null) rather than a notification.
func (p *rpcPeek) hasID() bool { return len(p.ID) > 0 && string(p.ID) != "null" }

// idJSON is the id as JSON to echo in a made-up reply: "null" when absent.
func (p *rpcPeek) idJSON() string {
	if len(p.ID) == 0 {
		return "null"
	}
	return string(p.ID)
}

// ServeHTTP checks Host, Origin and the bearer, applies Options.Latency
// and HTTP-level faults, then hands the request to go-sdk's handler.
func (d *frontDoor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s := d.s
	if s.opts.DateSkew != 0 {
		// net/http keeps a Date the handler set.
		w.Header().Set("Date", s.clock().Add(s.opts.DateSkew).UTC().Format(http.TimeFormat))
	}
	if !d.admit(w, r) {
		return
	}
	if s.opts.OnRequest != nil {
		s.opts.OnRequest(r)
	}
	if r.Method != http.MethodPost {
		d.next.ServeHTTP(w, r)
		return
	}
	peek, ok := peekBody(w, r)
	if !ok {
		return
	}
	if s.opts.Latency > 0 && sleepCtx(r.Context(), s.opts.Latency) != nil {
		return
	}
	sid := r.Header.Get("Mcp-Session-Id")
	f := s.takeFault(levelHTTP, peek.Method, peek.Params.Name, peek.hasID(), sid != "")
	if f == nil {
		d.next.ServeHTTP(w, r)
		return
	}
	if f.wait(r.Context()) != nil {
		return
	}
	d.serveFault(w, r, f, peek.idJSON(), sid)
}

// admit refuses, with the Google error a real front end would send, a
// request whose Host or Origin is not loopback or that carries no bearer
// token (unless Options.NoAuth); it reports whether the request may go on.
func (d *frontDoor) admit(w http.ResponseWriter, r *http.Request) bool {
	const onlyLoopback = "the Colab emulator only answers localhost, 127.0.0.0/8 and [::1]."
	switch origin := r.Header.Get("Origin"); {
	case !loopbackHost(r.Host):
		e := newErr(api.PermissionDenied, "Host %q is not a loopback name; "+onlyLoopback, r.Host)
		e.reason = api.ReasonEmulatorHostNotLoopback
		writeGoogleError(w, e)
	case !originOK(origin):
		e := newErr(api.PermissionDenied, "Origin %q is not a loopback origin; "+onlyLoopback, origin)
		e.reason = api.ReasonEmulatorHostNotLoopback
		writeGoogleError(w, e)
	case !hasBearer(r) && !d.s.opts.NoAuth:
		w.Header().Set("WWW-Authenticate", `Bearer realm="colabdash-emulator"`)
		writeGoogleError(w, newErr(api.Unauthenticated, "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential."))
	default:
		return true
	}
	return false
}

// hasBearer reports whether r carries a non-blank bearer token.
func hasBearer(r *http.Request) bool {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && strings.TrimSpace(tok) != ""
}

// peekBody reads r's body (at most 8 MiB), puts it back for the next
// handler and decodes what faults match on; a body that cannot be read is
// answered INVALID_ARGUMENT and ok is false. A body that is not JSON
// matches as an empty message.
func peekBody(w http.ResponseWriter, r *http.Request) (peek rpcPeek, ok bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	if err != nil {
		writeGoogleError(w, newErr(api.InvalidArgument, "cannot read the request body"))
		return peek, false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	_ = json.Unmarshal(body, &peek)
	return peek, true
}

// serveFault answers r as the HTTP-level fault f says. id is the
// request's JSON-RPC id as JSON, sid its Mcp-Session-Id.
func (d *frontDoor) serveFault(w http.ResponseWriter, r *http.Request, f *Fault, id, sid string) {
	switch f.Kind {
	case FaultHTTPStatus:
		writeStatusFault(w, f)
	case FaultReset:
		d.serveUnlessUnprocessed(r, f)
		runtimeproxy.ResetConn(w)
	case FaultDropSession:
		d.dropSession(w, f, id, sid)
	case FaultMalformed:
		d.serveUnlessUnprocessed(r, f)
		writeMalformed(w, f)
	case FaultTruncated:
		d.serveTruncated(w, r, f)
	case FaultOversized:
		d.serveUnlessUnprocessed(r, f)
		writeOversized(w, f, id)
	default: // FaultLatency: delayed (or held) above, then served
		d.next.ServeHTTP(w, r)
	}
}

// serveUnlessUnprocessed lets the MCP server handle r and drops its reply,
// unless f.Unprocessed: the request takes effect although its reply is
// replaced.
func (d *frontDoor) serveUnlessUnprocessed(r *http.Request, f *Fault) {
	if !f.Unprocessed {
		d.next.ServeHTTP(newBufferWriter(), r)
	}
}

// writeStatusFault answers with f.Status (default 500), f.Body, its
// Content-Type (given or guessed) and f.RetryAfter.
func writeStatusFault(w http.ResponseWriter, f *Fault) {
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
}

// dropSession closes the MCP session sid and answers 404 with f.Body, by
// default go-sdk's JSON-RPC "Session not found" (-32001) for request id.
func (d *frontDoor) dropSession(w http.ResponseWriter, f *Fault, id, sid string) {
	for ss := range d.s.mcp.Sessions() {
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
}

// writeMalformed answers 200 application/json with f.Body, by default
// "this is not JSON".
func writeMalformed(w http.ResponseWriter, f *Fault) {
	b := f.Body
	if b == "" {
		b = "this is not JSON"
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, b)
}

// serveTruncated serves r and sends the first f.Size bytes of the reply
// (half of it when Size is 0 or past its end), with its status and
// headers but no Content-Length, as a complete HTTP response.
func (d *frontDoor) serveTruncated(w http.ResponseWriter, r *http.Request, f *Fault) {
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
}

// writeOversized answers request id with a valid JSON-RPC result whose
// one text block holds f.Size bytes (default 8 MiB), written in 64 KiB
// chunks until the client stops reading.
func writeOversized(w http.ResponseWriter, f *Fault, id string) {
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
