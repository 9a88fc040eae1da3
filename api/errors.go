package api

import (
	"errors"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Code is a canonical Google error code name (google.rpc.Code), e.g.
// FAILED_PRECONDITION. Values the dashboard does not know are kept.
type Code string

// Canonical codes, with their google.rpc.Code numbers in CodeFromNumber.
const (
	OK                 Code = "OK"
	Cancelled          Code = "CANCELLED"
	Unknown            Code = "UNKNOWN"
	InvalidArgument    Code = "INVALID_ARGUMENT"
	DeadlineExceeded   Code = "DEADLINE_EXCEEDED"
	NotFound           Code = "NOT_FOUND"
	AlreadyExists      Code = "ALREADY_EXISTS"
	PermissionDenied   Code = "PERMISSION_DENIED"
	ResourceExhausted  Code = "RESOURCE_EXHAUSTED"
	FailedPrecondition Code = "FAILED_PRECONDITION"
	Aborted            Code = "ABORTED"
	OutOfRange         Code = "OUT_OF_RANGE"
	Unimplemented      Code = "UNIMPLEMENTED"
	Internal           Code = "INTERNAL"
	Unavailable        Code = "UNAVAILABLE"
	DataLoss           Code = "DATA_LOSS"
	Unauthenticated    Code = "UNAUTHENTICATED"
)

var codeByNumber = []Code{OK, Cancelled, Unknown, InvalidArgument, DeadlineExceeded, NotFound,
	AlreadyExists, PermissionDenied, ResourceExhausted, FailedPrecondition, Aborted, OutOfRange,
	Unimplemented, Internal, Unavailable, DataLoss, Unauthenticated}

// CodeFromNumber maps a google.rpc.Code number (0–16) to its name; other
// numbers give UNKNOWN.
func CodeFromNumber(n int) Code {
	if n >= 0 && n < len(codeByNumber) {
		return codeByNumber[n]
	}
	return Unknown
}

// Number returns the google.rpc.Code number of c, or 2 (UNKNOWN) for a code
// this version does not know.
func (c Code) Number() int {
	for i, k := range codeByNumber {
		if k == c {
			return i
		}
	}
	return 2
}

// CodeFromHTTP maps an HTTP status to the canonical code Google uses for it
// (https://cloud.google.com/apis/design/errors#handling_errors).
func CodeFromHTTP(status int) Code {
	switch status {
	case 400:
		return InvalidArgument
	case 401:
		return Unauthenticated
	case 403:
		return PermissionDenied
	case 404:
		return NotFound
	case 409:
		return Aborted
	case 412:
		return FailedPrecondition
	case 429:
		return ResourceExhausted
	case 499:
		return Cancelled
	case 501:
		return Unimplemented
	case 502, 503:
		return Unavailable
	case 504:
		return DeadlineExceeded
	}
	if status >= 500 {
		return Internal
	}
	if status >= 400 {
		return FailedPrecondition
	}
	return Unknown
}

// Known ErrorInfo reasons: the ones Colab's errors were seen to carry in
// google.rpc.ErrorInfo details.
const (
	ReasonTooManyActiveRuntimes  = "TOO_MANY_ACTIVE_RUNTIMES"
	ReasonQuotaExceededUsageTime = "QUOTA_EXCEEDED_USAGE_TIME"
	ReasonDenylisted             = "DENYLISTED"
	ReasonScopeInsufficient      = "ACCESS_TOKEN_SCOPE_INSUFFICIENT"
	ReasonUserProjectDenied      = "USER_PROJECT_DENIED"
	ReasonServiceDisabled        = "SERVICE_DISABLED"

	// ReasonEmulatorHostNotLoopback is not Google's: colabdash's own
	// emulator (api/colabfake) answers PERMISSION_DENIED with it when a
	// request's Host or Origin is not a loopback name (its DNS rebinding
	// protection), so the client can name that cause instead of blaming
	// the account.
	ReasonEmulatorHostNotLoopback = "EMULATOR_HOST_NOT_LOOPBACK"
)

// Error is the one error type every Colab failure becomes, whatever form it
// took on the wire: an HTTP status with a Google error body (or HTML, or
// nothing), a JSON-RPC error, an isError tool result, or a failed Operation.
//
// Code is the canonical code; HTTPStatus is the HTTP status when there was
// one (0 otherwise); Reason is the ErrorInfo reason (e.g.
// TOO_MANY_ACTIVE_RUNTIMES) or ""; Metadata is the ErrorInfo metadata;
// RetryDelay is the server's RetryInfo.retryDelay or Retry-After, at
// most MaxRetryDelay (0 when none); QuotaFailure is true when a google.rpc.QuotaFailure detail came
// with it; Message is a short, one-line human message safe to show; Tool
// names the MCP tool that failed ("" for connection-level failures).
//
// Raw holds the server's raw reply (possibly HTML) for the debug log only:
// Error never includes it, so it never reaches the screen. It may embed
// secrets, so redact before logging.
type Error struct {
	Code         Code
	HTTPStatus   int
	Reason       string
	Metadata     map[string]string
	RetryDelay   time.Duration
	QuotaFailure bool
	Message      string
	Tool         string
	Raw          string
	// OutcomeUnknown is true when the request reached the server but the
	// reply was lost (connection reset, stream cut, unreadable reply), for a
	// call that is not safe to repeat blindly (create_runtime, or
	// execute_code / create_session without an idempotency id). The call may
	// or may not have taken effect: list runtimes (or sessions) before
	// trying again, and never create again with a different requestId.
	// Code is UNKNOWN and Metadata["requestId"] carries create_runtime's
	// requestId so an identical retry stays possible.
	OutcomeUnknown bool
	// Err is an underlying cause (a network error, an *oauth2.RetrieveError…),
	// reachable with errors.As/Is.
	Err error
}

// Error renders one line: "CODE (HTTP n, REASON): message", without Raw.
func (e *Error) Error() string { return e.text(200) }

// Full is Error with the whole message the error kept (up to 300 runes,
// where Error cuts at 200): the dashboard's event log shows it.
func (e *Error) Full() string { return e.text(0) }

// text is the error's line with its message cut to max runes (0: as kept).
func (e *Error) text(max int) string {
	var b strings.Builder
	if e.Tool != "" {
		b.WriteString(e.Tool)
		b.WriteString(": ")
	}
	b.WriteString(string(e.Code))
	var extra []string
	// The HTTP status only once: DefaultMessage ("Not found (HTTP 404)")
	// and other messages may name it already.
	if e.HTTPStatus != 0 && !strings.Contains(e.Message, "HTTP "+strconv.Itoa(e.HTTPStatus)) {
		extra = append(extra, "HTTP "+strconv.Itoa(e.HTTPStatus))
	}
	if e.Reason != "" {
		extra = append(extra, e.Reason)
	}
	if len(extra) > 0 {
		b.WriteString(" (" + strings.Join(extra, ", ") + ")")
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(OneLine(safeMessage(e.Message), max))
	}
	// Code, Reason and Tool may come from the wire too: keep the line clean.
	return OneLine(b.String(), 0)
}

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// IsNetworkError reports whether err, or a cause it wraps, is a failure to
// reach a host over the network: a dial refused or unroutable, a name
// that did not resolve (DNS), a connection reset or timed out on the wire.
// A server's answer, however bad, is not one.
func IsNetworkError(err error) bool {
	var oe *net.OpError
	var de *net.DNSError
	return errors.As(err, &oe) || errors.As(err, &de)
}

// Is reports whether target is an *Error with the same Code (and the same
// Reason when target sets one), so errors.Is(err, &api.Error{Code:
// api.NotFound}) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok {
		return false
	}
	return t.Code == e.Code && (t.Reason == "" || t.Reason == e.Reason)
}

