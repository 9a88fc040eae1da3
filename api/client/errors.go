package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/safehttp"

	"github.com/colabdash/colabdash/api/jsonnum"
)

// failure is one classified failed attempt.
type failure struct {
	err *api.Error
	// answered: the server answered (HTTP status, JSON-RPC error or isError
	// result); the reply was understood.
	answered bool
	// lost: the request may have reached the server but no usable answer
	// came back (reset after send, cut stream, unreadable reply).
	lost bool
	// dropped: the MCP session is gone (closed connection or session not
	// found); a fresh session is needed.
	dropped bool
	// unauthenticated: HTTP 401 (a token refresh may help once).
	unauthenticated bool
	// fromTool: the tool itself answered with this error (an isError result
	// or a JSON-RPC error to the tools/call), as opposed to the HTTP layer
	// or the connect.
	fromTool bool
	// fromToolResult: the error is an isError tool result (the tool ran).
	fromToolResult bool
	// beforeInit: the call was sent before the classic handshake's
	// initialized notification was answered, and refused by the server.
	beforeInit bool
	// unlisted: the call was sent without the live schema (tools/list not
	// done yet) and refused as invalid; it may work with the schema.
	unlisted bool
	// final: no retry, reconnect or resend can help (the reply was too
	// large to read: it would be again).
	final bool
}

// JSON-RPC codes the client reads. codeRejected is the go-sdk's internal
// "rejected by transport" (ErrRejected), never a server code.
const (
	codeRejected       = -32005
	codeSessionMissing = -32001
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
)

// classify turns whatever CallTool (or Connect) returned into a failure.
// callerCtx is the caller's context, attemptCtx the per-call timeout's.
func (c *Client) classify(callerCtx, attemptCtx context.Context, tool string, timeout time.Duration, tr *attemptTrace, err error) failure {
	f := c.classify0(callerCtx, attemptCtx, tool, timeout, tr, err)
	if f.err.Tool == "" {
		f.err.Tool = tool
	}
	return f
}

func (c *Client) classify0(callerCtx, attemptCtx context.Context, tool string, timeout time.Duration, tr *attemptTrace, err error) failure {
	var ae *api.Error
	if errors.As(err, &ae) {
		return failure{err: ae, answered: true}
	}
	if cerr := callerCtx.Err(); cerr != nil {
		return failure{err: ctxError(cerr)}
	}
	if attemptCtx != nil && attemptCtx.Err() != nil {
		return failure{err: &api.Error{Code: api.DeadlineExceeded, Err: context.DeadlineExceeded,
			Message: fmt.Sprintf("no reply within %s", timeout.Round(time.Second))}, lost: tr.sent()}
	}

	// A reply larger than Options.MaxReply: not read, and not asked for
	// again (the same call would get the same reply). The go-sdk fails
	// the connection on it, so the session is dropped.
	if tr != nil && tr.tooLarge.Load() {
		return failure{err: &api.Error{Code: api.OutOfRange, Err: err,
			Message: "the reply to " + tool + " is larger than " + sizeText(c.opts.MaxReply) +
				", the client's limit, and was not read; the call itself may have taken effect"},
			dropped: true, final: true}
	}

	// A redirect to another origin, refused before anything was sent
	// there (by CheckRedirect, or by the transport guard).
	var rde *safehttp.RedirectError
	if errors.As(err, &rde) {
		return failure{err: &api.Error{Code: api.FailedPrecondition, Err: err,
			Message: c.red(rde.Error())}}
	}

	// HTTP status, typed by statusTransport (which redacted the body).
	var he *httpStatusError
	if errors.As(err, &he) {
		e := fromHTTP(he)
		if he.Status == 404 && !he.SessionGone && he.RPC == nil {
			// The endpoint itself is wrong (a tool's NOT_FOUND comes as a
			// tool result or a JSON-RPC error, not as an HTTP 404).
			said := ""
			if e.Message != api.DefaultMessage(e.Code, 404) {
				said = " (" + e.Message + ")" // what the server said, when it said something
			}
			e.Message = "the MCP endpoint " + c.opts.Endpoint + " answered HTTP 404" + said +
				": check the endpoint URL (--endpoint or the profile's endpoint)"
		}
		return failure{err: e, answered: !he.SessionGone, dropped: he.SessionGone,
			unauthenticated: he.Status == 401}
	}

	// Token refresh failures (x/oauth2).
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		e := fromRetrieve(re)
		e.Message, e.Reason, e.Raw = c.red(e.Message), c.red(e.Reason), c.red(e.Raw)
		return failure{err: e}
	}

	// Network failure below the MCP layer. An untrusted certificate is
	// not an outage: no retry can help.
	var te *transportError
	if errors.As(err, &te) {
		if msg := api.CertificateProblem(te.Err); msg != "" {
			return failure{err: &api.Error{Code: api.FailedPrecondition, Err: te.Err, Message: c.red(msg)}}
		}
		// Credentials that cannot be used (impersonation denied, an
		// executable source not allowed…): not a network failure, and no
		// retry helps until the user acts; the message carries the fix.
		var ce api.CredentialsError
		if errors.As(te.Err, &ce) && !ce.Transient() {
			msg := ce.Error()
			if fix := ce.FixLine(); fix != "" {
				msg += "; fix: " + fix
			}
			return failure{err: &api.Error{Code: api.Unauthenticated, Err: te.Err, Message: c.red(msg)}}
		}
		e := &api.Error{Code: api.Unavailable, Err: te.Err, Message: netMessage(c.opts.Endpoint, te.Err, c.red)}
		return failure{err: e, lost: te.Sent || tr.sent()}
	}

	if errors.Is(err, mcp.ErrSessionMissing) {
		return failure{err: &api.Error{Code: api.Unavailable, Err: err,
			Message: "the MCP server dropped the session"}, dropped: true}
	}
	if errors.Is(err, mcp.ErrConnectionClosed) {
		return failure{err: &api.Error{Code: api.Unavailable, Err: err,
			Message: "the connection to the MCP server was closed"}, dropped: true, lost: tr.sent()}
	}

	var we *jsonrpc.Error
	if errors.As(err, &we) && we.Code != codeRejected {
		e := fromRPC(&rpcError{Code: jsonnum.Int(we.Code), Message: c.red(we.Message), Data: json.RawMessage(c.red(string(we.Data)))}, 0)
		return failure{err: e, answered: we.Code != codeSessionMissing, dropped: we.Code == codeSessionMissing,
			fromTool: we.Code != codeSessionMissing}
	}

	// Anything else: a reply the SDK could not read (bad JSON, unsupported
	// content type), a stream that ended without a reply.
	text := c.red(stripSDK(err.Error()))
	e := &api.Error{Code: api.Unavailable, Err: err, Message: "no usable reply: " + api.OneLine(text, 160)}
	if strings.Contains(err.Error(), "decode") || strings.Contains(err.Error(), "unmarshal") ||
		strings.Contains(err.Error(), "content type") {
		e.Code = api.Internal
		e.Message = "malformed reply: " + api.OneLine(text, 160)
	}
	return failure{err: e, lost: tr.sent()}
}

