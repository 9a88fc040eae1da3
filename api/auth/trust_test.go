package auth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/auth/authtest"
	"github.com/colabdash/colabdash/api/safefile/safefiletest"
)

// Distinctive secrets: no "ya29." prefix and no "Bearer" before them, so
// only registration (or redaction by key) can catch them.
const (
	trustClientSecret = "CSk9Qw2ZrT7bHy"
	trustRefreshToken = "1//RTm4Xp8Lq2VnGs"
	trustMinted       = "ATz5Jc3Nw8RkPd"
)

// leaked returns the 8-byte pieces of the secrets found in text: a secret
// cut short is still a leak.
func leaked(text string, secrets ...string) []string {
	var out []string
	for _, s := range secrets {
		for i := 0; i+8 <= len(s); i++ {
			if strings.Contains(text, s[i:i+8]) {
				out = append(out, s[i:i+8])
				break
			}
		}
	}
	return out
}

func trustUser(tokenURI string) map[string]string {
	return map[string]string{"type": "authorized_user", "client_id": "cid.apps.googleusercontent.com",
		"client_secret": trustClientSecret, "refresh_token": trustRefreshToken, "token_uri": tokenURI}
}

// trustCreds is the credentials of o with a credentials file for an
// authorized user whose token endpoint is tokenURI (trustUser); New's
// failure fails the test.
func trustCreds(t *testing.T, o Options, tokenURI string) *Credentials {
	t.Helper()
	o.CredentialsFile = authtest.WriteJSON(t, t.TempDir(), "creds.json", trustUser(tokenURI))
	c, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// requestError sends one request through c and returns the *Error it
// failed with.
func requestError(t *testing.T, c *Credentials, url string) *Error {
	t.Helper()
	_, err := get(t, c, url)
	var ae *Error
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v (%T), want an *auth.Error", err, err)
	}
	return ae
}

