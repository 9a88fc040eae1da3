package api

// Why this file is over 400 lines: the one error type and every form of Google error it decodes (JSON, text, structuredContent, HTTP).

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
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

// Known ErrorInfo reasons (colab-api.md §2.8, field-cases.md §B).
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
// Error() never includes it, so it never reaches the screen. It may embed
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
// INTERNAL, an HTTP 5xx, or a rate-limit RESOURCE_EXHAUSTED. Never for
// FAILED_PRECONDITION, auth or quota failures, or an untrusted TLS
// certificate (CertificateProblem).
func (e *Error) Retryable() bool {
	if e.IsAuth() || e.IsQuota() || e.Code == FailedPrecondition || CertificateProblem(e.Err) != "" {
		return false
	}
	switch e.Code {
	case Unavailable, Internal, ResourceExhausted:
		return true
	}
	return e.HTTPStatus >= 500
}

// Reattachable reports whether an execute_code call made with a session
// and an executionId, which failed with e, should be repeated identically
// (same session, executionId and code) to reattach to the code, which may
// still be running (colab-api.md §1.10): DEADLINE_EXCEEDED (the 600 s
// cut-off) or UNAVAILABLE (a dropped connection). The dashboard and
// `colabdash exec` both decide with it.
func (e *Error) Reattachable() bool { return e.Code == DeadlineExceeded || e.Code == Unavailable }

// Status is a google.rpc.Status (colab-api.md §2.8). Details are kept raw;
// ErrorFromStatus reads ErrorInfo, RetryInfo and QuotaFailure from them.
type Status struct {
	Code    int               `json:"code"`
	Message string            `json:"message,omitempty"`
	Status  string            `json:"status,omitempty"` // canonical name, in Google's HTTP envelope
	Details []json.RawMessage `json:"details,omitempty"`
}

