package auth

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/auth/authtest"
	"github.com/colabdash/colabdash/api/colabfake"
)

// refusingRT counts every request that reaches it and sends none.
type refusingRT struct{ n atomic.Int64 }

func (r *refusingRT) RoundTrip(*http.Request) (*http.Response, error) {
	r.n.Add(1)
	return nil, errors.New("refusingRT: nothing may be sent")
}

// testKey is a PEM PKCS#8 RSA key for service-account fixtures.
func testKey(t *testing.T) string {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

// urlFixture is a credentials file with one endpoint set to base+"/…",
// every other endpoint https, and the JSON path of that endpoint.
type urlFixture struct {
	name, field string
	file        func(base string) map[string]any
}

func urlFixtures(t *testing.T, subject string) []urlFixture {
	key := testKey(t)
	const audience = "//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/q"
	const sts = "https://sts.googleapis.com/v1/token"
	ext := func(over map[string]any) map[string]any {
		m := map[string]any{"type": "external_account", "audience": audience,
			"subject_token_type": "urn:ietf:params:oauth:token-type:jwt", "token_url": sts,
			"credential_source": map[string]any{"file": subject}}
		for k, v := range over {
			m[k] = v
		}
		return m
	}
	user := func(tokenURI string) map[string]any {
		return map[string]any{"type": "authorized_user", "client_id": "cid.apps.googleusercontent.com",
			"client_secret": "SECRET-client", "refresh_token": "1//SECRET-refresh", "token_uri": tokenURI}
	}
	return []urlFixture{
		{"authorized_user", "token_uri", func(b string) map[string]any { return user(b + "/token") }},
		{"service_account", "token_uri", func(b string) map[string]any {
			return map[string]any{"type": "service_account", "client_email": "sa@p.iam.gserviceaccount.com",
				"private_key": key, "token_uri": b + "/token", "auth_uri": "https://accounts.google.com/o/oauth2/auth"}
		}},
		{"external_account STS", "token_url", func(b string) map[string]any { return ext(map[string]any{"token_url": b + "/sts"}) }},
		{"external_account impersonation", "service_account_impersonation_url", func(b string) map[string]any {
			return ext(map[string]any{"service_account_impersonation_url": b + "/v1/projects/-/serviceAccounts/sa@p.iam.gserviceaccount.com:generateAccessToken"})
		}},
		{"external_account url source", "credential_source.url", func(b string) map[string]any {
			return ext(map[string]any{"credential_source": map[string]any{"url": b + "/subject",
				"headers": map[string]any{"Metadata-Flavor": "Google"}}})
		}},
		{"external_account token_info_url", "token_info_url", func(b string) map[string]any {
			return ext(map[string]any{"token_info_url": b + "/introspect"})
		}},
		{"external_account_authorized_user", "token_url", func(b string) map[string]any {
			return map[string]any{"type": "external_account_authorized_user",
				"audience": "//iam.googleapis.com/locations/global/workforcePools/p/providers/q", "client_id": "c",
				"client_secret": "SECRET-client", "refresh_token": "SECRET-refresh", "token_url": b + "/sts",
				"token_info_url": "https://sts.googleapis.com/v1/introspect", "revoke_url": "https://sts.googleapis.com/v1/revoke"}
		}},
		{"impersonated source credentials", "source_credentials.token_uri", func(b string) map[string]any {
			return map[string]any{"type": "impersonated_service_account",
				"service_account_impersonation_url": "https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/sa@p.iam.gserviceaccount.com:generateAccessToken",
				"source_credentials":                user(b + "/token")}
		}},
		{"impersonated IAM", "service_account_impersonation_url", func(b string) map[string]any {
			return map[string]any{"type": "impersonated_service_account",
				"service_account_impersonation_url": b + "/v1/projects/-/serviceAccounts/sa@p.iam.gserviceaccount.com:generateAccessToken",
				"source_credentials":                user("https://oauth2.googleapis.com/token")}
		}},
	}
}

// Every URL a credentials file names — whichever way the file is
// found (--credentials, GOOGLE_APPLICATION_CREDENTIALS, $CLOUDSDK_CONFIG,
// the well-known file under $HOME) — is https, or plain http to loopback.
// Anything else is refused by New with one line naming the file and the
// field, and the token HTTP client is never called. The same file with a
// loopback endpoint is accepted, so the refusal is about the URL.
func TestCredentialFileURLsOnlyOverTLS(t *testing.T) {
	subject := filepath.Join(t.TempDir(), "subject.jwt")
	if err := os.WriteFile(subject, []byte("SECRET-subject-token"), 0o600); err != nil {
		t.Fatal(err)
	}
	ts := authtest.NewTokenServer(t)
	for _, fx := range urlFixtures(t, subject) {
		for _, via := range []string{"--credentials", fromEnvADC, fromCloudSDKConfig, fromHomeGcloud} {
			t.Run(fx.name+" via "+via, func(t *testing.T) {
				env := newEnv(t)
				load := func(base string) (*Credentials, string, *refusingRT, error) {
					rt := &refusingRT{}
					o := env.opts()
					o.HTTPClient = &http.Client{Transport: rt}
					var path string
					switch via {
					case "--credentials":
						path = authtest.WriteJSON(t, t.TempDir(), "creds.json", fx.file(base))
						o.CredentialsFile = path
					case fromEnvADC:
						path = authtest.WriteJSON(t, t.TempDir(), "adc.json", fx.file(base))
						env.set(fromEnvADC, path)
					case fromCloudSDKConfig:
						dir := t.TempDir()
						path = authtest.WriteJSON(t, dir, adcFileName, fx.file(base))
						env.set("CLOUDSDK_CONFIG", dir)
					default:
						path = authtest.WriteJSON(t, filepath.Join(env.home, ".config", "gcloud"), adcFileName, fx.file(base))
					}
					c, err := New(context.Background(), o)
					return c, path, rt, err
				}
				for _, bad := range []string{"http://203.0.113.7", "http://localhost.", "ftp://127.0.0.1", "oauth2.googleapis.com"} {
					c, path, rt, err := load(bad)
					var ae *Error
					if !errors.As(err, &ae) || ae.Kind != KindMalformedFile {
						t.Fatalf("%s: New = %v, %v; want a malformed-file error", bad, c, err)
					}
					line := ae.Error() + "; fix: " + ae.Fix
					if !strings.Contains(ae.Error(), path) || !strings.Contains(ae.Error(), " "+fx.field+" ") ||
						!strings.Contains(ae.Fix, fx.field) || strings.ContainsAny(line, "\r\n") {
						t.Errorf("%s: the error does not name the file and the field on one line: %q", bad, line)
					}
					if bad == "http://203.0.113.7" && !strings.Contains(ae.Error(), "plain http to a host that is not loopback") {
						t.Errorf("%s: %q does not say why", bad, ae.Error())
					}
					if head, _ := Explain(err, nil); head != ae.Error() {
						t.Errorf("Explain headline %q", head)
					}
					if n := rt.n.Load(); n != 0 {
						t.Errorf("%s: %d request(s) reached the token HTTP client", bad, n)
					}
					assertNoSecrets(t, line)
				}
				for _, good := range []string{ts.URL, strings.Replace(ts.URL, "127.0.0.1", "localhost", 1), "https://oauth2.googleapis.com"} {
					if _, _, rt, err := load(good); err != nil || rt.n.Load() != 0 {
						t.Errorf("%s: New = %v (%d requests); a loopback or https endpoint is accepted and New sends nothing", good, err, rt.n.Load())
					}
				}
			})
		}
	}
}

// The last guard sits in the token HTTP client itself: a request to a URL
// no file field named (one a library built) that is plain http to another
// host, or not http at all, is refused before it reaches the transport;
// https and loopback http pass.
func TestTokenClientRefusesPlainHTTP(t *testing.T) {
	rt := &refusingRT{}
	tap := &secretTap{base: rt}
	for _, u := range []string{"http://203.0.113.7/token", "http://localhost./token", "ftp://127.0.0.1/token", "HTTP://10.1.2.3:80/x"} {
		req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader("client_secret=SECRET-client"))
		_, err := tap.RoundTrip(req)
		if err == nil {
			t.Errorf("%s: sent", u)
		}
		if rt.n.Load() != 0 {
			t.Fatalf("%s reached the transport", u)
		}
		ae := (&Credentials{}).tokenError(err, &loaded{path: "/c.json"})
		if ae.Transient() || !strings.HasPrefix(ae.Detail, "refused to send credentials") || !strings.Contains(ae.Fix, "/c.json") {
			t.Errorf("%s: %q / %q (transient %v)", u, ae.Detail, ae.Fix, ae.Transient())
		}
	}
	for _, u := range []string{"https://203.0.113.7/token", "http://127.0.0.1:9/token", "http://[::1]:9/token", "http://LocalHost:9/token"} {
		req, _ := http.NewRequest(http.MethodPost, u, nil)
		before := rt.n.Load()
		_, _ = tap.RoundTrip(req)
		if rt.n.Load() != before+1 {
			t.Errorf("%s was refused", u)
		}
	}
}

