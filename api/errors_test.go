package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The tests here were written for the mutants .ci/mutation found alive or
// unreached in package api: each pins what a user sees (the code, the
// retry decision, the message) at an edge.

func TestCodeFromHTTPFallbacks(t *testing.T) {
	for status, want := range map[int]Code{
		500: Internal, 505: Internal, 599: Internal,
		400: InvalidArgument, 418: FailedPrecondition, 499: Cancelled,
		399: Unknown, 302: Unknown, 0: Unknown,
	} {
		if got := CodeFromHTTP(status); got != want {
			t.Errorf("CodeFromHTTP(%d) = %s, want %s", status, got, want)
		}
	}
}

func TestCodeNumbersRoundTrip(t *testing.T) {
	for n := 0; n <= 16; n++ {
		if got := CodeFromNumber(n).Number(); got != n {
			t.Errorf("CodeFromNumber(%d).Number() = %d", n, got)
		}
	}
	if Code("NOT_A_CODE").Number() != 2 || CodeFromNumber(17) != Unknown || CodeFromNumber(-1) != Unknown {
		t.Error("unknown codes are not UNKNOWN (2)")
	}
}

func TestErrorFromStatusCode(t *testing.T) {
	for _, c := range []struct {
		s    Status
		http int
		want Code
	}{
		{Status{Status: "NOT_FOUND", Code: 500}, 500, NotFound},  // the name wins
		{Status{Status: "not a code", Code: 404}, 404, NotFound}, // an HTTP status
		{Status{Code: 429}, 0, ResourceExhausted},                // ≥ 100: an HTTP status
		{Status{Code: 100}, 0, Unknown},
		{Status{Code: 99}, 0, Unknown}, // < 100: a google.rpc.Code number (99 unknown)
		{Status{Code: 5}, 0, NotFound},
		{Status{Code: 5}, 404, NotFound},
		{Status{Code: 8}, 8, Unknown}, // equal to the HTTP status: read as HTTP
		{Status{}, 503, Unavailable},  // nothing: the HTTP status
		{Status{}, 0, Unknown},
	} {
		if got := ErrorFromStatus(c.s, c.http).Code; got != c.want {
			t.Errorf("ErrorFromStatus(%+v, %d).Code = %s, want %s", c.s, c.http, got, c.want)
		}
	}
}

func TestErrorFromStatusDetails(t *testing.T) {
	detail := func(s string) []string { return []string{s} }
	for _, c := range []struct {
		name    string
		details []string
		reason  string
		delay   time.Duration
		quota   bool
	}{
		{"RetryInfo", detail(`{"@type":"` + TypeRetryInfo + `","retryDelay":"53s"}`), "", 53 * time.Second, false},
		{"retryDelay without @type", detail(`{"retryDelay":"1.5s"}`), "", 1500 * time.Millisecond, false},
		{"RetryInfo zero", detail(`{"@type":"` + TypeRetryInfo + `","retryDelay":"0s"}`), "", 0, false},
		{"RetryInfo negative", detail(`{"@type":"` + TypeRetryInfo + `","retryDelay":"-3s"}`), "", 0, false},
		{"QuotaFailure", detail(`{"@type":"` + TypeQuotaFailure + `"}`), "", 0, true},
		{"violations without @type", detail(`{"violations":[{"subject":"x"}]}`), "", 0, true},
		{"ErrorInfo without @type", detail(`{"reason":"TOO_MANY_ACTIVE_RUNTIMES","metadata":{"limit":"2"}}`), ReasonTooManyActiveRuntimes, 0, false},
		{"first reason wins", []string{`{"reason":"DENYLISTED"}`, `{"reason":"SERVICE_DISABLED"}`}, ReasonDenylisted, 0, false},
		{"not an object", detail(`"text"`), "", 0, false},
	} {
		s := Status{Code: 8, Status: "RESOURCE_EXHAUSTED", Message: "m"}
		for _, d := range c.details {
			s.Details = append(s.Details, []byte(d))
		}
		e := ErrorFromStatus(s, 429)
		if e.Reason != c.reason || e.RetryDelay != c.delay || e.QuotaFailure != c.quota {
			t.Errorf("%s: reason %q delay %v quota %v; want %q %v %v", c.name, e.Reason, e.RetryDelay, e.QuotaFailure, c.reason, c.delay, c.quota)
		}
		if c.reason == ReasonTooManyActiveRuntimes && e.Metadata["limit"] != "2" {
			t.Errorf("%s: metadata %v", c.name, e.Metadata)
		}
	}
}