// ctxError wraps a caller's context error; errors.Is(err, context.Canceled)
// and errors.Is(err, context.DeadlineExceeded) keep working.
func ctxError(err error) *api.Error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &api.Error{Code: api.DeadlineExceeded, Err: err, Message: "deadline exceeded"}
	}
	return &api.Error{Code: api.Cancelled, Err: err, Message: "cancelled"}
}

// fromHTTP builds the *api.Error for an HTTP error reply: a Google error
// envelope, a JSON-RPC error body, HTML or nothing.
func fromHTTP(he *httpStatusError) *api.Error {
	if he.RPC != nil {
		e := fromRPC(he.RPC, he.Status)
		if e.RetryDelay == 0 && he.RetryAfter != "" {
			e.RetryDelay = api.ParseHTTPError(he.Status, he.RetryAfter, nil).RetryDelay
		}
		e.Raw = string(he.Body)
		if he.SessionGone {
			e.Code = api.Unavailable
			e.Message = "the MCP server dropped the session (HTTP 404)"
		}
		return e
	}
	e := api.ParseHTTPError(he.Status, he.RetryAfter, he.Body)
	if he.SessionGone {
		e.Code = api.Unavailable
		e.Message = "the MCP server dropped the session (HTTP 404)"
	}
	return e
}

