package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/colabdash/colabdash/api/jsonnum"
)

// Status is a google.rpc.Status. Code is any JSON number (rounded).
// Details are kept raw;
// ErrorFromStatus reads ErrorInfo, RetryInfo and QuotaFailure from them.
type Status struct {
	Code    jsonnum.Int       `json:"code"`
	Message string            `json:"message,omitempty"`
	Status  string            `json:"status,omitempty"` // canonical name, in Google's HTTP envelope
	Details []json.RawMessage `json:"details,omitempty"`
}

// ErrorInfo is a google.rpc.ErrorInfo detail.
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
// detail is read even without an "@type"; RetryInfo's
// retryDelay ("53s", "1.5s") sets RetryDelay. httpStatus may be 0.
func ErrorFromStatus(s Status, httpStatus int) *Error {
	e := &Error{HTTPStatus: httpStatus, Message: s.Message}
	code := int(s.Code)
	// (ifs, not a tagless switch: Go's coverage never includes a switch
	// case's condition, so mutation tools would count them unreached.)
	if codeName().MatchString(s.Status) {
		e.Code = Code(s.Status)
	} else if code != 0 && code == httpStatus || code >= 100 {
		e.Code = CodeFromHTTP(code)
	} else if code != 0 {
		e.Code = CodeFromNumber(code)
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
// minutes): a server asking for hours ("Retry-After:
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
	codeToken = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(CANCELLED|UNKNOWN|INVALID_ARGUMENT|DEADLINE_EXCEEDED|NOT_FOUND|ALREADY_EXISTS|PERMISSION_DENIED|RESOURCE_EXHAUSTED|FAILED_PRECONDITION|ABORTED|OUT_OF_RANGE|UNIMPLEMENTED|INTERNAL|UNAVAILABLE|DATA_LOSS|UNAUTHENTICATED)\b`)
	})
	reasonToken = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(TOO_MANY_ACTIVE_RUNTIMES|QUOTA_EXCEEDED_USAGE_TIME|DENYLISTED|ACCESS_TOKEN_SCOPE_INSUFFICIENT|USER_PROJECT_DENIED|SERVICE_DISABLED)\b`)
	})
	htmlish  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)<(!doctype|html|head|body)`) })
	codeName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,63}$`) })
)

// htmlMessage replaces an error message that carries an HTML page.
const htmlMessage = "the server answered with an HTML page"

// safeMessage returns s, or htmlMessage when s contains HTML anywhere (a
// proxy's error page pasted into a message).
func safeMessage(s string) string {
	if htmlish().MatchString(s) {
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
				e.HTTPStatus = int(env.Error.Code)
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
	if m := codeToken().FindString(text); m != "" {
		e.Code = Code(m)
	}
	if m := reasonToken().FindString(text); m != "" {
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