// What the dashboard does with an error: ask the user to fix credentials,
// say a quota is used up, or retry by itself.
func TestErrorClasses(t *testing.T) {
	for _, c := range []struct {
		e                      Error
		auth, quota, retryable bool
	}{
		{Error{Code: Unauthenticated}, true, false, false},
		{Error{Code: PermissionDenied, HTTPStatus: 503}, true, false, false},
		{Error{Code: NotFound}, false, false, false},
		{Error{Code: FailedPrecondition, HTTPStatus: 500}, false, false, false},
		{Error{Code: ResourceExhausted, QuotaFailure: true}, false, true, false},
		{Error{Code: ResourceExhausted, QuotaFailure: true, RetryDelay: time.Second}, false, false, true},
		{Error{Code: ResourceExhausted}, false, false, true},
		{Error{Code: Unavailable, Reason: ReasonQuotaExceededUsageTime}, false, true, false},
		{Error{Code: InvalidArgument, Reason: ReasonDenylisted}, false, true, false},
		{Error{Code: Unavailable}, false, false, true},
		{Error{Code: Internal}, false, false, true},
		{Error{Code: Unknown, HTTPStatus: 500}, false, false, true},
		{Error{Code: Unimplemented, HTTPStatus: 501}, false, false, false},
		{Error{Code: Unknown, HTTPStatus: 501}, false, false, false},
		{Error{Code: Unknown, HTTPStatus: 502}, false, false, true},
		{Error{Code: Unknown, HTTPStatus: 499}, false, false, false},
		{Error{Code: Unknown}, false, false, false},
	} {
		e := c.e
		if e.IsAuth() != c.auth || e.IsQuota() != c.quota || e.Retryable() != c.retryable {
			t.Errorf("%+v: auth %v quota %v retryable %v; want %v %v %v", c.e, e.IsAuth(), e.IsQuota(), e.Retryable(), c.auth, c.quota, c.retryable)
		}
	}
}

// An execute_code that failed this way may still be running: the user is
// offered to reattach instead of running the code again.
func TestReattachable(t *testing.T) {
	for c, want := range map[Code]bool{DeadlineExceeded: true, Unavailable: true, Internal: false, NotFound: false, Cancelled: false} {
		if got := (&Error{Code: c}).Reattachable(); got != want {
			t.Errorf("%s: reattachable %v", c, got)
		}
	}
}

func TestErrorIs(t *testing.T) {
	e := fmt.Errorf("call: %w", &Error{Code: FailedPrecondition, Reason: ReasonTooManyActiveRuntimes})
	for target, want := range map[*Error]bool{
		{Code: FailedPrecondition}:                                      true,
		{Code: FailedPrecondition, Reason: ReasonTooManyActiveRuntimes}: true,
		{Code: FailedPrecondition, Reason: ReasonDenylisted}:            false,
		{Code: NotFound}: false,
		{Code: NotFound, Reason: ReasonTooManyActiveRuntimes}: false,
	} {
		if got := errors.Is(e, target); got != want {
			t.Errorf("errors.Is(%v, %+v) = %v", e, *target, got)
		}
	}
	if errors.Is(e, errors.New("FAILED_PRECONDITION")) {
		t.Error("an *Error is another kind of error")
	}
}

func TestRetryAfter(t *testing.T) {
	date := func(d time.Duration) string { return time.Now().Add(d).UTC().Format(http.TimeFormat) }
	for v, want := range map[string]time.Duration{
		"30": 30 * time.Second, " 7 ": 7 * time.Second, "0": 0, "-5": 0, "soon": 0,
		"300": MaxRetryDelay, "301": MaxRetryDelay, "999999999999": MaxRetryDelay, // capped
		date(-time.Hour): 0, // past
		date(time.Hour):  MaxRetryDelay,
	} {
		if got := ParseHTTPError(503, v, nil).RetryDelay; got != want {
			t.Errorf("Retry-After %q: %v, want %v", v, got, want)
		}
	}
	if d := ParseHTTPError(503, date(2*time.Minute), nil).RetryDelay; d < 118*time.Second || d > 2*time.Minute {
		t.Errorf("Retry-After an HTTP date two minutes ahead: %v", d)
	}
	// RetryInfo in the body beats the header.
	body := `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"m","details":[{"@type":"` + TypeRetryInfo + `","retryDelay":"5s"}]}}`
	if got := ParseHTTPError(429, "60", []byte(body)).RetryDelay; got != 5*time.Second {
		t.Errorf("RetryInfo and Retry-After: %v", got)
	}
}