// IsAuth reports whether the failure is about credentials, scopes or the
// quota project: retrying without the user fixing something cannot help.
func (e *Error) IsAuth() bool {
	return e.Code == Unauthenticated || e.Code == PermissionDenied
}

// IsQuota reports whether the failure is a usage quota that persists until
// it resets (not a per-minute rate limit): QUOTA_EXCEEDED_USAGE_TIME,
// DENYLISTED, or RESOURCE_EXHAUSTED with a QuotaFailure and no retry delay.
func (e *Error) IsQuota() bool {
	switch e.Reason {
	case ReasonQuotaExceededUsageTime, ReasonDenylisted:
		return true
	}
	return e.Code == ResourceExhausted && e.QuotaFailure && e.RetryDelay == 0
}

// Retryable reports whether an automatic retry may help: UNAVAILABLE,
// INTERNAL, an HTTP 5xx but 501, or a rate-limit
// RESOURCE_EXHAUSTED. Never for UNIMPLEMENTED, FAILED_PRECONDITION, auth
// or quota failures, or an untrusted TLS certificate (CertificateProblem).
func (e *Error) Retryable() bool {
	if e.IsAuth() || e.IsQuota() || e.Code == FailedPrecondition || CertificateProblem(e.Err) != "" {
		return false
	}
	switch e.Code {
	case Unavailable, Internal, ResourceExhausted:
		return true
	case Unimplemented:
		return false
	}
	// 501 (not implemented) answers the same request the same way every
	// time; the other 5xx are passing.
	return e.HTTPStatus >= 500 && e.HTTPStatus != 501
}

// Reattachable reports whether an execute_code call made with a session
// and an executionId, which failed with e, may have left the code running
// so that the identical call (same session, executionId and code)
// reattaches to it: DEADLINE_EXCEEDED (the 600 s
// cut-off) or UNAVAILABLE (a dropped connection). Whether to send that
// call is state.ExecAnswered's decision; `colabdash exec` uses this to
// print the command that reattaches.
func (e *Error) Reattachable() bool { return e.Code == DeadlineExceeded || e.Code == Unavailable }

// CredentialsError is implemented by the errors of api/auth, so that a
// layer which cannot import it (the MCP client sees them as the failure of
// a request) can tell a credentials problem the user must fix from a
// passing failure to reach a token endpoint.
type CredentialsError interface {
	error
	// FixLine is a one-line instruction (usually a command to run), ""
	// when there is none.
	FixLine() string
	// Transient reports whether retrying later may help: the token
	// endpoint could not be reached or answered 5xx / 429.
	Transient() bool
}

var rfc1034 = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$`) })

// ValidateID checks a user-chosen runtimeId or sessionId against RFC 1034 as
// Colab applies it: 1 to 63 characters; lower-case letters, digits and
// hyphens; starts with a letter; ends with a letter or digit. It returns an
// INVALID_ARGUMENT *Error saying which rule failed, or nil.
func ValidateID(id string) error {
	if rfc1034().MatchString(id) {
		return nil
	}
	why := "may contain only lower-case letters, digits and hyphens"
	if id == "" {
		why = "is empty"
	} else if len(id) > 63 {
		why = fmt.Sprintf("is %d characters long (at most 63)", len(id))
	} else if id[0] < 'a' || id[0] > 'z' {
		why = "must start with a lower-case letter"
	} else if strings.HasSuffix(id, "-") {
		why = "must end with a letter or digit"
	}
	return &Error{Code: InvalidArgument, Message: fmt.Sprintf("id %q %s", id, why)}
}
