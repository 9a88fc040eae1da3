package api

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/secrettest"
)

func TestRedactPatterns(t *testing.T) {
	var r Redactor
	r.Add("proxy-secret-123", "abc") // "abc" is too short to register
	cases := map[string]string{
		`Authorization: Bearer ya29.a0AfH6SMBx-1_2`:                   "ya29.a0AfH6SMBx-1_2",
		`authorization=Basic dXNlcjpwYXNz`:                            "dXNlcjpwYXNz",
		`X-Colab-Runtime-Proxy-Token: tok_9f8e7d`:                     "tok_9f8e7d",
		`{"url":"https://x","token":"tok-json-777","expireTime":"z"}`: "tok-json-777",
		`{"text":"{\"token\":\"tok-nested-555\"}"}`:                   "tok-nested-555",
		`{"private_key":"-----BEGIN\nKEYDATA-999\n-----END"}`:         "KEYDATA-999",
		`{"client_secret": "cs-4242"}`:                                "cs-4242",
		`https://proxy.example/?token=jup-31337&x=1`:                  "jup-31337",
		`get_runtime failed near proxy-secret-123 in the reply`:       "proxy-secret-123",
		`bare ya29.c.standalone-token`:                                "ya29.c.standalone-token",
	}
	for in, secret := range cases {
		out := r.Redact(in)
		secrettest.Check(t, fmt.Sprintf("Redact(%q)", in), out, secret)
		if !strings.Contains(out, Redacted) {
			t.Errorf("Redact(%q) = %q has no %s marker", in, out, Redacted)
		}
	}
	if got := r.Redact("list_runtimes ok abc in 12ms"); got != "list_runtimes ok abc in 12ms" {
		t.Errorf("plain text changed: %q", got)
	}
}

type stringer struct{ s string }

func (s stringer) String() string { return s.s }

// Every line a RedactingHandler writes is searched for the secrets put in:
// as secret keys, in messages, errors, Stringers, groups, With attributes
// and structs.
func TestRedactingHandlerNeverWritesSecrets(t *testing.T) {
	var buf bytes.Buffer
	r := &Redactor{}
	r.Add("literal-proxy-token-1")
	log := slog.New(NewRedactingHandler(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}), r))
	secrets := []string{"literal-proxy-token-1", "key-tok-2", "hdr-tok-3", "bearer-tok-4", "json-tok-5", "group-tok-6", "with-tok-7", "struct-tok-8"}
	log.With("authorization", "Bearer with-tok-7").Info("msg with literal-proxy-token-1",
		"token", "key-tok-2",
		"X-Colab-Runtime-Proxy-Token", "hdr-tok-3",
		"err", fmt.Errorf("HTTP 401: %w", errors.New(`reply {"access_token":"json-tok-5"} Bearer bearer-tok-4`)),
		"str", stringer{"Authorization: Bearer bearer-tok-4"},
		slog.Group("req", "refresh_token", "group-tok-6", "note", "ok"),
		"ci", ConnectionInfo{URL: "https://u", Token: "struct-tok-8"},
		"rt", Runtime{Name: "runtimes/x", ConnectionInfo: &ConnectionInfo{Token: "struct-tok-8"}},
	)
	log.WithGroup("g").Debug("d", "client_secret", "group-tok-6")
	out := buf.String()
	secrettest.Check(t, "the log", out, secrets...)
	if !strings.Contains(out, `"note":"ok"`) || !strings.Contains(out, `"msg":"msg with [redacted]"`) {
		t.Errorf("non-secret content lost:\n%s", out)
	}
}

type oneRuntime struct {
	Service
	rt  Runtime
	err error
}

func (o oneRuntime) GetRuntime(context.Context, string) (Runtime, error) { return o.rt, o.err }
func (o oneRuntime) ListRuntimes(context.Context) ([]Runtime, error)     { return []Runtime{o.rt}, o.err }

