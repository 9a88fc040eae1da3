package auth

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/colabdash/colabdash/api"
)

// maxTappedBody bounds how much of a request body secretTap reads to find
// secrets (token-endpoint requests are a few hundred bytes).
const maxTappedBody = 64 << 10

// secretTap is the outermost transport of the token HTTP client: before a
// request is sent it registers with red every credential in it, the bearer
// token or Basic client secret in Authorization, and the values of secret
// form or JSON fields in the body (client_secret, refresh_token,
// assertion, subject_token, …). That includes credentials the libraries
// mint in between and never hand back: the source token of an impersonated
// service account, the STS token of an external account. So an endpoint
// that echoes what it received cannot put those into an error either.
// It first refuses, sending nothing, a request to a URL that is neither
// https nor plain http to loopback (checkRequestURL), whoever built it.
type secretTap struct {
	base http.RoundTripper
	red  *api.Redactor
}

func (t *secretTap) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := checkRequestURL(req); err != nil {
		return refuse(req.Body, err)
	}
	if scheme, cred, ok := strings.Cut(req.Header.Get("Authorization"), " "); ok {
		t.red.Add(cred)
		if strings.EqualFold(scheme, "basic") {
			if b, err := base64.StdEncoding.DecodeString(cred); err == nil {
				if _, secret, ok := strings.Cut(string(b), ":"); ok {
					t.red.Add(secret)
				}
			}
		}
	}
	if req.GetBody != nil && req.ContentLength > 0 && req.ContentLength <= maxTappedBody {
		if body, err := req.GetBody(); err == nil {
			b, _ := io.ReadAll(io.LimitReader(body, maxTappedBody))
			body.Close()
			t.registerBody(req.Header.Get("Content-Type"), b)
		}
	}
	return t.base.RoundTrip(req)
}

func (t *secretTap) registerBody(contentType string, b []byte) {
	mt, _, _ := mime.ParseMediaType(contentType)
	switch {
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		var v any
		if json.Unmarshal(b, &v) == nil {
			t.red.AddFields(v)
		}
	default: // form-encoded, the OAuth default
		vals, err := url.ParseQuery(string(b))
		if err != nil {
			return
		}
		m := map[string]any{}
		for k, vs := range vals {
			if len(vs) > 0 {
				m[k] = vs[0]
			}
		}
		t.red.AddFields(m)
	}
}
