package forward

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// A reply's headers reach the local client without the proxy token in
// any form the redactor knows: whole, upper-cased, URL-encoded,
// JSON-escaped, base64-encoded, in a header's name, and split across two
// headers or the two lines of a folded header. The forward's own local
// token and the headers without a secret pass untouched.
func TestForwardStripsEveryFormOfTheProxyToken(t *testing.T) {
	_, c, w := emulatorForward(t)
	ptok := c.Info().Token
	quoted, _ := json.Marshal("x\"" + ptok)
	half := len(ptok) / 2
	carriers := map[string]string{
		"X-Whole":      "tok=" + ptok,
		"X-Upper":      strings.ToUpper(ptok),
		"X-Query":      url.QueryEscape("a&" + ptok + "/?"),
		"X-Path":       "/p/" + url.PathEscape(ptok),
		"X-Json":       string(quoted),
		"X-Base64":     base64.StdEncoding.EncodeToString([]byte("user:" + ptok)),
		"X-Base64url":  base64.RawURLEncoding.EncodeToString([]byte("zz" + ptok)),
		"X-Split-One":  "a " + ptok[:half],
		"X-Split-Two":  ptok[half:] + " b",
		"X-Folded":     "first line " + ptok[:half] + " " + ptok[half:], // as Go joins an obs-fold
		"X-" + ptok:    "the name",
		"Set-Cookie":   "s=" + url.QueryEscape(ptok) + "; Path=/",
		"Content-Type": "text/plain; " + strings.ToLower(ptok),
	}
	keep := map[string]string{
		"X-Plain":    "nothing secret here",
		"X-Local":    w.f.Token(),
		"Set-Cookie": "_xsrf=2|abc|def|123; Path=/",
	}
	resp := &http.Response{Header: http.Header{}}
	for k, v := range carriers {
		resp.Header.Add(k, v)
	}
	for k, v := range keep {
		resp.Header.Add(k, v)
	}
	if err := w.f.modifyResponse(resp); err != nil {
		t.Fatal(err)
	}
	for k := range carriers {
		if k != "Set-Cookie" && resp.Header.Get(k) != "" {
			t.Errorf("header %s reaches the local client: %q", k, resp.Header.Get(k))
		}
	}
	for k, vs := range resp.Header {
		for _, v := range append(vs, k) {
			if strings.Contains(strings.ToLower(v), strings.ToLower(ptok[:8])) || strings.Contains(strings.ToLower(v), strings.ToLower(ptok[len(ptok)-8:])) {
				t.Errorf("header %s carries a piece of the proxy token: %q", k, v)
			}
		}
	}
	for _, k := range []string{"X-Plain", "X-Local", "Set-Cookie"} {
		if vs := resp.Header.Values(k); len(vs) != 1 || vs[0] != keep[k] {
			t.Errorf("header %s was dropped or changed: %q", k, vs)
		}
	}
}
