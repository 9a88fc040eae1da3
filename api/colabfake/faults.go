package colabfake

// Why this file is over 400 lines: the fault-injection table and its matching, one entry per fault kind the tests inject.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/safehttp"
)

// FaultKind says what an injected Fault does.
type FaultKind int

// Fault kinds. HTTP-level kinds act on the HTTP exchange and may target any
// JSON-RPC method; tool-level kinds act inside a tools/call.
const (
	// FaultLatency (HTTP level) delays the request by Fault.Delay, then
	// serves it normally.
	FaultLatency FaultKind = iota + 1
	// FaultHTTPStatus (HTTP level) answers with Fault.Status and
	// Fault.Body (Google JSON, HTML, empty…), Content-Type
	// Fault.ContentType (guessed from the body when empty) and a
	// Retry-After header when Fault.RetryAfter is set. The request is not
	// served.
	FaultHTTPStatus
	// FaultReset (HTTP level) reads the whole request, lets the MCP server
	// handle it (so a create_runtime still creates its runtime, field case
	// 2) unless Fault.Unprocessed, then resets the TCP connection without
	// a reply.
	FaultReset
	// FaultDropSession (HTTP level, stateful mode) closes the MCP session
	// named by the request's Mcp-Session-Id and answers 404 with a JSON-RPC
	// "Session not found" error (-32001); later requests with that id get
	// go-sdk's 404 too (field case 14). Requests without a session id do
	// not match.
	FaultDropSession
	// FaultMalformed (HTTP level) answers 200 application/json with
	// Fault.Body (default "this is not JSON") instead of the real reply.
	// The request is served first unless Fault.Unprocessed.
	FaultMalformed
	// FaultTruncated (HTTP level) serves the request and sends only the
	// first Fault.Size bytes of the real reply (default: half of it), as a
	// complete HTTP response.
	FaultTruncated
	// FaultOversized (HTTP level) answers with a valid JSON-RPC result
	// whose text block holds Fault.Size bytes (default 8 MiB). The request
	// is served first unless Fault.Unprocessed.
	FaultOversized
	// FaultToolError (tool level) answers with an isError result whose text
	// is Fault.Text (e.g. GoogleErrorText(...) or "Runtime not found");
	// the tool does not run.
	FaultToolError
	// FaultJSONRPCError (tool level) answers with a JSON-RPC error
	// {code: Fault.RPCCode, message: Fault.Message, data: Fault.Data}; the
	// tool does not run.
	FaultJSONRPCError
	// FaultOperationError (tool level, meant for create_runtime) answers
	// with a finished Operation in structuredContent whose error Status has
	// Fault.Code (default FAILED_PRECONDITION), Fault.Message, an ErrorInfo
	// with Fault.Reason when set and a RetryInfo when Fault.RetryDelay is
	// set, and a QuotaFailure when Fault.QuotaFailure; nothing is created.
	FaultOperationError
	// FaultOutput (tool level) answers with Fault.Output (raw JSON) as
	// structuredContent and as the text block, bypassing the output
	// schema: use it for absent fields ({} from list_runtimes), unknown
	// enum values or wrong types. The tool does not run.
	FaultOutput
	// FaultDeadline (tool level) lets the tool start, then answers with an
	// isError Google envelope of Fault.Code (default DEADLINE_EXCEEDED):
	// create_runtime keeps creating (the identical call then waits for the
	// same runtime); execute_code keeps the result so the identical call
	// (same session and executionId) reattaches to it instead of running
	// again.
	FaultDeadline
)

func (k FaultKind) httpLevel() bool { return k >= FaultLatency && k <= FaultOversized }