func TestLoggingServiceLogsCallsAndRegistersProxyTokens(t *testing.T) {
	var buf bytes.Buffer
	r := &Redactor{}
	log := slog.New(NewRedactingHandler(slog.NewTextHandler(&buf, nil), r))
	rt := Runtime{Name: "runtimes/r1", ConnectionInfo: &ConnectionInfo{Token: "proxy-tok-from-reply"}}
	svc := LoggingService(oneRuntime{rt: rt}, log, r)
	if _, err := svc.GetRuntime(context.Background(), "runtimes/r1"); err != nil {
		t.Fatal(err)
	}
	// A later message that quotes the token is redacted too.
	log.Warn("server said proxy-tok-from-reply was bad")
	failing := LoggingService(oneRuntime{err: &Error{Code: FailedPrecondition, Message: "runtime busy"}}, log, r)
	_, _ = failing.ListRuntimes(context.Background())
	out := buf.String()
	secrettest.Check(t, "the log", out, "proxy-tok-from-reply")
	for _, want := range []string{"msg=\"api call\" tool=get_runtime target=runtimes/r1 duration=", "outcome=ok",
		"tool=list_runtimes target=\"\"", "outcome=FAILED_PRECONDITION", "runtime busy"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	if Outcome(context.Canceled) != "CANCELLED" || Outcome(fmt.Errorf("x: %w", context.DeadlineExceeded)) != "DEADLINE_EXCEEDED" || Outcome(errors.New("x")) != "UNKNOWN" {
		t.Error("Outcome of context errors")
	}
}

// Token-endpoint bodies echoed into an error are redacted
// by key, form-encoded or JSON, raw or quoted inside JSON; a PEM key is
// redacted whole.
func TestRedactTokenEndpointBodiesByKey(t *testing.T) {
	var r Redactor
	form := "client_id=cid&client_secret=CS-8d7e6f5a&grant_type=refresh_token&refresh_token=1%2F%2FRT-1a2b3c4d"
	cases := map[string][]string{
		form:                                {"CS-8d7e6f5a", "RT-1a2b3c4d"},
		`error: bad request (` + form + `)`: {"CS-8d7e6f5a", "RT-1a2b3c4d"},
		`{"echo":"` + strings.ReplaceAll(form, "&", `\u0026`) + `"}`:                                                  {"CS-8d7e6f5a", "RT-1a2b3c4d"},
		"grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=eyJhbGciOi.JWT-PAYLOAD-77.SIG-88": {"JWT-PAYLOAD-77", "SIG-88"},
		"audience=x&subject_token=SUBJ-TOK-6655&subject_token_type=jwt":                                               {"SUBJ-TOK-6655"},
		`{"assertion":"JWT-AS-1234","subject_token":"SUBJ-5678","id_token":"IDT-9012","access_token":"AT-3456"}`:      {"JWT-AS-1234", "SUBJ-5678", "IDT-9012", "AT-3456"},
		"key: -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg-KEYBODY\n-----END PRIVATE KEY-----\n":                       {"MIIEvQIBADANBg-KEYBODY"},
		`{"private_key":"-----BEGIN RSA PRIVATE KEY-----\nMIIB-CUT-SHORT`:                                             {"MIIB-CUT-SHORT"},
	}
	for in, secrets := range cases {
		out := r.Redact(in)
		for _, sec := range secrets {
			if strings.Contains(out, sec) {
				t.Errorf("Redact(%q) = %q still shows %q", in, out, sec)
			}
		}
	}
	if out := r.Redact(form); !strings.Contains(out, "client_id=cid") || !strings.Contains(out, "grant_type=refresh_token") {
		t.Errorf("non-secret form fields lost: %q", out)
	}
}

// A registered secret is also found URL-encoded and JSON-escaped; AddFields
// registers every secret-named field of a decoded reply.
func TestRedactorEncodedFormsAndAddFields(t *testing.T) {
	var r Redactor
	r.Add("1//refresh+tok<en>")
	for _, in := range []string{"x 1%2F%2Frefresh%2Btok%3Cen%3E y", `{"e":"1//refresh+tok\u003cen\u003e"}`} {
		if out := r.Redact(in); strings.Contains(out, "refresh") {
			t.Errorf("Redact(%q) = %q", in, out)
		}
	}
	var f Redactor
	f.AddFields(map[string]any{"runtimes": []any{
		map[string]any{"name": "runtimes/a", "connectionInfo": map[string]any{"token": "proxy-AAAA1111", "url": "https://u"}},
		map[string]any{"name": "runtimes/b", "proxyToken": "proxy-BBBB2222"},
	}})
	out := f.Redact("echo proxy-AAAA1111 and proxy-BBBB2222 at runtimes/a https://u")
	if strings.Contains(out, "proxy-") || !strings.Contains(out, "runtimes/a https://u") {
		t.Errorf("AddFields: %q", out)
	}
	var nilR *Redactor
	nilR.AddFields(map[string]any{"token": "x"}) // no panic
}

// A server that echoes a secret cut short, or base64-encoded (alone or
// inside a longer Basic-style blob), must not show any of it (red-team
// finding: "token SECRETtok-abcdef12345" and base64 echoes got through).
func TestRedactorCutShortAndBase64Echoes(t *testing.T) {
	const sec = "SECRETtok-abcdef123456"
	var r Redactor
	r.Add(sec)
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	cases := map[string][]string{
		"invalid token " + sec[:len(sec)-1] + "… rejected":                   {sec[:10]},
		"token …" + sec[5:] + " rejected":                                    {sec[len(sec)-10:]},
		"b64 " + b64(sec):                                                    {b64(sec)[:12]},
		"basic " + b64("user:"+sec):                                          {b64("user:" + sec)[8:20]},
		"b64url " + base64.URLEncoding.EncodeToString([]byte("xy"+sec+"zz")): {base64.URLEncoding.EncodeToString([]byte("xy" + sec + "zz"))[4:16]},
	}
	for in, leaks := range cases {
		out := r.Redact(in)
		for _, l := range leaks {
			if strings.Contains(out, l) {
				t.Errorf("Redact(%q) = %q still shows %q", in, out, l)
			}
		}
		if !strings.Contains(out, Redacted) {
			t.Errorf("Redact(%q) = %q redacted nothing", in, out)
		}
	}
	for _, plain := range []string{"list_runtimes ok in 12ms", "SECRETt x 123456", "abcdef12", "runtime rt-abc is ready"} {
		if got := r.Redact(plain); got != plain {
			t.Errorf("Redact(%q) = %q, want it unchanged", plain, got)
		}
	}
}