func TestValidateIDSaysWhichRuleFailed(t *testing.T) {
	for id, want := range map[string]string{
		"":                      "is empty",
		strings.Repeat("a", 64): "is 64 characters long (at most 63)",
		"9abc":                  "must start with a lower-case letter",
		"Abc":                   "must start with a lower-case letter",
		"{bc":                   "must start with a lower-case letter",
		"`bc":                   "must start with a lower-case letter",
		"abc-":                  "must end with a letter or digit",
		"ab_c":                  "may contain only lower-case letters, digits and hyphens",
		"a_":                    "may contain only lower-case letters, digits and hyphens",
		"z_":                    "may contain only lower-case letters, digits and hyphens",
	} {
		err := ValidateID(id)
		var ae *Error
		if !errors.As(err, &ae) || ae.Code != InvalidArgument || !strings.HasSuffix(ae.Message, want) {
			t.Errorf("ValidateID(%q) = %v, want …%q", id, err, want)
		}
	}
	for _, id := range []string{"a", "z", strings.Repeat("a", 63), "rt-9"} {
		if err := ValidateID(id); err != nil {
			t.Errorf("ValidateID(%q) = %v", id, err)
		}
	}
}

func TestOutcomeWords(t *testing.T) {
	for err, want := range map[error]string{
		nil:                                   "ok",
		&Error{Code: NotFound}:                "NOT_FOUND",
		fmt.Errorf("x: %w", &Error{}):         "UNKNOWN",
		fmt.Errorf("x: %w", context.Canceled): "CANCELLED",
		context.DeadlineExceeded:              "DEADLINE_EXCEEDED",
		errors.New("boom"):                    "UNKNOWN",
	} {
		if got := Outcome(err); got != want {
			t.Errorf("Outcome(%v) = %q, want %q", err, got, want)
		}
	}
}

func TestNamesAndParents(t *testing.T) {
	if got := (Session{Name: "runtimes/r1/sessions/s1"}).Parent(); got != "runtimes/r1" {
		t.Errorf("Parent = %q", got)
	}
	if got := (Session{Name: "/sessions/s1"}).Parent(); got != "" {
		t.Errorf("Parent of a name without a runtime = %q", got)
	}
	if got := (Session{Name: "s1"}).Parent(); got != "" {
		t.Errorf("Parent of a bare id = %q", got)
	}
	if RuntimeName("r1") != "runtimes/r1" || RuntimeName("runtimes/r1") != "runtimes/r1" {
		t.Errorf("RuntimeName: %q %q", RuntimeName("r1"), RuntimeName("runtimes/r1"))
	}
}

// A secret that contains another is redacted whole, whatever order the
// two were learnt in.
func TestRedactLongestFirst(t *testing.T) {
	for _, order := range [][]string{{"tok-123456", "tok-123456-extended"}, {"tok-123456-extended", "tok-123456"}} {
		var r Redactor
		r.Add(order...)
		if got := r.Redact("a tok-123456-extended b"); got != "a "+Redacted+" b" {
			t.Errorf("added %v: %q", order, got)
		}
	}
}

// targets answers the calls whose log target depends on the reply.
type targets struct {
	Service
	rt  Runtime
	s   Session
	err error
}

func (f targets) CreateRuntime(context.Context, CreateRuntimeRequest) (Runtime, error) {
	return f.rt, f.err
}
func (f targets) CreateSession(context.Context, string, string) (Session, error) { return f.s, f.err }
func (f targets) ExecuteCode(context.Context, ExecuteCodeRequest) (ExecuteCodeResult, error) {
	return ExecuteCodeResult{}, f.err
}

