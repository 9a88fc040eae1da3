package api

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

// Fuzz targets for everything that reads bytes Colab (or a proxy in
// between) sent: expireTime, error texts, HTTP error bodies and the
// Runtime/ConnectionInfo JSON. Seeds are inputs seen in the field;
// crashers found by `go test -fuzz` are kept in testdata/fuzz/<Target>.
// .ci/run runs each target for a bounded time.

// expireTimeSeeds are expireTime forms seen in the field (a lowercase
// "t"/"z", a space for "T", offsets, fractions) plus near misses.
var expireTimeSeeds = []string{
	"2026-11-29T18:00:00Z",
	"2026-11-29T18:00:00+00:00",
	"2026-11-29T23:30:00.5+05:30",
	"2026-11-29T23:45:00+05:45",
	"2026-11-29T18:00:00.123456789Z",
	"2026-11-29T18:00:00.1234567891Z",
	"2026-11-29t18:00:00z",
	"2026-11-29 18:00:00Z",
	"",
	"soon",
	"0001-01-01T00:00:00Z",
	"1969-12-31T23:59:59Z",
	"2026-11-29T18:00:00.Z",
	"2026-11-29T18:00:00.12345678901234567890123+02:30",
	"2026-02-30T18:00:00Z",
	"  2026-11-29T18:00:00Z\n",
	"2026-11-29T18:00:00-23:59",
}

// FuzzParseExpireTime: never panics; a parsed time is after 1970 and
// survives a format/parse round trip; a failure is the zero time.
func FuzzParseExpireTime(f *testing.F) {
	for _, s := range expireTimeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tm, ok := ParseExpireTime(s)
		if !ok {
			if !tm.IsZero() {
				t.Fatalf("ParseExpireTime(%q) failed but returned %v", s, tm)
			}
			return
		}
		if tm.Year() < 1970 {
			t.Fatalf("ParseExpireTime(%q) = %v: before 1970", s, tm)
		}
		again, ok := ParseExpireTime(tm.Format(time.RFC3339Nano))
		if !ok || !again.Equal(tm) {
			t.Fatalf("round trip of %q: %v -> %q -> %v, %v", s, tm, tm.Format(time.RFC3339Nano), again, ok)
		}
		// The wire form the client writes back must decode to the same
		// instant (ConnectionInfo.MarshalJSON/UnmarshalJSON).
		b, err := json.Marshal(ConnectionInfo{ExpireTime: tm})
		if err != nil {
			t.Fatal(err)
		}
		var ci ConnectionInfo
		if err := json.Unmarshal(b, &ci); err != nil || !ci.ExpireTime.Equal(tm) {
			t.Fatalf("JSON round trip of %v: %s -> %v, %v", tm, b, ci.ExpireTime, err)
		}
	})
}

// errorTextSeeds are error texts seen in the field (isError texts,
// Google envelopes, JSON-RPC messages, HTML pages).
var errorTextSeeds = []string{
	`{"error":{"code":503,"status":"UNAVAILABLE","message":"No capacity"}}`,
	`{"done":true,"error":{"code":9,"message":"accelerator unavailable"}}`,
	`{"code":8,"message":"usage limit","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"QUOTA_EXCEEDED_USAGE_TIME"}]}`,
	`{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"usage limit","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"DENYLISTED"}]}}`,
	`{"code":9,"details":[{"reason":"TOO_MANY_ACTIVE_RUNTIMES"}]}`,
	`{"error":{"code":404,"status":"NOT_FOUND"}}`,
	`{"error":{"code":403,"status":"PERMISSION_DENIED","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"USER_PROJECT_DENIED","domain":"googleapis.com","metadata":{"consumer":"projects/other-proj"}}]}}`,
	`{"error":{"code":403,"status":"PERMISSION_DENIED","details":[{"reason":"ACCESS_TOKEN_SCOPE_INSUFFICIENT"}]}}`,
	`{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":3}`,
	`{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"Quota exceeded for requests per minute per user.","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"53s"}]}}`,
	`{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"subject":"x"}]}]}}`,
	"<!DOCTYPE html><html lang=en><title>Error 500 (Server Error)!!1</title><p>Error 500</p></html>",
	"upstream said:\n<html><body>Error 502</body></html>",
	"Runtime not found",
	"FAILED_PRECONDITION: TOO_MANY_ACTIVE_RUNTIMES",
	"",
	"   \n\t ",
	"\x1b[2J\x1b[H gone \x07",
	`{"error":"invalid_grant","error_description":"reauth related error (invalid_rapt)","error_subtype":"invalid_rapt"}`,
	`{"error":{"code":1e400}}`,
	`{"error":{"code":-5,"status":"not a code"}}`,
}

// checkErrorLine asserts what the user sees of e: one line, no HTML, no
// control characters, a code, and a bounded message.
func checkErrorLine(t *testing.T, input string, e *Error) {
	t.Helper()
	if e == nil {
		t.Fatalf("%q: nil *Error", input)
	}
	if e.Code == "" {
		t.Fatalf("%q: empty Code", input)
	}
	line := e.Error()
	if !utf8.ValidString(line) && utf8.ValidString(input) {
		t.Fatalf("%q: Error() is not valid UTF-8: %q", input, line)
	}
	for _, r := range line {
		if r == '\n' || r == '\r' || (unicode.IsControl(r) && r != '\t') {
			t.Fatalf("%q: Error() has control character %U: %q", input, r, line)
		}
	}
	low := strings.ToLower(line)
	if strings.Contains(low, "<html") || strings.Contains(low, "<!doctype") || strings.Contains(low, "<body") {
		t.Fatalf("%q: Error() shows HTML: %q", input, line)
	}
	if n := utf8.RuneCountInString(e.Message); n > 300 {
		t.Fatalf("%q: Message is %d runes long", input, n)
	}
	if e.RetryDelay < 0 {
		t.Fatalf("%q: negative RetryDelay %v", input, e.RetryDelay)
	}
}