// Fault is one programmed failure; Inject queues it. It applies to the
// next Times matching requests (0 means 1, negative means until
// ClearFaults). Which requests match:
//   - Tool set: tools/call of that tool.
//   - else Method set: requests with that JSON-RPC method ("initialize",
//     "tools/list", "notifications/initialized"…; HTTP-level kinds only).
//   - else: every JSON-RPC request with an id (HTTP level) or every
//     tools/call (tool level).
//
// Each request takes at most one fault of each level, the oldest matching.
// Delay is added before any kind acts (a real sleep honouring the request
// context), then Hold, when set, is waited for. Fields a kind does not use
// are ignored.
type Fault struct {
	Kind   FaultKind
	Tool   string
	Method string
	Times  int
	Delay  time.Duration
	// Hold, when not nil, keeps the request waiting until it is closed
	// (or the request's context ends): a test holds a call for exactly as
	// long as it needs, instead of a Delay a busy machine may outlast.
	Hold <-chan struct{}

	// FaultHTTPStatus.
	Status      int
	Body        string // also FaultMalformed
	ContentType string
	RetryAfter  string // Retry-After header value: seconds or an HTTP date

	// FaultJSONRPCError.
	RPCCode int64
	Data    json.RawMessage

	// Message is the JSON-RPC error message, or the Status message of
	// FaultOperationError and FaultDeadline.
	Message string

	// FaultToolError.
	Text string

	// FaultOperationError and FaultDeadline: the error's canonical code,
	// ErrorInfo reason, RetryInfo delay and whether a QuotaFailure detail
	// is added.
	Code         api.Code
	Reason       string
	RetryDelay   time.Duration
	QuotaFailure bool

	// FaultOutput.
	Output json.RawMessage

	// FaultTruncated, FaultOversized: reply size in bytes.
	Size int

	// FaultReset, FaultMalformed, FaultOversized: do not hand the request
	// to the MCP server at all.
	Unprocessed bool
}

type faultEntry struct {
	f    Fault
	left int // <0: forever
}

const (
	levelHTTP = iota
	levelTool
)

// Inject queues f; see Fault for matching. Faults are taken in the order
// they were injected.
func (s *Server) Inject(f Fault) {
	left := f.Times
	if left == 0 {
		left = 1
	}
	s.mu.Lock()
	s.faults = append(s.faults, &faultEntry{f: f, left: left})
	s.mu.Unlock()
}

// ClearFaults drops every queued fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	s.faults = nil
	s.mu.Unlock()
}

// PendingFaults returns how many queued faults have not been used up.
func (s *Server) PendingFaults() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.faults)
}

// takeFault returns (and uses up one application of) the oldest queued
// fault of the given level matching the request, or nil.
func (s *Server) takeFault(level int, method, tool string, hasID, hasSession bool) *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, e := range s.faults {
		f := e.f
		if f.Kind.httpLevel() != (level == levelHTTP) {
			continue
		}
		switch {
		case f.Tool != "":
			if method != "tools/call" || tool != f.Tool {
				continue
			}
		case f.Method != "":
			if method != f.Method || level == levelTool {
				continue
			}
		default:
			if !hasID || (level == levelTool && method != "tools/call") {
				continue
			}
		}
		if f.Kind == FaultDropSession && !hasSession {
			continue
		}
		if e.left > 0 {
			e.left--
			if e.left == 0 {
				s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
			}
		}
		return &f
	}
	return nil
}

// GoogleErrorText returns the Google JSON error envelope Colab puts in an
// isError result or an HTTP error body:
// {"error":{"code":<http status>,"message":msg,"status":"<CODE>","details":[…]}}
// with an ErrorInfo when reason is set and a RetryInfo when retryDelay > 0.
// It decodes with api.ErrorFromText and api.ParseHTTPError.
func GoogleErrorText(code api.Code, msg, reason string, retryDelay time.Duration) string {
	return (&gErr{code: code, msg: msg, reason: reason, retryDelay: retryDelay}).envelope()
}

// --- the front door: loopback checks, bearer check, HTTP-level faults ---

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
		resetConn(w)
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

// resetConn hijacks the connection and closes it with SO_LINGER 0, so the
// client sees a TCP reset instead of a reply.
func resetConn(w http.ResponseWriter) {
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

// wait sleeps f.Delay, then waits for f.Hold to close; it returns ctx's
// error when ctx ends first.
func (f *Fault) wait(ctx context.Context) error {
	if err := sleepCtx(ctx, f.Delay); err != nil || f.Hold == nil {
		return err
	}
	select {
	case <-f.Hold:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