func TestLoggingServiceTargets(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	ctx := context.Background()
	ok := LoggingService(targets{rt: Runtime{Name: "runtimes/from-reply"}, s: Session{Name: "runtimes/r/sessions/from-reply"}}, log, &Redactor{})
	failing := LoggingService(targets{err: &Error{Code: Unavailable}}, log, &Redactor{})
	_, _ = ok.CreateRuntime(ctx, CreateRuntimeRequest{RuntimeID: "asked"})
	_, _ = failing.CreateRuntime(ctx, CreateRuntimeRequest{RuntimeID: "asked"})
	_, _ = failing.CreateRuntime(ctx, CreateRuntimeRequest{})
	_, _ = ok.CreateSession(ctx, "runtimes/r", "x")
	_, _ = failing.CreateSession(ctx, "runtimes/r", "x")
	_, _ = failing.ExecuteCode(ctx, ExecuteCodeRequest{Runtime: "runtimes/r", Session: "runtimes/r/sessions/s"})
	_, _ = failing.ExecuteCode(ctx, ExecuteCodeRequest{Runtime: "runtimes/r"})
	var got []string
	for _, ln := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		_, rest, _ := strings.Cut(ln, "tool=")
		tool, rest, _ := strings.Cut(rest, " target=")
		target, _, _ := strings.Cut(rest, " ")
		got = append(got, tool+" "+target)
	}
	want := []string{
		"create_runtime runtimes/from-reply", "create_runtime runtimes/asked", `create_runtime ""`,
		"create_session runtimes/r/sessions/from-reply", "create_session runtimes/r",
		"execute_code runtimes/r/sessions/s", "execute_code runtimes/r",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("logged targets:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The one line a user reads for an API failure.
func TestErrorLine(t *testing.T) {
	for _, c := range []struct {
		e    Error
		want string
	}{
		{Error{Code: NotFound}, "NOT_FOUND"},
		{Error{Tool: "get_runtime", Code: NotFound, Message: "gone"}, "get_runtime: NOT_FOUND: gone"},
		{Error{Code: FailedPrecondition, Reason: ReasonTooManyActiveRuntimes, Message: "m"}, "FAILED_PRECONDITION (TOO_MANY_ACTIVE_RUNTIMES): m"},
		{Error{Code: Unavailable, HTTPStatus: 503, Reason: "R", Message: "m"}, "UNAVAILABLE (HTTP 503, R): m"},
		{Error{Code: NotFound, HTTPStatus: 404, Message: "Not found (HTTP 404)"}, "NOT_FOUND: Not found (HTTP 404)"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.e, got, c.want)
		}
	}
}

// What a user reads when the server said little or answered oddly.
func TestMessagesFromOddReplies(t *testing.T) {
	if e := ErrorFromStatus(Status{Status: "NOT_FOUND"}, 404); e.Message != "Not found (HTTP 404)" {
		t.Errorf("no message: %q", e.Message)
	}
	if e := ErrorFromStatus(Status{Status: "NOT_FOUND", Message: "Runtime r1 not found."}, 404); e.Message != "Runtime r1 not found." {
		t.Errorf("the server's message was replaced: %q", e.Message)
	}
	for c, want := range map[Code]string{FailedPrecondition: "failed precondition", Unknown: "unknown"} {
		if got := DefaultMessage(c, 0); got != want {
			t.Errorf("DefaultMessage(%s, 0) = %q, want %q", c, got, want)
		}
	}
	if got := DefaultMessage(Unavailable, 502); got != "Bad gateway (HTTP 502)" {
		t.Errorf("DefaultMessage(502) = %q", got)
	}
	// An OAuth-style error names itself; anything else gets the HTTP text.
	if e := ParseHTTPError(400, "", []byte(`{"error":"invalid_grant","error_description":"Bad Request"}`)); e.Message != "invalid_grant" || e.Code != InvalidArgument {
		t.Errorf("OAuth error: %v", e)
	}
	if e := ParseHTTPError(502, "", []byte(`{"error":42}`)); e.Message != "Bad gateway (HTTP 502)" || e.Code != Unavailable {
		t.Errorf("odd error value: %v", e)
	}
}

func TestErrorFromTextForms(t *testing.T) {
	for _, c := range []struct {
		text   string
		code   Code
		http   int
		reason string
	}{
		{`{"error":{"code":404,"status":"NOT_FOUND","message":"m"}}`, NotFound, 404, ""},
		{`{"error":{"code":100,"message":"m"}}`, Unknown, 100, ""},
		{`{"error":{"code":5,"message":"m"}}`, NotFound, 0, ""},
		{`{"error":{"status":"ABORTED","message":"m"}}`, Aborted, 0, ""},
		{`{"error":{"message":"no code, FAILED_PRECONDITION in text"}}`, FailedPrecondition, 0, ""},
		{`{"code":9,"message":"bare status"}`, FailedPrecondition, 0, ""},
		{`{"status":"INTERNAL","message":"bare status"}`, Internal, 0, ""},
		{`{"message":"neither"}`, Unknown, 0, ""},
		{`Precondition failed: FAILED_PRECONDITION, TOO_MANY_ACTIVE_RUNTIMES (limit 2)`, FailedPrecondition, 0, ReasonTooManyActiveRuntimes},
		{`something broke`, Unknown, 0, ""},
	} {
		e := ErrorFromText(c.text)
		if e.Code != c.code || e.HTTPStatus != c.http || e.Reason != c.reason || e.Raw != c.text {
			t.Errorf("ErrorFromText(%s) = %s HTTP %d reason %q", c.text, e.Code, e.HTTPStatus, e.Reason)
		}
	}
}

func TestOneLineEdges(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"\x1b[31mred", 0, "[31mred"}, // a control character first is dropped too
		{"a\x07b", 0, "ab"},
		{"abcde", 5, "abcde"}, // exactly max: not cut
		{"abcdef", 5, "abcd…"},
		{"abcdef", 0, "abcdef"}, // 0: no limit
		{"  a \n\t b  ", 0, "a b"},
	} {
		if got := OneLine(c.in, c.max); got != c.want {
			t.Errorf("OneLine(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
	long := "9" + strings.Repeat("a", 62) // 63 characters: the length is fine
	if err := ValidateID(long); err == nil || !strings.HasSuffix(err.(*Error).Message, "must start with a lower-case letter") {
		t.Errorf("ValidateID(63 characters, bad start) = %v", err)
	}
}