// fromRPC builds an *api.Error from a JSON-RPC error: a Google Status (or
// envelope) in error.data wins, then canonical code names in error.message,
// then the JSON-RPC code itself.
func fromRPC(r *rpcError, httpStatus int) *api.Error {
	var e *api.Error
	if len(r.Data) > 0 {
		if d := api.ErrorFromText(string(r.Data)); d.Code != api.Unknown {
			e = d
			if e.Message == "" || e.Message == api.DefaultMessage(e.Code, e.HTTPStatus) || strings.HasPrefix(strings.TrimSpace(e.Message), "{") {
				e.Message = r.Message
			}
		}
	}
	if e == nil {
		e = api.ErrorFromText(r.Message)
		e.Raw = ""
	}
	if e.Code == api.Unknown {
		switch r.Code {
		case codeMethodNotFound:
			e.Code = api.Unimplemented
		case codeInvalidParams:
			if strings.Contains(strings.ToLower(r.Message), "unknown tool") {
				e.Code = api.Unimplemented
			} else {
				e.Code = api.InvalidArgument
			}
		case codeInvalidRequest:
			e.Code = api.InvalidArgument
		case codeParseError, codeInternalError:
			e.Code = api.Internal
		case codeSessionMissing:
			e.Code = api.Unavailable
		default:
			if httpStatus != 0 {
				e.Code = api.CodeFromHTTP(httpStatus)
			}
		}
	}
	if httpStatus != 0 {
		e.HTTPStatus = httpStatus
	}
	if e.Message == "" {
		e.Message = api.DefaultMessage(e.Code, httpStatus)
	}
	if e.Raw == "" {
		e.Raw = string(r.Data)
	}
	return e
}

// fromRetrieve maps an OAuth token-endpoint failure.
func fromRetrieve(re *oauth2.RetrieveError) *api.Error {
	status := 0
	if re.Response != nil {
		status = re.Response.StatusCode
	}
	e := &api.Error{Code: api.Unauthenticated, Err: re, Raw: string(re.Body)}
	switch {
	case re.ErrorCode == "invalid_grant":
		e.Reason = "invalid_grant"
		e.Message = "the sign-in expired or was revoked (invalid_grant): run `gcloud auth application-default login` again"
	case status >= 500 || status == 429:
		e.Code = api.Unavailable
		e.Message = fmt.Sprintf("the Google token endpoint failed (HTTP %d)", status)
	default:
		e.Reason = re.ErrorCode
		e.Message = "fetching an access token failed"
		if re.ErrorCode != "" {
			e.Message += " (" + re.ErrorCode + ")"
		}
	}
	return e
}

// netMessage gives a one-line description of a network error without the
// URL noise ("Post \"https://…\": …"); a failed dial names the endpoint:
// "cannot reach http://127.0.0.1:9/mcp: connection refused". red removes
// secrets from the error's text before it is cut to length.
func netMessage(endpoint string, err error, red func(string) string) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var oe *net.OpError
	switch {
	case errors.As(err, &oe) && oe.Op == "dial":
		cause := oe.Err
		var se *os.SyscallError
		if errors.As(cause, &se) {
			cause = se.Err // "connection refused", not "connect: connection refused"
		}
		return "cannot reach " + endpoint + ": " + api.OneLine(red(cause.Error()), 120)
	case errors.Is(err, context.DeadlineExceeded):
		return "the request timed out"
	}
	return "network error: " + api.OneLine(red(err.Error()), 160)
}

var sdkNoise = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(calling|sending) "[^"]*": `) })

// stripSDK removes the go-sdk's "calling \"tools/call\": " prefixes.
func stripSDK(s string) string { return sdkNoise().ReplaceAllString(s, "") }

// toolError builds the *api.Error for an isError tool result. A text with
// no canonical code that says "not found" becomes NOT_FOUND, and the
// go-sdk's argument validation text becomes INVALID_ARGUMENT.
func toolError(tool, text string) *api.Error {
	e := api.ErrorFromText(text)
	if e.Code == api.Unknown {
		low := strings.ToLower(text)
		switch {
		case strings.Contains(low, "not found"):
			e.Code = api.NotFound
		case strings.HasPrefix(low, `validating "arguments"`):
			e.Code = api.InvalidArgument
		}
	}
	if e.Message == "" {
		e.Message = "the tool reported an error without a message"
	}
	e.Tool = tool
	return e
}

// red removes every secret the client's Redactor knows, and the patterns
// it applies (bearer tokens, token fields, form bodies), from text that
// came from the server or the network, before it becomes part of an error.
func (c *Client) red(s string) string { return c.opts.Redactor.Redact(s) }

// toolResultError builds the *api.Error for an isError result: a Google
// error object in structuredContent ({"error":{code, status, message,
// details}} or a bare google.rpc.Status) is decoded like the same object
// in the text; otherwise the text is read by toolError.
// When the structured object has no message, the text is the message.
func toolResultError(tool, text string, structured []byte) *api.Error {
	if len(structured) > 0 {
		if e := api.ErrorFromText(string(structured)); e.Code != api.Unknown {
			if strings.TrimSpace(text) != "" && (e.Message == "" || e.Message == api.DefaultMessage(e.Code, e.HTTPStatus)) &&
				!strings.HasPrefix(strings.TrimSpace(text), "{") {
				e.Message = api.OneLine(text, 200)
			}
			e.Tool = tool
			return e
		}
	}
	return toolError(tool, text)
}
