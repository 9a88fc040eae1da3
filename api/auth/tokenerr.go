package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// tokenAnswer is what a token endpoint answered, wherever the library put
// it: an *oauth2.RetrieveError with or without a parsed error code (the
// service-account JWT flow never parses one), the text "status code 400:
// {body}" (STS, IAM, external_account_authorized_user), or a
// RetrieveError flattened into text (`oauth2: "invalid_grant" "…"`, the
// source credentials of an impersonated service account).
type tokenAnswer struct {
	status int    // HTTP status, 0 when the text did not say
	code   string // OAuth "error" (invalid_grant…), "" when none
	desc   string // OAuth "error_description" or an API error's message
	// date is the endpoint's Date header, zero when unknown.
	date time.Time
}

// flatRetrieve is how an *oauth2.RetrieveError reads once a library has
// flattened it into another error's text.
var flatRetrieve = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`oauth2: "((?:[^"\\]|\\.)*)"(?: "((?:[^"\\]|\\.)*)")?`)
})

// answerOf finds the token endpoint's answer in err; ok is false when err
// holds none (a network failure, a file problem).
func answerOf(err error) (a tokenAnswer, ok bool) {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		a = tokenAnswer{code: re.ErrorCode, desc: re.ErrorDescription}
		if re.Response != nil {
			a.status = re.Response.StatusCode
			a.date, _ = http.ParseTime(re.Response.Header.Get("Date"))
		}
		if a.code == "" {
			a.code, a.desc = parseErrorBody(re.Body)
		}
		return a, true
	}
	text := err.Error()
	if m := iamStatus().FindStringSubmatch(text); m != nil {
		a.status, _ = strconv.Atoi(m[1])
		a.code, a.desc = parseErrorBody([]byte(m[2]))
		return a, true
	}
	if m := flatRetrieve().FindStringSubmatch(text); m != nil {
		a.code, _ = strconv.Unquote(`"` + m[1] + `"`)
		if m[2] != "" {
			a.desc, _ = strconv.Unquote(`"` + m[2] + `"`)
		}
		return a, a.code != ""
	}
	return a, false
}

// parseErrorBody reads an OAuth error body ({"error":"invalid_grant",
// "error_description":"…"}) or a Google API error ({"error":{"status":
// "PERMISSION_DENIED","message":"…"}}).
func parseErrorBody(b []byte) (code, desc string) {
	var v struct {
		Error       json.RawMessage `json:"error"`
		Description string          `json:"error_description"`
	}
	if json.Unmarshal(b, &v) != nil {
		return "", ""
	}
	if json.Unmarshal(v.Error, &code) == nil {
		return code, v.Description
	}
	var apiErr struct {
		Status  string `json:"status"`
		Message string `json:"message"`
	}
	if json.Unmarshal(v.Error, &apiErr) == nil {
		return apiErr.Status, apiErr.Message
	}
	return "", v.Description
}

// transientStatus reports whether an HTTP status from a token endpoint is
// worth retrying: 5xx, 429 and 408. Every other refusal, invalid_grant
// above all, is final: one request, not one per retry.
func transientStatus(status int) bool {
	return status >= 500 || status == http.StatusTooManyRequests || status == http.StatusRequestTimeout
}

// answered describes a, for Error.Detail: "the token endpoint answered
// invalid_grant (Bad Request)" or "… answered HTTP 400".
func (a tokenAnswer) answered(red func(string) string) string {
	s := "the token endpoint answered "
	switch {
	case a.code != "":
		s += red(a.code)
		if a.desc != "" {
			s += " (" + red(a.desc) + ")"
		}
	case a.status != 0:
		s += fmt.Sprintf("HTTP %d", a.status)
		if a.desc != "" {
			s += " (" + red(a.desc) + ")"
		}
	default:
		s = "the token endpoint refused"
	}
	return s
}

// clockSkewed reports whether the endpoint's description blames the time
// of a signed JWT ("Invalid JWT: Token must be a
// short-lived token (60 minutes) and in a reasonable timeframe").
func (a tokenAnswer) clockSkewed() bool {
	return strings.Contains(strings.ToLower(a.desc), "reasonable timeframe")
}

// maxQuietSkew is how far this machine's clock may differ from the token
// endpoint's Date before the difference is stated.
const maxQuietSkew = time.Minute

// clockNote says how far this machine's clock is from the token
// endpoint's, when its Date header shows more than maxQuietSkew, else
// that the clock may be skewed.
func (a tokenAnswer) clockNote(now time.Time) string {
	if !a.date.IsZero() {
		d := now.Sub(a.date).Round(time.Second)
		switch {
		case d > maxQuietSkew:
			return "this machine's clock is " + d.String() + " ahead of the token endpoint's"
		case d < -maxQuietSkew:
			return "this machine's clock is " + (-d).String() + " behind the token endpoint's"
		}
	}
	return "this machine's clock may be skewed"
}

// clockFix is the fix line for a JWT refused for its time.
const clockFix = "set this machine's clock right (sync it with NTP) and run colabdash again: a signed JWT is accepted only near the token endpoint's time"
