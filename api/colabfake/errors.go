package colabfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/colabdash/colabdash/api"

	"github.com/colabdash/colabdash/api/jsonnum"
)

// gErr is a Google error the emulator answers with: a canonical code, a
// message and optional ErrorInfo reason, RetryInfo delay and QuotaFailure.
type gErr struct {
	code       api.Code
	msg        string
	reason     string
	retryDelay time.Duration
	quota      bool
	// operation: answer as a finished create_runtime Operation in
	// structuredContent instead of an isError result.
	operation bool
}

func newErr(c api.Code, format string, args ...any) *gErr {
	return &gErr{code: c, msg: fmt.Sprintf(format, args...)}
}

// HTTPStatusFor returns the HTTP status Google's JSON error envelope
// carries for a canonical code (https://cloud.google.com/apis/design/errors),
// e.g. 404 for NOT_FOUND, 400 for FAILED_PRECONDITION, 429 for
// RESOURCE_EXHAUSTED, 504 for DEADLINE_EXCEEDED; 500 for unknown codes.
func HTTPStatusFor(c api.Code) int {
	switch c {
	case api.OK:
		return 200
	case api.InvalidArgument, api.FailedPrecondition, api.OutOfRange:
		return 400
	case api.Unauthenticated:
		return 401
	case api.PermissionDenied:
		return 403
	case api.NotFound:
		return 404
	case api.AlreadyExists, api.Aborted:
		return 409
	case api.ResourceExhausted:
		return 429
	case api.Cancelled:
		return 499
	case api.Unimplemented:
		return 501
	case api.Unavailable:
		return 503
	case api.DeadlineExceeded:
		return 504
	}
	return 500
}

func (e *gErr) details() []json.RawMessage {
	var ds []json.RawMessage
	add := func(v any) {
		b, _ := json.Marshal(v)
		ds = append(ds, b)
	}
	if e.reason != "" {
		add(api.ErrorInfo{Type: api.TypeErrorInfo, Reason: e.reason, Domain: "colaboratory.googleapis.com"})
	}
	if e.retryDelay > 0 {
		add(map[string]string{"@type": api.TypeRetryInfo, "retryDelay": formatDelay(e.retryDelay)})
	}
	if e.quota {
		add(map[string]any{"@type": api.TypeQuotaFailure, "violations": []map[string]string{{
			"subject": "user", "description": e.msg}}})
	}
	return ds
}

// formatDelay renders a google.protobuf.Duration as JSON does: whole
// seconds "53s", or with a fraction "1.5s".
func formatDelay(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return fmt.Sprintf("%gs", d.Seconds())
}

// envelope is the Google HTTP error body: {"error":{"code":<http
// status>,"message","status":"<CODE>","details":[...]}}.
func (e *gErr) envelope() string {
	st := api.Status{Code: jsonnum.Int(HTTPStatusFor(e.code)), Message: e.msg, Status: string(e.code), Details: e.details()}
	b, _ := json.Marshal(map[string]api.Status{"error": st})
	return string(b)
}

// operation is a finished google.longrunning.Operation carrying e as a
// google.rpc.Status (numeric code).
func (e *gErr) operationValue() api.Operation {
	return api.Operation{
		Name:  "operations/" + uuid.NewString(),
		Done:  true,
		Error: &api.Status{Code: jsonnum.Int(e.code.Number()), Message: e.msg, Details: e.details()},
	}
}

// errorResult is the isError tool result whose text is e's envelope.
func errorResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// writeGoogleError writes an HTTP error with a Google JSON body.
func writeGoogleError(w http.ResponseWriter, e *gErr) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(HTTPStatusFor(e.code))
	_, _ = w.Write([]byte(e.envelope()))
}