// invalidGrantFixtures are credentials of every kind whose every token
// endpoint is ts.
func invalidGrantFixtures(t *testing.T, ts *authtest.TokenServer, subject string) map[string]map[string]any {
	user := map[string]any{"type": "authorized_user", "client_id": "c", "client_secret": "SECRET-client",
		"refresh_token": "1//SECRET-refresh", "token_uri": ts.URL + "/token"}
	return map[string]map[string]any{
		"authorized_user": user,
		"service_account": {"type": "service_account", "client_email": "sa@p.iam.gserviceaccount.com",
			"private_key": testKey(t), "token_uri": ts.URL + "/token"},
		"external_account": {"type": "external_account",
			"audience":           "//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/q",
			"subject_token_type": "urn:ietf:params:oauth:token-type:jwt", "token_url": ts.URL + "/sts",
			"credential_source": map[string]any{"file": subject}},
		"external_account_authorized_user": {"type": "external_account_authorized_user",
			"audience":  "//iam.googleapis.com/locations/global/workforcePools/p/providers/q",
			"client_id": "c", "client_secret": "SECRET-client", "refresh_token": "SECRET-refresh",
			"token_url": ts.URL + "/sts", "token_info_url": ts.URL + "/info"},
		"impersonated_service_account": {"type": "impersonated_service_account",
			"service_account_impersonation_url": ts.URL + "/v1/projects/-/serviceAccounts/sa@p.iam.gserviceaccount.com:generateAccessToken",
			"source_credentials":                user},
	}
}

