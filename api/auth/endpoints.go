package auth

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/colabdash/colabdash/api/safehttp"
)

// insecureEndpoint checks every URL a credentials file names — token_uri,
// token_url, service_account_impersonation_url, token_info_url,
// revoke_url, credential_source.url and any other field named "url" or
// ending in "_url" or "_uri", in nested objects such as
// source_credentials too — against the rule --endpoint has
// (safehttp.CheckCredentialURL): https anywhere, plain http only to a
// loopback host. It returns the first offending field as a JSON path
// ("source_credentials.token_uri") and why, or "" when every URL is
// acceptable. Keys are visited in sorted order, so the answer is stable.
func insecureEndpoint(v any, prefix string) (field, why string) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			path := k
			if prefix != "" {
				path = prefix + "." + k
			}
			if s, ok := x[k].(string); ok {
				if isEndpointKey(k) && strings.TrimSpace(s) != "" {
					if why := endpointProblem(s); why != "" {
						return path, why
					}
				}
				continue
			}
			if strings.EqualFold(k, "headers") {
				continue // header names and values, not URLs
			}
			if f, w := insecureEndpoint(x[k], path); f != "" {
				return f, w
			}
		}
	case []any:
		for _, e := range x {
			if f, w := insecureEndpoint(e, prefix); f != "" {
				return f, w
			}
		}
	}
	return "", ""
}

// isEndpointKey reports whether a credentials-file key names an endpoint.
func isEndpointKey(k string) bool {
	k = strings.ToLower(k)
	return k == "url" || k == "endpoint" || strings.HasSuffix(k, "_url") ||
		strings.HasSuffix(k, "_uri") || strings.HasSuffix(k, "_endpoint")
}

// endpointProblem says why raw may not receive credentials, "" when it
// may: it must be an https URL with a host, or a plain http one to a
// loopback host. AWS's "{region}" placeholder is allowed in the host.
func endpointProblem(raw string) string {
	u, err := url.Parse(strings.ReplaceAll(strings.TrimSpace(raw), "{region}", "region"))
	if err != nil {
		return quote(raw) + " is not a URL"
	}
	shown := quote(safehttp.Redact(u))
	switch strings.ToLower(u.Scheme) {
	case "https":
		if u.Host == "" {
			return shown + " has no host"
		}
		return ""
	case "http":
		if u.Host == "" {
			return shown + " has no host"
		}
		if safehttp.CheckCredentialURL(u) != nil {
			return shown + " is plain http to a host that is not loopback, so the secrets sent there " +
				"(client secret, refresh token, signed assertion, subject token) would cross the network unencrypted"
		}
		return ""
	}
	return shown + " is not an https URL"
}

// endpointFix is the fix line for a credentials file that names an
// endpoint colabdash will not send credentials to.
func endpointFix(path, field string) string {
	return "use an https:// URL in " + field + " of " + path +
		" (plain http is accepted only for loopback: 127.0.0.0/8, ::1, localhost)"
}

// errNotHTTP is the refusal of a token request to a URL that is neither
// https nor http.
var errNotHTTP = errors.New("refused to send credentials to a URL that is not https")

// checkRequestURL is the last check before a token request leaves
// (secretTap): whatever URL a library built — from a file field, a
// default, a universe domain — gets the --endpoint rule. Nothing is sent
// when it fails; the error is a *safehttp.PlainHTTPError or errNotHTTP.
func checkRequestURL(req *http.Request) error {
	u := req.URL
	if u == nil {
		return errNotHTTP
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return nil
	case "http":
		return safehttp.CheckCredentialURL(u)
	}
	return errNotHTTP
}

// refuse closes a request body that will not be sent.
func refuse(body io.ReadCloser, err error) (*http.Response, error) {
	if body != nil {
		body.Close()
	}
	return nil, err
}