// ErrorInfo is a google.rpc.ErrorInfo detail (colab-api.md §2.8).
type ErrorInfo struct {
	Type     string            `json:"@type,omitempty"`
	Reason   string            `json:"reason,omitempty"`
	Domain   string            `json:"domain,omitempty"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

// Detail type URLs of the google.rpc details the client reads.
const (
	TypeErrorInfo    = "type.googleapis.com/google.rpc.ErrorInfo"
	TypeRetryInfo    = "type.googleapis.com/google.rpc.RetryInfo"
	TypeQuotaFailure = "type.googleapis.com/google.rpc.QuotaFailure"
)

// ErrorFromStatus builds an *Error from a google.rpc.Status. The code comes
// from Status.Status when it names a code, else from the number. An ErrorInfo
// detail is read even without an "@type" (field case 5); RetryInfo's
// retryDelay ("53s", "1.5s") sets RetryDelay. httpStatus may be 0.
func ErrorFromStatus(s Status, httpStatus int) *Error {
	e := &Error{HTTPStatus: httpStatus, Message: s.Message}
	// (ifs, not a tagless switch: Go's coverage never includes a switch
	// case's condition, so mutation tools would count them unreached.)
	if codeName.MatchString(s.Status) {
		e.Code = Code(s.Status)
	} else if s.Code != 0 && s.Code == httpStatus || s.Code >= 100 {
		e.Code = CodeFromHTTP(s.Code)
	} else if s.Code != 0 {
		e.Code = CodeFromNumber(s.Code)
	} else if httpStatus != 0 {
		e.Code = CodeFromHTTP(httpStatus)
	} else {
		e.Code = Unknown
	}
	for _, raw := range s.Details {
		var d struct {
			Type       string            `json:"@type"`
			Reason     string            `json:"reason"`
			Metadata   map[string]string `json:"metadata"`
			RetryDelay string            `json:"retryDelay"`
			Violations json.RawMessage   `json:"violations"`
		}
		if json.Unmarshal(raw, &d) != nil {
			continue
		}
		if d.RetryDelay != "" || d.Type == TypeRetryInfo {
			if dl, err := time.ParseDuration(d.RetryDelay); err == nil && dl > 0 {
				e.RetryDelay = min(dl, MaxRetryDelay)
			}
		} else if d.Type == TypeQuotaFailure || len(d.Violations) > 0 {
			e.QuotaFailure = true
		} else if d.Reason != "" && e.Reason == "" {
			e.Reason = d.Reason
			e.Metadata = d.Metadata
		}
	}
	e.Message = safeMessage(e.Message)
	if e.Message == "" {
		e.Message = DefaultMessage(e.Code, httpStatus)
	}
	return e
}

// ParseHTTPError builds an *Error from an HTTP error reply: a Google error
// envelope {"error":{...}} becomes its Status; an HTML page, plain text or
// an empty body becomes a generic one-line message by status ("Server error
// (HTTP 500)"). retryAfter is the Retry-After header (seconds or an HTTP
// date; "" when absent) and is used when the body has no RetryInfo. The raw
// body is kept in Raw only.
func ParseHTTPError(status int, retryAfter string, body []byte) *Error {
	var env struct {
		Error *json.RawMessage `json:"error"`
	}
	var e *Error
	if json.Unmarshal(body, &env) == nil && env.Error != nil {
		var s Status
		if json.Unmarshal(*env.Error, &s) == nil {
			e = ErrorFromStatus(s, status)
		} else {
			// OAuth-style {"error":"invalid_grant", ...} or JSON-RPC error.
			var str string
			if json.Unmarshal(*env.Error, &str) == nil {
				e = &Error{Code: CodeFromHTTP(status), HTTPStatus: status, Message: str}
			}
		}
	}
	if e == nil {
		e = &Error{Code: CodeFromHTTP(status), HTTPStatus: status, Message: DefaultMessage(CodeFromHTTP(status), status)}
	}
	if e.RetryDelay == 0 && retryAfter != "" {
		e.RetryDelay = parseRetryAfter(retryAfter)
	}
	e.Raw = string(body)
	return e
}

// MaxRetryDelay caps a server's RetryInfo.retryDelay or Retry-After (5
// minutes): a server asking for hours (field case S5: "Retry-After:
// 100000") must not freeze automatic refresh for a day. Error.RetryDelay
// is never longer.
const MaxRetryDelay = 5 * time.Minute

// parseRetryAfter reads a Retry-After value (seconds or an HTTP date),
// capped at MaxRetryDelay; 0 when absent, past or unreadable.
func parseRetryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 {
		// Compared in seconds, so a huge value cannot overflow.
		return min(time.Duration(min(n, int64(MaxRetryDelay/time.Second)))*time.Second, MaxRetryDelay)
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return min(d, MaxRetryDelay)
		}
	}
	return 0
}

// DefaultMessage is the one-line message shown when the server said nothing
// usable: "Server error (HTTP 500)", "Bad gateway (HTTP 502)" and so on.
func DefaultMessage(c Code, httpStatus int) string {
	var m string
	switch httpStatus {
	case 0:
	case 401:
		m = "Not signed in or the access token was rejected"
	case 403:
		m = "Permission denied"
	case 404:
		m = "Not found"
	case 429:
		m = "Too many requests"
	case 500:
		m = "Server error"
	case 502:
		m = "Bad gateway"
	case 503:
		m = "Service unavailable"
	case 504:
		m = "Gateway timeout"
	default:
		m = "HTTP error"
	}
	if m != "" {
		return fmt.Sprintf("%s (HTTP %d)", m, httpStatus)
	}
	return strings.ToLower(strings.ReplaceAll(string(c), "_", " "))
}

var (
	codeToken   = regexp.MustCompile(`\b(CANCELLED|UNKNOWN|INVALID_ARGUMENT|DEADLINE_EXCEEDED|NOT_FOUND|ALREADY_EXISTS|PERMISSION_DENIED|RESOURCE_EXHAUSTED|FAILED_PRECONDITION|ABORTED|OUT_OF_RANGE|UNIMPLEMENTED|INTERNAL|UNAVAILABLE|DATA_LOSS|UNAUTHENTICATED)\b`)
	reasonToken = regexp.MustCompile(`\b(TOO_MANY_ACTIVE_RUNTIMES|QUOTA_EXCEEDED_USAGE_TIME|DENYLISTED|ACCESS_TOKEN_SCOPE_INSUFFICIENT|USER_PROJECT_DENIED|SERVICE_DISABLED)\b`)
	htmlish     = regexp.MustCompile(`(?i)<(!doctype|html|head|body)`)
	codeName    = regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,63}$`)
)

// htmlMessage replaces an error message that carries an HTML page.
const htmlMessage = "the server answered with an HTML page"