// invalid_grant (HTTP 400) is final for every kind of
// credentials, whichever library path reports it (a parsed RetrieveError,
// the JWT flow's unparsed one, STS's "status code 400: {…}" text, an
// impersonation's flattened source error): one request to the token
// endpoint, however many requests follow, and none is called transient.
// A 503 from the same endpoints stays transient and is tried again.
func TestInvalidGrantIsFinal(t *testing.T) {
	subject := filepath.Join(t.TempDir(), "subject.jwt")
	if err := os.WriteFile(subject, []byte("SECRET-subject-token"), 0o600); err != nil {
		t.Fatal(err)
	}
	ts := authtest.NewTokenServer(t)
	api := authtest.NewAPIServer(t)
	for name, file := range invalidGrantFixtures(t, ts, subject) {
		t.Run(name, func(t *testing.T) {
			env := newEnv(t)
			o := env.opts()
			o.CredentialsFile = authtest.WriteJSON(t, t.TempDir(), "creds.json", file)
			ts.Hits.Store(0)
			ts.SetReply(func(w http.ResponseWriter, _ *http.Request, _ int64) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprint(w, `{"error":"invalid_grant","error_description":"Bad Request"}`)
			})
			c, err := New(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 4 {
				ae := requestError(t, c, api.URL)
				if ae.Kind != KindReauthRequired || ae.Transient() || !strings.Contains(ae.Error(), "invalid_grant") {
					t.Errorf("request %d: %q (kind %q, transient %v)", i, ae.Error(), ae.Kind, ae.Transient())
				}
				assertNoSecrets(t, ae.Error()+ae.Fix)
			}
			if c.ForceRefresh(context.Background()) {
				t.Errorf("ForceRefresh = true after invalid_grant")
			}
			if n := ts.Hits.Load(); n != 1 {
				t.Errorf("token endpoint hit %d times, want 1", n)
			}

			ts.Hits.Store(0)
			ts.SetReply(func(w http.ResponseWriter, _ *http.Request, _ int64) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusServiceUnavailable)
				fmt.Fprint(w, `{"error":"temporarily_unavailable"}`)
			})
			o.CredentialsFile = authtest.WriteJSON(t, t.TempDir(), "creds.json", file)
			c, err = New(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if ae := requestError(t, c, api.URL); !ae.Transient() || ae.Kind != KindTokenFetch {
					t.Errorf("503: %q (kind %q, transient %v), want a transient token fetch failure", ae.Error(), ae.Kind, ae.Transient())
				}
			}
			if n := ts.Hits.Load(); n < 2 {
				t.Errorf("503: token endpoint hit %d times; a transient failure is tried again", n)
			}
			ts.SetReply(nil)
		})
	}
}

