package colabfake

import (
	"context"
	"encoding/json"
	"time"

	"github.com/colabdash/colabdash/api"
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
	// handle it (so a create_runtime still creates its runtime, as seen in
	// the field) unless Fault.Unprocessed, then resets the TCP connection
	// without a reply.
	FaultReset
	// FaultDropSession (HTTP level, stateful mode) closes the MCP session
	// named by the request's Mcp-Session-Id and answers 404 with a JSON-RPC
	// "Session not found" error (-32001); later requests with that id get
	// go-sdk's 404 too. Requests without a session id do
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

// GoogleErrorText returns the Google JSON error envelope Colab puts in an
// isError result or an HTTP error body:
// {"error":{"code":<http status>,"message":msg,"status":"<CODE>","details":[…]}}
// with an ErrorInfo when reason is set and a RetryInfo when retryDelay > 0.
// It decodes with api.ErrorFromText and api.ParseHTTPError.
func GoogleErrorText(code api.Code, msg, reason string, retryDelay time.Duration) string {
	return (&gErr{code: code, msg: msg, reason: reason, retryDelay: retryDelay}).envelope()
}
