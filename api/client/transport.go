package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"

	"golang.org/x/oauth2"

	"github.com/colabdash/colabdash/api"

	"github.com/colabdash/colabdash/api/jsonnum"
)

// maxErrorBody bounds how much of an HTTP error body is read and kept.
const maxErrorBody = 64 << 10

// httpStatusError is what statusTransport returns instead of an HTTP
// response with status >= 400. Returning an error from RoundTrip (rather
// than the response) keeps the status, Retry-After and body typed through
// the go-sdk, which wraps client.Do errors with %w as "rejected by
// transport" and, unlike a bare 401/403/400 response, keeps the MCP session
// usable.
type httpStatusError struct {
	Status     int
	RetryAfter string
	Body       []byte
	// SessionGone is set for a 404 on a request that carried an
	// Mcp-Session-Id: the server dropped the session.
	SessionGone bool
	// RPC is the JSON-RPC error when the body was a JSON-RPC error response.
	RPC *rpcError
}

type rpcError struct {
	Code    jsonnum.Int     `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *httpStatusError) Error() string {
	return fmt.Sprintf("http %d %s", e.Status, http.StatusText(e.Status))
}

// transportError is a RoundTrip failure of the underlying transport (a
// network error, or a token-fetch error from an oauth2.Transport). Sent
// reports whether the request had been written to a connection before it
// failed, i.e. whether the server may have acted on it.
type transportError struct {
	Err  error
	Sent bool
}

func (e *transportError) Error() string { return e.Err.Error() }
func (e *transportError) Unwrap() error { return e.Err }

// NewTransport returns the HTTP transport for the MCP endpoint:
// http.DefaultTransport's settings (proxy from the environment, HTTP/2,
// timeouts) with MaxIdleConnsPerHost raised from 2 to api.FanOut, so the
// connections a full fan-out of list_sessions opened are kept for the
// next refresh instead of being closed and dialled again. New uses one
// when Options.HTTPClient has no Transport; pass it as the base of an
// auth transport (oauth2.Transport.Base, auth.Credentials.Transport) to
// get the same.
func NewTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = api.FanOut
	t.MaxIdleConns = max(t.MaxIdleConns, 2*api.FanOut)
	return t
}

// replayKey marks a request that may be sent twice (a replay-safe tool
// call): see statusTransport.
type replayKey struct{}

// withReplaySafe marks the context of a call that repeating cannot harm.
func withReplaySafe(ctx context.Context) context.Context {
	return context.WithValue(ctx, replayKey{}, true)
}

// attemptTrace records, for one tool call attempt, what happened on the wire.
// It travels in the call's context (the go-sdk builds its HTTP request with
// the call's context) and is filled in by statusTransport.
type attemptTrace struct {
	wrote   atomic.Bool // the POST was written to a connection
	gotResp atomic.Bool // response headers arrived
	readErr atomic.Bool // reading the response body failed (reset, cut stream)
	// tooLarge: the reply body passed Options.MaxReply and was not read.
	tooLarge atomic.Bool
}

type traceKey struct{}

func withTrace(ctx context.Context, t *attemptTrace) context.Context {
	return context.WithValue(ctx, traceKey{}, t)
}

func traceFrom(ctx context.Context) *attemptTrace {
	t, _ := ctx.Value(traceKey{}).(*attemptTrace)
	return t
}

// connectTrace travels in the context of one connect (discover, then the
// initialize fallback; tools/list follows in the background without it). Once a request failed for a reason
// the next request would meet too (a token that cannot be fetched, 401,
// 403), the rest of the connect fails at once instead of hitting the token
// endpoint or the server again.
type connectTrace struct {
	fatal atomic.Pointer[error]
}

type connectKey struct{}

func withConnectTrace(ctx context.Context, t *connectTrace) context.Context {
	return context.WithValue(ctx, connectKey{}, t)
}

// sent reports whether the server may have received the request.
func (t *attemptTrace) sent() bool { return t != nil && (t.wrote.Load() || t.gotResp.Load()) }

// statusTransport wraps the caller's transport: it sets the User-Agent,
// turns HTTP error statuses into *httpStatusError, wraps network failures in
// *transportError and records the attempt's progress in its attemptTrace.
// It never reads or logs the Authorization header.
type statusTransport struct {
	base      http.RoundTripper
	userAgent string
	// redact removes known secrets from an error body before anything
	// parses it, so no message built from it can carry (or cut in half)
	// a secret the server echoed.
	redact func(string) string
	// maxReply bounds a successful reply's body to a POST (bytes; <= 0:
	// unbounded); error bodies are bounded by maxErrorBody.
	maxReply int64
}

// RoundTrip sends r through the base transport (marked with the
// attempt's trace, the User-Agent and, for a replay-safe call, as
// idempotent) and types its outcome: a transport failure as a
// *transportError, an HTTP status of 400 or more as a redacted
// *httpStatusError, a success with its body bounded and traced. A
// credentials failure, 401 or 403 during a connect ends that connect's
// later requests at once (connectTrace.fatal).
func (s *statusTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	ct, _ := r.Context().Value(connectKey{}).(*connectTrace)
	if ct != nil {
		if p := ct.fatal.Load(); p != nil {
			return nil, *p
		}
	}
	tr := traceFrom(r.Context())
	r = s.prepare(r, tr)
	resp, err := s.base.RoundTrip(r)
	if err != nil {
		return nil, transportFailure(err, tr, ct)
	}
	if tr != nil && r.Method == http.MethodPost {
		tr.gotResp.Store(true)
	}
	if resp.StatusCode >= 400 {
		return nil, s.statusError(r, resp, ct)
	}
	if s.maxReply > 0 && r.Method == http.MethodPost {
		// The reply to one message; the standalone GET stream is
		// long-lived and bounded per event by the go-sdk.
		resp.Body = &cappedBody{ReadCloser: resp.Body, left: s.maxReply, limit: s.maxReply, tr: tr}
	}
	if tr != nil && r.Method == http.MethodPost {
		resp.Body = &traceBody{ReadCloser: resp.Body, tr: tr}
	}
	return resp, nil
}

// prepare returns a copy of r (the caller's is never changed) that
// records in tr when a POST was written, carries the User-Agent unless r
// has one, and is marked idempotent when the call is replay-safe.
func (s *statusTransport) prepare(r *http.Request, tr *attemptTrace) *http.Request {
	ctx := r.Context()
	if tr != nil && r.Method == http.MethodPost {
		ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
			WroteRequest: func(httptrace.WroteRequestInfo) { tr.wrote.Store(true) },
		})
	}
	r = r.Clone(ctx) // never mutate the caller's request
	if s.userAgent != "" && r.Header.Get("User-Agent") == "" {
		r.Header.Set("User-Agent", s.userAgent)
	}
	if safe, _ := ctx.Value(replayKey{}).(bool); safe && r.GetBody != nil {
		// A POST is not retried by net/http when the idle connection it
		// was sent on turns out closed by the server (a keep-alive race,
		// common with many connections), unless marked idempotent. A nil
		// value marks it without sending the header (net/http docs).
		r.Header["Idempotency-Key"] = nil
	}
	return r
}

// transportFailure types the base transport's error err as a
// *transportError saying whether the request was sent; a token refresh
// failure or a credentials failure that is not transient also ends the
// connect ct (when there is one).
func transportFailure(err error, tr *attemptTrace, ct *connectTrace) error {
	terr := error(&transportError{Err: err, Sent: tr.sent()})
	var re *oauth2.RetrieveError
	var ce api.CredentialsError
	if ct != nil && (errors.As(err, &re) || errors.As(err, &ce) && !ce.Transient()) {
		ct.fatal.Store(&terr)
	}
	return terr
}

// statusError reads (at most maxErrorBody) and closes the body of an
// HTTP error reply to r and returns it, redacted, as an
// *httpStatusError with its JSON-RPC error when the body holds one; a
// 401 or 403 also ends the connect ct (when there is one).
func (s *statusTransport) statusError(r *http.Request, resp *http.Response, ct *connectTrace) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
	if s.redact != nil {
		body = []byte(s.redact(string(body)))
	}
	he := &httpStatusError{
		Status:      resp.StatusCode,
		RetryAfter:  resp.Header.Get("Retry-After"),
		Body:        body,
		SessionGone: resp.StatusCode == http.StatusNotFound && r.Header.Get("Mcp-Session-Id") != "",
	}
	var msg struct {
		JSONRPC string    `json:"jsonrpc"`
		Error   *rpcError `json:"error"`
	}
	if json.Unmarshal(body, &msg) == nil && msg.JSONRPC != "" && msg.Error != nil {
		he.RPC = msg.Error
	}
	if ct != nil && (he.Status == http.StatusUnauthorized || he.Status == http.StatusForbidden) {
		terr := error(he)
		ct.fatal.Store(&terr)
	}
	return he
}

// traceBody records a failed read of a response body (a connection reset
// or a cut SSE stream) in the attempt's trace.
type traceBody struct {
	io.ReadCloser
	tr *attemptTrace
}

func (b *traceBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		b.tr.readErr.Store(true)
	}
	return n, err
}

// replyTooLargeError ends the read of a reply body longer than the limit.
type replyTooLargeError struct{ limit int64 }

func (e *replyTooLargeError) Error() string {
	return "the reply is larger than " + sizeText(e.limit) + ", the client's limit (Options.MaxReply)"
}

// sizeText writes a byte count as whole MiB when it is one ("32 MiB"),
// else in bytes.
func sizeText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// cappedBody reads at most limit bytes of a reply; one byte more fails
// the read with *replyTooLargeError (recorded in the attempt's trace),
// so a reply that never ends cannot fill memory.
type cappedBody struct {
	io.ReadCloser
	left, limit int64
	tr          *attemptTrace
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if b.left <= 0 {
		// At the limit: anything more means the reply is too large.
		var one [1]byte
		n, err := b.ReadCloser.Read(one[:])
		if n == 0 {
			return 0, err
		}
		if b.tr != nil {
			b.tr.tooLarge.Store(true)
		}
		return 0, &replyTooLargeError{limit: b.limit}
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}