// FuzzErrorFromText: any text (isError result, JSON-RPC message) becomes
// an *Error whose Error() is one clean line without HTML, and whose Raw
// keeps the input for the debug log.
func FuzzErrorFromText(f *testing.F) {
	for _, s := range errorTextSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		e := ErrorFromText(text)
		checkErrorLine(t, text, e)
		if e.Raw != text {
			t.Fatalf("Raw = %q, want the input %q", e.Raw, text)
		}
	})
}

// FuzzParseHTTPError: any HTTP error reply (status, Retry-After, body)
// becomes an *Error with that status, one clean line, and the body only in
// Raw.
func FuzzParseHTTPError(f *testing.F) {
	statuses := []int{400, 401, 403, 404, 429, 500, 502, 503, 504}
	for i, s := range errorTextSeeds {
		f.Add(statuses[i%len(statuses)], "", s)
	}
	f.Add(429, "30", "")
	f.Add(503, "Sun, 29 Nov 2026 18:00:00 GMT", "")
	f.Add(502, "", "")
	f.Add(500, "-1", "<html>")
	f.Add(401, "99999999999999999999", `{"error":{"code":401,"status":"UNAUTHENTICATED"}}`)
	f.Fuzz(func(t *testing.T, status int, retryAfter string, body string) {
		e := ParseHTTPError(status, retryAfter, []byte(body))
		checkErrorLine(t, body, e)
		if e.HTTPStatus != status {
			t.Fatalf("HTTPStatus = %d, want %d", e.HTTPStatus, status)
		}
		if e.Raw != body {
			t.Fatalf("Raw = %q, want the body", e.Raw)
		}
		if len(body) > 40 && strings.Contains(e.Error(), body) {
			t.Fatalf("Error() embeds the raw body: %q", e.Error())
		}
	})
}

// runtimeSeeds are Runtime JSON as list_runtimes/get_runtime send it,
// with the absent, empty and invalid expireTime seen in the field and
// unknown enum values.
var runtimeSeeds = []string{
	`{"name":"runtimes/r-abc","runtimeSpec":{"variant":"VARIANT_GPU","accelerator":"T4","shape":"SHAPE_STANDARD"},"connectionInfo":{"url":"https://8080-m-s-r-abc.prod.colab.dev","token":"tok","expireTime":"2026-11-29T18:00:00Z"}}`,
	`{"name":"runtimes/r-abc","runtimeSpec":{"variant":"VARIANT_QPU","accelerator":"Q1","shape":"SHAPE_HUGE"}}`,
	`{"name":"runtimes/r-abc","connectionInfo":{"expireTime":""}}`,
	`{"name":"runtimes/r-abc","connectionInfo":{"expireTime":"soon"}}`,
	`{"name":"runtimes/r-abc","connectionInfo":{"expireTime":12345}}`,
	`{"name":"runtimes/r-abc","connectionInfo":{"expireTime":"2026-11-29t18:00:00z"}}`,
	`{"name":"runtimes/r-abc","connectionInfo":null}`,
	`{"name":"runtimes/r-abc","connectionInfo":{}}`,
	`{}`,
	`{"name":5}`,
	`null`,
}

// FuzzRuntimeJSON: decoding a Runtime never panics; a known expireTime is
// after 1970; what decodes re-encodes and decodes to the same runtime.
func FuzzRuntimeJSON(f *testing.F) {
	for _, s := range runtimeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var rt Runtime
		if json.Unmarshal(data, &rt) != nil {
			return
		}
		exp := rt.ExpireTime()
		if !exp.IsZero() && exp.Year() < 1970 {
			t.Fatalf("%s: expireTime %v before 1970", data, exp)
		}
		_ = rt.ID()
		_ = rt.RuntimeSpec.String()
		b, err := json.Marshal(rt)
		if err != nil {
			t.Fatalf("%s: re-encoding: %v", data, err)
		}
		var again Runtime
		if err := json.Unmarshal(b, &again); err != nil {
			t.Fatalf("%s: re-decoding %s: %v", data, b, err)
		}
		if again.Name != rt.Name || again.RuntimeSpec != rt.RuntimeSpec || again.Version != rt.Version ||
			(again.ConnectionInfo == nil) != (rt.ConnectionInfo == nil) || !again.ExpireTime().Equal(exp) {
			t.Fatalf("round trip changed the runtime: %+v -> %s -> %+v", rt, b, again)
		}
		if ci := rt.ConnectionInfo; ci != nil && (again.ConnectionInfo.Token != ci.Token || again.ConnectionInfo.URL != ci.URL) {
			t.Fatalf("round trip changed connectionInfo: %+v -> %+v", ci, again.ConnectionInfo)
		}
	})
}