// safeMessage returns s, or htmlMessage when s contains HTML anywhere (a
// proxy's error page pasted into a message, field case 17).
func safeMessage(s string) string {
	if htmlish.MatchString(s) {
		return htmlMessage
	}
	return OneLine(s, maxMessage)
}

// maxMessage bounds a server's message, in runes: an error line is for a
// person; the whole reply stays in Error.Raw for the debug log.
const maxMessage = 300

// ErrorFromText builds an *Error from free text, such as an isError tool
// result's text or a JSON-RPC error message: a Google error envelope or a
// bare google.rpc.Status in the text is decoded; otherwise a canonical code
// name (and a known reason) found in the text is used, and the code is
// UNKNOWN when none is. HTML never becomes the message.
func ErrorFromText(text string) *Error {
	trimmed := strings.TrimSpace(text)
	if strings.HasPrefix(trimmed, "{") {
		var env struct {
			Error *Status `json:"error"`
		}
		if json.Unmarshal([]byte(trimmed), &env) == nil && env.Error != nil && (env.Error.Code != 0 || env.Error.Status != "") {
			e := ErrorFromStatus(*env.Error, 0)
			if env.Error.Code >= 100 {
				e.HTTPStatus = env.Error.Code
			}
			e.Raw = text
			return e
		}
		var s Status
		if json.Unmarshal([]byte(trimmed), &s) == nil && (s.Code != 0 || s.Status != "") {
			e := ErrorFromStatus(s, 0)
			e.Raw = text
			return e
		}
	}
	e := &Error{Code: Unknown, Raw: text}
	if m := codeToken.FindString(text); m != "" {
		e.Code = Code(m)
	}
	if m := reasonToken.FindString(text); m != "" {
		e.Reason = m
	}
	e.Message = OneLine(safeMessage(trimmed), 200)
	return e
}

// OneLine folds s onto one line (whitespace runs become one space), drops
// other control characters (so an escape sequence in a server message
// cannot drive the terminal) and cuts it to at most max runes, ending in
// "…" when cut.
func OneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		s = strings.Map(func(r rune) rune {
			if unicode.IsControl(r) {
				return -1
			}
			return r
		}, s)
	}
	r := []rune(s)
	if max > 0 && len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

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

// CertificateHint is the fix for a TLS certificate the system does not
// trust, most often a corporate proxy that intercepts TLS (field case 41).
const CertificateHint = "set SSL_CERT_FILE to your organisation's CA bundle (a proxy on this network may intercept TLS)"

// CertificateProblem returns a one-line message when err is (or wraps, or,
// for libraries that flatten errors into text, mentions) a TLS
// certificate verification failure: "certificate not trusted (x509:
// certificate signed by unknown authority); set SSL_CERT_FILE to your
// organisation's CA bundle …". It returns "" for any other error. Such a
// failure is not a network outage: retrying cannot help until the trust
// store changes.
func CertificateProblem(err error) string {
	if err == nil {
		return ""
	}
	var (
		cve *tls.CertificateVerificationError
		ua  x509.UnknownAuthorityError
		he  x509.HostnameError
		ci  x509.CertificateInvalidError
		sr  x509.SystemRootsError
	)
	detail := ""
	switch {
	case errors.As(err, &ua):
		detail = ua.Error()
	case errors.As(err, &he):
		detail = he.Error()
	case errors.As(err, &ci):
		detail = ci.Error()
	case errors.As(err, &sr):
		detail = sr.Error()
	case errors.As(err, &cve):
		detail = cve.Err.Error()
	default:
		m := certText.FindString(err.Error())
		if m == "" {
			return ""
		}
		detail = m
	}
	return "certificate not trusted (" + OneLine(detail, 160) + "); " + CertificateHint
}

// certText finds a certificate failure in flattened error text.
var certText = regexp.MustCompile(`x509: [^;:\n]*(?:certificate|authority)[^;\n]*|tls: failed to verify certificate[^;\n]*`)

var rfc1034 = regexp.MustCompile(`^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$`)

// ValidateID checks a user-chosen runtimeId or sessionId against RFC 1034 as
// Colab applies it: 1 to 63 characters; lower-case letters, digits and
// hyphens; starts with a letter; ends with a letter or digit. It returns an
// INVALID_ARGUMENT *Error saying which rule failed, or nil.
func ValidateID(id string) error {
	if rfc1034.MatchString(id) {
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