// Every secret is known to the Redactor from the moment it is learnt: the
// file's client secret and refresh token when it is read, the access token
// when it is minted, a token file's token when it is read.
func TestSecretsRegisteredWhenLearnt(t *testing.T) {
	env := newEnv(t)
	ts := authtest.NewTokenServer(t)
	ts.SetReply(func(w http.ResponseWriter, r *http.Request, n int64) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"access_token":%q,"token_type":"Bearer","expires_in":3600,"id_token":"IDTk7Hb2Xq9Wm"}`, trustMinted)
	})
	srv := authtest.NewAPIServer(t)
	red := &api.Redactor{}
	o := env.opts()
	o.Redactor = red
	c := trustCreds(t, o, ts.URL+"/token")
	probe := func() string {
		return red.Redact(strings.Join([]string{trustClientSecret, trustRefreshToken, trustMinted, "IDTk7Hb2Xq9Wm"}, " "))
	}
	if l := leaked(probe(), trustClientSecret, trustRefreshToken); len(l) > 0 {
		t.Errorf("after reading the file, not registered: %q", l)
	}
	if code, err := get(t, c, srv.URL); err != nil || code != 200 {
		t.Fatal(code, err)
	}
	if l := leaked(probe(), trustMinted, "IDTk7Hb2Xq9Wm"); len(l) > 0 {
		t.Errorf("after minting, not registered: %q", l)
	}

	red2 := &api.Redactor{}
	o2 := env.opts()
	o2.Redactor = red2
	o2.AccessTokenFile = authtest.WriteFile(t, t.TempDir(), "tok", "STATICq8Zw3Lk\n")
	if _, err := New(context.Background(), o2); err != nil {
		t.Fatal(err)
	}
	if got := red2.Redact("x STATICq8Zw3Lk"); got != "x "+api.Redacted {
		t.Errorf("token file's token not registered: %q", got)
	}
}

// A token endpoint that echoes its request body (form or
// JSON) into its errors. No 8-byte piece of the client secret or refresh
// token reaches the error, its fix, or Explain.
func TestTokenEndpointEchoIsRedacted(t *testing.T) {
	for name, reply := range map[string]func(w http.ResponseWriter, body string){
		"oauth error, form echo": func(w http.ResponseWriter, body string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(400)
			fmt.Fprintf(w, `{"error":"invalid_request","error_description":"cannot parse %s"}`, body)
		},
		"oauth error, JSON echo": func(w http.ResponseWriter, body string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(401)
			fmt.Fprintf(w, `{"error":"invalid_client","error_description":"got {\"client_secret\":\"%s\",\"refresh_token\":\"%s\"}"}`, trustClientSecret, trustRefreshToken)
		},
		"plain 500 echo": func(w http.ResponseWriter, body string) {
			w.WriteHeader(500)
			io.WriteString(w, "internal error while handling "+body)
		},
		"error code is the secret": func(w http.ResponseWriter, body string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(400)
			fmt.Fprintf(w, `{"error":"bad %s","error_description":"%s"}`, trustRefreshToken, trustClientSecret)
		},
	} {
		t.Run(name, func(t *testing.T) {
			env := newEnv(t)
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				reply(w, string(b))
			}))
			defer ts.Close()
			o := env.opts()
			o.Redactor = &api.Redactor{}
			c := trustCreds(t, o, ts.URL+"/token")
			ae := requestError(t, c, authtest.NewAPIServer(t).URL)
			head, fix := Explain(ae, c)
			all := ae.Error() + "\n" + ae.Fix + "\n" + head + "\n" + fix
			if l := leaked(all, trustClientSecret, trustRefreshToken); len(l) > 0 {
				t.Errorf("leaked %q in:\n%s", l, all)
			}
		})
	}
}

// For token endpoints: a redirect to another origin is
// refused; the form body with the client secret goes nowhere else.
func TestTokenEndpointRedirectRefused(t *testing.T) {
	env := newEnv(t)
	var mu sync.Mutex
	var got []string
	rec := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, r.Header.Get("Authorization")+" "+string(b))
		mu.Unlock()
	}))
	defer rec.Close()
	other := strings.Replace(rec.URL, "127.0.0.1", "localhost", 1)
	redir := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer redir.Close()
	o := env.opts()
	c := trustCreds(t, o, redir.URL+"/token")
	ae := requestError(t, c, authtest.NewAPIServer(t).URL)
	if !strings.Contains(ae.Error(), redir.URL+"/token") || !strings.Contains(ae.Error(), other+"/token") {
		t.Errorf("error %q should name both URLs", ae)
	}
	if strings.Contains(ae.Fix, "check the network") {
		t.Errorf("fix %q", ae.Fix)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 0 {
		t.Errorf("the other origin received %q", got)
	}
}

// iamServer is a loopback IAM generateAccessToken endpoint.
func iamServer(t *testing.T, h http.HandlerFunc) *httptest.Server {
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

const trustSA = "colab-runner@sa-proj.iam.gserviceaccount.com"

func impersonatedFile(t *testing.T, tokenURI, iamURL string) string {
	return authtest.WriteJSON(t, t.TempDir(), "imp.json", map[string]any{
		"type":                              "impersonated_service_account",
		"service_account_impersonation_url": iamURL + "/v1/projects/-/serviceAccounts/" + trustSA + ":generateAccessToken",
		"source_credentials":                trustUser(tokenURI),
	})
}

// IAM answers 403 to generateAccessToken. The error names
// the service account; the fix names the role; nothing says "network";
// the source access token IAM echoes is redacted.
func TestImpersonationDeniedNamesAccountAndRole(t *testing.T) {
	env := newEnv(t)
	ts := authtest.NewTokenServer(t)
	ts.SetReply(func(w http.ResponseWriter, r *http.Request, n int64) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"access_token":"SRCq4Rt7Yp2Kx","token_type":"Bearer","expires_in":3600}`)
	})
	iam := iamServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(403)
		fmt.Fprintf(w, `{"error":{"code":403,"message":"Permission 'iam.serviceAccounts.getAccessToken' denied on resource (or it may not exist). Caller: %s","status":"PERMISSION_DENIED","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"IAM_PERMISSION_DENIED","domain":"iam.googleapis.com"}]}}`,
			r.Header.Get("Authorization"))
	})
	o := env.opts()
	o.Redactor = &api.Redactor{}
	o.CredentialsFile = impersonatedFile(t, ts.URL+"/token", iam.URL)
	c, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	ae := requestError(t, c, authtest.NewAPIServer(t).URL)
	if !strings.Contains(ae.Error(), trustSA) || !strings.Contains(ae.Error(), "PERMISSION_DENIED") {
		t.Errorf("Error() = %q, want the service account and PERMISSION_DENIED", ae.Error())
	}
	if !strings.Contains(ae.Fix, TokenCreatorRole) || !strings.Contains(ae.Fix, trustSA) || strings.Contains(ae.Fix, "check the network") {
		t.Errorf("Fix = %q", ae.Fix)
	}
	if l := leaked(ae.Error()+ae.Fix, "SRCq4Rt7Yp2Kx", trustClientSecret, trustRefreshToken); len(l) > 0 {
		t.Errorf("leaked %q: %s", l, ae.Error())
	}
	if ae.Transient() {
		t.Error("a denied impersonation is reported as transient (it would be retried)")
	}
}

// Only a failure to reach the token endpoint (or its 5xx) is transient.
func TestTokenEndpointUnreachableIsTransient(t *testing.T) {
	env := newEnv(t)
	dead := httptest.NewServer(http.NotFoundHandler())
	url := dead.URL
	dead.Close()
	o := env.opts()
	c := trustCreds(t, o, url+"/token")
	if ae := requestError(t, c, authtest.NewAPIServer(t).URL); !ae.Transient() || !strings.Contains(ae.Fix, "check the network") {
		t.Errorf("unreachable token endpoint: transient %v, fix %q", ae.Transient(), ae.Fix)
	}
}