// A service account's JWT refused as not "in a reasonable
// timeframe" says the clock may be skewed, by how much when the token
// endpoint's Date shows it, with a fix about the clock; it is final too.
func TestInvalidJWTNamesTheClock(t *testing.T) {
	const desc = "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."
	for _, tc := range []struct {
		name   string
		offset time.Duration // the endpoint's Date minus this machine's clock
		want   string
	}{
		{"two hours ahead", -2 * time.Hour, "this machine's clock is 2h0m0s ahead of the token endpoint's; "},
		{"ten minutes behind", 10 * time.Minute, "this machine's clock is 10m0s behind the token endpoint's; "},
		{"no visible skew", 0, "this machine's clock may be skewed; "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t)
			clock := colabfake.NewClock(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
			ts := authtest.NewTokenServer(t)
			ts.SetReply(func(w http.ResponseWriter, _ *http.Request, _ int64) {
				w.Header().Set("Date", clock.Now().Add(tc.offset).Format(http.TimeFormat))
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprintf(w, `{"error":"invalid_grant","error_description":%q}`, desc)
			})
			api := authtest.NewAPIServer(t)
			o := env.opts()
			o.Now = clock.Now
			o.CredentialsFile = authtest.WriteJSON(t, t.TempDir(), "sa.json", map[string]any{"type": "service_account",
				"client_email": "sa@p.iam.gserviceaccount.com", "private_key": testKey(t), "token_uri": ts.URL + "/token"})
			c, err := New(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			for range 3 {
				ae := requestError(t, c, api.URL)
				want := "clock skew suspected: " + tc.want + "the token endpoint answered invalid_grant (" + desc + ")"
				if ae.Kind != KindClockSkew || ae.Transient() || !strings.HasPrefix(ae.Error(), want) || ae.Fix != clockFix {
					t.Errorf("got %q / %q\nwant %q…", ae.Error(), ae.Fix, want)
				}
			}
			if n := ts.Hits.Load(); n != 1 {
				t.Errorf("token endpoint hit %d times, want 1", n)
			}
		})
	}
}