// Impersonation's IAM call never follows a redirect with the source token.
func TestImpersonationRedirectCarriesNoToken(t *testing.T) {
	env := newEnv(t)
	ts := authtest.NewTokenServer(t)
	var mu sync.Mutex
	var auth []string
	rec := iamServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
	})
	iam := iamServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, rec.URL+r.URL.Path, http.StatusTemporaryRedirect)
	})
	o := env.opts()
	o.CredentialsFile = impersonatedFile(t, ts.URL+"/token", iam.URL)
	c, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	ae := requestError(t, c, authtest.NewAPIServer(t).URL)
	if !strings.Contains(ae.Error(), "refused a redirect") {
		t.Errorf("Error() = %q", ae.Error())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(auth) != 0 {
		t.Errorf("the other origin received Authorization %q", auth)
	}
}

// An external_account file with an executable source, and
// GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES unset: the fix says to set it.
func TestExternalAccountExecutableNeedsEnv(t *testing.T) {
	env := newEnv(t)
	t.Setenv(envAllowExecutables, "")
	sts := authtest.NewTokenServer(t)
	o := env.opts()
	o.CredentialsFile = authtest.WriteJSON(t, t.TempDir(), "ext.json", map[string]any{
		"type":               "external_account",
		"audience":           "//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/x",
		"subject_token_type": "urn:ietf:params:oauth:token-type:jwt",
		"token_url":          sts.URL + "/v1/token",
		"credential_source":  map[string]any{"executable": map[string]any{"command": "/bin/true", "timeout_millis": 5000}},
	})
	c, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	ae := requestError(t, c, authtest.NewAPIServer(t).URL)
	if !strings.Contains(ae.Fix, "set GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES=1") || strings.Contains(ae.Fix, "check the network") {
		t.Errorf("Fix = %q", ae.Fix)
	}
	if sts.Hits.Load() != 0 {
		t.Errorf("the STS endpoint was called")
	}
}

// For the token endpoint: an untrusted certificate says so
// and names SSL_CERT_FILE.
func TestTokenEndpointUntrustedCertificate(t *testing.T) {
	env := newEnv(t)
	tlsSrv := httptest.NewUnstartedServer(http.NotFoundHandler())
	tlsSrv.Config.ErrorLog = log.New(io.Discard, "", 0)
	tlsSrv.StartTLS()
	defer tlsSrv.Close()
	o := env.opts()
	c := trustCreds(t, o, tlsSrv.URL+"/token")
	ae := requestError(t, c, authtest.NewAPIServer(t).URL)
	if !strings.Contains(ae.Error(), "certificate not trusted") || !strings.Contains(ae.Fix, "SSL_CERT_FILE") || strings.Contains(ae.Fix, "check the network") {
		t.Errorf("Error() = %q, Fix = %q", ae.Error(), ae.Fix)
	}
}

// Credentials and token files that never end, or are not
// files, fail at once with an error naming the file.
func TestInputFilesAreBounded(t *testing.T) {
	env := newEnv(t)
	dir := t.TempDir()
	zero := safefiletest.EndlessLink(t, dir, "zero.json")
	fifo := safefiletest.FIFO(t, dir, "fifo")
	big := authtest.WriteFile(t, dir, "big.json", `{"type":"authorized_user","x":"`+strings.Repeat("a", 2<<20)+`"}`)
	bigTok := authtest.WriteFile(t, dir, "big.tok", strings.Repeat("a", 10<<20))
	for _, c := range []struct {
		name, creds, token, want string
		want2                    string
	}{
		{"credentials → /dev/zero", zero, "", zero + " (from --credentials): is a character device, not a regular file", "(a link to /dev/zero)"},
		{"token file → /dev/zero", "", zero, "access token file " + zero + " (from --access-token-file): is a character device", "/dev/zero"},
		{"credentials FIFO", fifo, "", fifo + " (from --credentials): is a FIFO", "not a regular file"},
		{"2 MiB credentials", big, "", big + " (from --credentials): is 2097", "more than the 1 MiB allowed"},
		{"10 MB token file", "", bigTok, bigTok + " (from --access-token-file): is 10485760 bytes", "more than the 64 KiB allowed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := env.opts()
			o.CredentialsFile, o.AccessTokenFile = c.creds, c.token
			start := time.Now()
			_, err := New(context.Background(), o)
			var ae *Error
			if !errors.As(err, &ae) || ae.Kind != KindUnreadableFile {
				t.Fatalf("err = %v, want KindUnreadableFile", err)
			}
			if !strings.Contains(ae.Error(), c.want) || !strings.Contains(ae.Error(), c.want2) {
				t.Errorf("Error() = %q\nwant it to contain %q and %q", ae.Error(), c.want, c.want2)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
	// ADC found through GOOGLE_APPLICATION_CREDENTIALS is read the same way.
	env.set("GOOGLE_APPLICATION_CREDENTIALS", zero)
	_, err := New(context.Background(), env.opts())
	if err == nil || !strings.Contains(err.Error(), "/dev/zero") {
		t.Errorf("ADC: err = %v", err)
	}
}
