package auth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/auth/authtest"
	"github.com/colabdash/colabdash/api/colabfake/testkit"
	"github.com/colabdash/colabdash/api/secrettest"
)

// ADC authorized_user via GOOGLE_APPLICATION_CREDENTIALS, loopback token_uri:
// the API request carries the minted bearer token, the file's quota project
// and the client agent; the token is cached.
func TestADCAuthorizedUserFromEnv(t *testing.T) {
	env := newEnv(t)
	ts := authtest.NewTokenServer(t)
	api := authtest.NewAPIServer(t)
	path := env.useADC(ts, map[string]string{"quota_project_id": "file-proj"})

	c, err := New(context.Background(), env.opts())
	if err != nil {
		t.Fatal(err)
	}
	if ts.Hits.Load() != 0 {
		t.Fatalf("New fetched a token; want lazy minting")
	}
	for i := 0; i < 2; i++ {
		if code, err := get(t, c, api.URL); err != nil || code != 200 {
			t.Fatalf("request %d: %d %v", i, code, err)
		}
	}
	h := api.Last()
	if got := h.Get("Authorization"); got != "Bearer ya29.minted-1" {
		t.Errorf("Authorization = %q, want the minted token", got)
	}
	if got := h.Get("X-Goog-User-Project"); got != "file-proj" {
		t.Errorf("x-goog-user-project = %q, want file-proj", got)
	}
	if got := h.Get("X-Colab-Client-Agent"); got != "colabdash" {
		t.Errorf("X-Colab-Client-Agent = %q", got)
	}
	if n := ts.Hits.Load(); n != 1 {
		t.Errorf("token endpoint hit %d times for 2 requests, want 1 (cached)", n)
	}
	if f := ts.LastForm(); f["grant_type"] != "refresh_token" || f["refresh_token"] != "1//SECRET-refresh" {
		t.Errorf("token request form = %v", f)
	}
	d := c.Describe()
	want := "ADC from GOOGLE_APPLICATION_CREDENTIALS (" + path + ", authorized_user), quota project file-proj from " + path
	if d != want {
		t.Errorf("Describe() = %q\nwant        %q", d, want)
	}
	assertNoSecrets(t, d)
}

// The caller's request is never modified: headers go on a clone.
func TestTransportDoesNotMutateRequest(t *testing.T) {
	env := newEnv(t)
	tok := authtest.WriteFile(t, t.TempDir(), "tok", "ya29.static\n")
	api := authtest.NewAPIServer(t)
	o := env.opts()
	o.AccessTokenFile = tok
	o.QuotaProject = "p"
	c, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, api.URL, nil)
	req.Header.Set("X-Mine", "1")
	resp, err := c.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(req.Header) != 1 || req.Header.Get("Authorization") != "" || req.Header.Get("X-Goog-User-Project") != "" {
		t.Errorf("caller's request headers changed: %v", req.Header)
	}
	if api.Last().Get("X-Mine") != "1" {
		t.Errorf("caller's own header was not sent")
	}
}

// A service_account key (generated here) via --credentials mints with the
// jwt-bearer grant and asks for the Colab scope.
func TestServiceAccountCredentialsFlag(t *testing.T) {
	env := newEnv(t)
	ts := authtest.NewTokenServer(t)
	api := authtest.NewAPIServer(t)
	pemKey := testKey(t)
	path := authtest.WriteJSON(t, t.TempDir(), "sa.json", map[string]string{
		"type": "service_account", "project_id": "sa-proj", "private_key_id": "kid1",
		"private_key": pemKey, "client_email": "dash@sa-proj.iam.gserviceaccount.com",
		"token_uri": ts.URL + "/token",
	})
	// An ADC env var that would fail proves --credentials wins.
	env.set("GOOGLE_APPLICATION_CREDENTIALS", "/nonexistent.json")
	o := env.opts()
	o.CredentialsFile = path
	c, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if code, err := get(t, c, api.URL); err != nil || code != 200 {
		t.Fatalf("%d %v", code, err)
	}
	if got := api.Last().Get("Authorization"); got != "Bearer ya29.minted-1" {
		t.Errorf("Authorization = %q", got)
	}
	if got := api.Last().Get("X-Goog-User-Project"); got != "" {
		t.Errorf("x-goog-user-project = %q, want none", got)
	}
	f := ts.LastForm()
	if f["grant_type"] != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
		t.Fatalf("grant_type = %q", f["grant_type"])
	}
	parts := strings.Split(f["assertion"], ".")
	if len(parts) != 3 {
		t.Fatalf("assertion is not a JWT")
	}
	claims, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var cl struct{ Scope, Iss string }
	_ = json.Unmarshal(claims, &cl)
	if cl.Scope != ColabScope || cl.Iss != "dash@sa-proj.iam.gserviceaccount.com" {
		t.Errorf("JWT claims scope=%q iss=%q", cl.Scope, cl.Iss)
	}
	if d := c.Describe(); d != "credentials file "+path+" (service_account dash@sa-proj.iam.gserviceaccount.com), no quota project" {
		t.Errorf("Describe() = %q", d)
	}
	assertNoSecrets(t, c.Describe())
	if strings.Contains(c.Describe(), "PRIVATE KEY") {
		t.Errorf("Describe leaks the key")
	}
}

// --access-token-file: trimmed contents as the bearer token, re-read when
// the file changes; ForceRefresh cannot help an unchanged static token.
func TestAccessTokenFile(t *testing.T) {
	env := newEnv(t)
	api := authtest.NewAPIServer(t)
	api.Gate(func(tok string) bool { return tok == "ya29.second" }, nil)
	path := authtest.WriteFile(t, t.TempDir(), "token", "  ya29.first\n")
	o := env.opts()
	o.AccessTokenFile = path
	o.CredentialsFile = "/nonexistent.json" // the token file wins
	c, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := get(t, c, api.URL); code != 401 {
		t.Fatalf("status %d, want 401 for the first token", code)
	}
	if got := api.Last().Get("Authorization"); got != "Bearer ya29.first" {
		t.Errorf("Authorization = %q", got)
	}
	if c.ForceRefresh(context.Background()) {
		t.Errorf("ForceRefresh = true for an unchanged access token file")
	}
	authtest.Rewrite(t, path, "ya29.second\n")
	if !c.ForceRefresh(context.Background()) {
		t.Errorf("ForceRefresh = false after the token file changed")
	}
	if code, err := get(t, c, api.URL); code != 200 {
		t.Fatalf("after rewrite: %d %v", code, err)
	}
	if got := api.Last().Get("Authorization"); got != "Bearer ya29.second" {
		t.Errorf("Authorization = %q after rewrite", got)
	}
	if c.Type() != "access_token" || !strings.HasPrefix(c.Describe(), "access token file "+path) {
		t.Errorf("Type %q Describe %q", c.Type(), c.Describe())
	}
	if strings.Contains(c.Describe(), "ya29") {
		t.Errorf("Describe leaks the token: %q", c.Describe())
	}
}

// Quota project precedence flag > env > file, with the header
// that goes out and where Describe says it came from.
func TestQuotaProjectPrecedence(t *testing.T) {
	for _, tc := range []struct {
		name, flag, env, want, from string
	}{
		{"flag", "flag-proj", "my-proj", "flag-proj", "--quota-project"},
		{"env", "", "my-proj", "my-proj", "GOOGLE_CLOUD_QUOTA_PROJECT"},
		{"file", "", "", "file-proj", "FILE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t)
			ts := authtest.NewTokenServer(t)
			api := authtest.NewAPIServer(t)
			path := authtest.WriteJSON(t, filepath.Join(env.home, ".config", "gcloud"), adcFileName,
				authorizedUser(ts, map[string]string{"quota_project_id": "file-proj"}))
			env.set("GOOGLE_CLOUD_QUOTA_PROJECT", tc.env)
			o := env.opts()
			o.QuotaProject = tc.flag
			c, err := New(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := get(t, c, api.URL); err != nil {
				t.Fatal(err)
			}
			if got := api.Last().Get("X-Goog-User-Project"); got != tc.want {
				t.Errorf("x-goog-user-project = %q, want %q", got, tc.want)
			}
			from := strings.ReplaceAll(tc.from, "FILE", path)
			if p, f := c.QuotaProject(); p != tc.want || f != from {
				t.Errorf("QuotaProject() = %q, %q; want %q, %q", p, f, tc.want, from)
			}
			if !strings.HasSuffix(c.Describe(), "quota project "+tc.want+" from "+from) {
				t.Errorf("Describe() = %q", c.Describe())
			}
		})
	}
}

// gcloud's config in $CLOUDSDK_CONFIG wins over $HOME's
// (golang.org/x/oauth2 alone ignores CLOUDSDK_CONFIG).
func TestCloudSDKConfig(t *testing.T) {
	env := newEnv(t)
	ts := authtest.NewTokenServer(t)
	api := authtest.NewAPIServer(t)
	authtest.WriteJSON(t, filepath.Join(env.home, ".config", "gcloud"), adcFileName,
		authorizedUser(ts, map[string]string{"refresh_token": "home-refresh"}))
	gc := filepath.Join(t.TempDir(), "gc")
	path := authtest.WriteJSON(t, gc, adcFileName, authorizedUser(ts, map[string]string{"refresh_token": "sdk-refresh"}))
	env.set("CLOUDSDK_CONFIG", gc)
	c, err := New(context.Background(), env.opts())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := get(t, c, api.URL); err != nil {
		t.Fatal(err)
	}
	if got := ts.LastForm()["refresh_token"]; got != "sdk-refresh" {
		t.Errorf("minted with refresh token %q, want the CLOUDSDK_CONFIG file's", got)
	}
	if c.Path() != path || !strings.Contains(c.Describe(), path) {
		t.Errorf("Path %q Describe %q, want %s", c.Path(), c.Describe(), path)
	}
	// gcloud rewrites this file itself, so the fix is just the login.
	if _, fix := Explain(apiErr401(), c); fix != "run `"+LoginCommand+"`" {
		t.Errorf("fix for a 401 = %q", fix)
	}

	// With CLOUDSDK_CONFIG set but empty, $HOME's file is not used (as gcloud).
	env.set("CLOUDSDK_CONFIG", t.TempDir())
	_, err = New(context.Background(), env.opts())
	var ae *Error
	if !errors.As(err, &ae) || ae.Kind != KindNoCredentials {
		t.Fatalf("err = %v, want no credentials", err)
	}
	if !strings.Contains(ae.Error(), env.vars["CLOUDSDK_CONFIG"]) {
		t.Errorf("error does not name the CLOUDSDK_CONFIG path: %s", ae)
	}
}

// Nothing anywhere gives a no-credentials error listing what
// was tried, with the login command, and never reaches the metadata server
// (guardMetadata fails the test if it is probed).
func TestNoCredentials(t *testing.T) {
	t.Run("empty HOME dir", func(t *testing.T) {
		env := newEnv(t)
		_, err := New(context.Background(), env.opts())
		var ae *Error
		if !errors.As(err, &ae) || ae.Kind != KindNoCredentials {
			t.Fatalf("err = %v, want KindNoCredentials", err)
		}
		want := []string{
			"GOOGLE_APPLICATION_CREDENTIALS: not set",
			filepath.Join(env.home, ".config", "gcloud", adcFileName) + ": not found",
			"GCE metadata server: skipped (GCE_METADATA_HOST not set)",
		}
		if strings.Join(ae.Tried, "|") != strings.Join(want, "|") {
			t.Errorf("Tried = %q\nwant    %q", ae.Tried, want)
		}
		if !strings.Contains(ae.Fix, LoginCommand) {
			t.Errorf("Fix = %q, want the login command", ae.Fix)
		}
		if !strings.HasPrefix(err.Error(), "no Google credentials found (tried GOOGLE_APPLICATION_CREDENTIALS: not set; ") {
			t.Errorf("Error() = %q", err)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("Error() is not one line")
		}
	})
	t.Run("HOME unset", func(t *testing.T) {
		env := newEnv(t)
		delete(env.vars, "HOME")
		_, err := New(context.Background(), env.opts())
		if !errors.Is(err, &Error{Kind: KindNoCredentials}) {
			t.Fatalf("err = %v", err)
		}
		if !strings.Contains(err.Error(), "HOME not set") {
			t.Errorf("Error() = %q, want it to say HOME is not set", err)
		}
	})
}

// The metadata server is used when GCE_METADATA_HOST says where it is (here
// a loopback fake), without probing.
func TestMetadataWithHost(t *testing.T) {
	env := newEnv(t)
	md := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Metadata-Flavor") != "Google" || !strings.Contains(r.URL.Path, "/service-accounts/default/token") {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, `{"access_token":"ya29.from-metadata","token_type":"Bearer","expires_in":3600}`)
	}))
	defer md.Close()
	host := strings.TrimPrefix(md.URL, "http://")
	t.Setenv("GCE_METADATA_HOST", host) // read by the metadata library itself
	env.set("GCE_METADATA_HOST", host)
	onGCE = func() bool { t.Errorf("probed although GCE_METADATA_HOST is set"); return false }
	newMetadataSource = realMetadataSource
	api := authtest.NewAPIServer(t)
	c, err := New(context.Background(), env.opts())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := get(t, c, api.URL); err != nil {
		t.Fatal(err)
	}
	if got := api.Last().Get("Authorization"); got != "Bearer ya29.from-metadata" {
		t.Errorf("Authorization = %q", got)
	}
	if c.Type() != "gce_metadata" {
		t.Errorf("Type() = %q", c.Type())
	}
}

var realMetadataSource = newMetadataSource

// A credentials file that is missing, unreadable or malformed (and
// neighbours): each broken file gets its own kind
// and message, naming the file and where its path came from.
func TestBrokenFiles(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name    string
		content *string // nil: do not create
		kind    Kind
		msg     string
	}{
		{"nonexistent", nil, KindMissingFile, "credentials file PATH (from GOOGLE_APPLICATION_CREDENTIALS) does not exist"},
		{"empty-object", ptr("{}"), KindMalformedFile, `credentials file PATH (from GOOGLE_APPLICATION_CREDENTIALS) is not usable: has no "type" field (expected authorized_user or service_account)`},
		{"bad-json", ptr(`{"type": "authorized_user",`), KindMalformedFile, "is not usable: not valid JSON (syntax error at byte 27)"},
		{"array", ptr(`[1]`), KindMalformedFile, "not valid JSON (expected a JSON object, found an array)"},
		{"unknown-type", ptr(`{"type":"weird"}`), KindMalformedFile, `unknown credential type "weird" (supported: authorized_user, service_account`},
		{"no-refresh-token", ptr(`{"type":"authorized_user","client_id":"c","client_secret":"SECRET-x"}`), KindMalformedFile, "authorized_user credentials without refresh_token"},
		{"oauth-client", ptr(`{"installed":{"client_id":"c","client_secret":"SECRET-x"}}`), KindMalformedFile, "this is an OAuth client file, not credentials"},
		{"bad-key", ptr(`{"type":"service_account","client_email":"a@b","private_key":"SECRET-notpem"}`), KindMalformedFile, "is not usable: private_key is not a PEM-encoded PKCS#8 or PKCS#1 key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t)
			path := filepath.Join(dir, tc.name+".json")
			if tc.name == "nonexistent" {
				path = "/nonexistent.json"
			}
			if tc.content != nil {
				authtest.WriteFile(t, dir, tc.name+".json", *tc.content)
			}
			env.set("GOOGLE_APPLICATION_CREDENTIALS", path)
			_, err := New(context.Background(), env.opts())
			var ae *Error
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v (%T), want *Error", err, err)
			}
			if ae.Kind != tc.kind {
				t.Errorf("Kind = %q, want %q", ae.Kind, tc.kind)
			}
			if want := strings.ReplaceAll(tc.msg, "PATH", path); !strings.Contains(ae.Error(), want) {
				t.Errorf("Error() = %q\nwant it to contain %q", ae.Error(), want)
			}
			if ae.Path != path || ae.Fix == "" {
				t.Errorf("Path %q Fix %q", ae.Path, ae.Fix)
			}
			assertNoSecrets(t, ae.Error())
		})
	}
}

// A mode-000 ADC file is "permission denied", not "not
// found" and not a fall-through to other credentials.
func TestUnreadableFile(t *testing.T) {
	env := newEnv(t)
	ts := authtest.NewTokenServer(t)
	path := authtest.WriteJSON(t, filepath.Join(env.home, ".config", "gcloud"), adcFileName, authorizedUser(ts, nil))
	if err := os.Chmod(path, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadFile(path); err == nil {
		// Root reads mode-000 files; simulate what any other user gets.
		old := readFile
		readFile = func(string, int64) ([]byte, error) {
			return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrPermission}
		}
		t.Cleanup(func() { readFile = old })
	}
	_, err := New(context.Background(), env.opts())
	var ae *Error
	if !errors.As(err, &ae) || ae.Kind != KindUnreadableFile {
		t.Fatalf("err = %v, want KindUnreadableFile", err)
	}
	want := "cannot read credentials file " + path + " (from $HOME/.config/gcloud): permission denied"
	if ae.Error() != want {
		t.Errorf("Error() = %q\nwant      %q", ae.Error(), want)
	}
	if ae.Fix != "make it readable by you: `chmod 600 "+path+"` (and check its owner)" {
		t.Errorf("Fix = %q", ae.Fix)
	}
	if !errors.Is(err, fs.ErrPermission) {
		t.Errorf("cause is not fs.ErrPermission")
	}
}

// A directory where a file should be is unreadable, with its own detail.
func TestCredentialsPathIsDirectory(t *testing.T) {
	env := newEnv(t)
	o := env.opts()
	o.CredentialsFile = t.TempDir()
	_, err := New(context.Background(), o)
	var ae *Error
	if !errors.As(err, &ae) || ae.Kind != KindUnreadableFile || !strings.HasSuffix(ae.Error(), ": is a directory") {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(ae.Fix, "--credentials") {
		t.Errorf("Fix = %q", ae.Fix)
	}
}

func ptr(s string) *string { return &s }

// assertNoSecrets fails when s contains any piece of the fake secrets
// used here, or their markers (every fake secret has one).
func assertNoSecrets(t *testing.T, s string) {
	t.Helper()
	secrettest.Check(t, "text", s, "SECRET", "ya29.", "1//", "SECRET-client")
}

// TokenSource shares the cache with the HTTP client.
func TestTokenSourceSharesCache(t *testing.T) {
	env := newEnv(t)
	ts := authtest.NewTokenServer(t)
	api := authtest.NewAPIServer(t)
	env.useADC(ts, nil)
	c, err := New(context.Background(), env.opts())
	if err != nil {
		t.Fatal(err)
	}
	var src oauth2.TokenSource = c.TokenSource()
	tok, err := src.Token()
	if err != nil || tok.AccessToken != "ya29.minted-1" {
		t.Fatalf("Token() = %v, %v", tok, err)
	}
	if _, err := get(t, c, api.URL); err != nil {
		t.Fatal(err)
	}
	if n := ts.Hits.Load(); n != 1 {
		t.Errorf("token endpoint hits = %d, want 1", n)
	}
}

// Options.HTTPClient carries the token fetches (not the API requests).
func TestTokenHTTPClientOption(t *testing.T) {
	env := newEnv(t)
	ts := authtest.NewTokenServer(t)
	api := authtest.NewAPIServer(t)
	env.useADC(ts, nil)
	rt := &testkit.CountingTransport{}
	o := env.opts()
	o.HTTPClient = &http.Client{Transport: rt}
	c, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := get(t, c, api.URL); err != nil {
			t.Fatal(err)
		}
	}
	if n := rt.Requests(); n != 1 {
		t.Errorf("token client used %d times, want 1 (the one token fetch)", n)
	}
}

// New's context ending does not break later token fetches.
func TestNewContextCancelled(t *testing.T) {
	env := newEnv(t)
	ts := authtest.NewTokenServer(t)
	env.useADC(ts, nil)
	ctx, cancel := context.WithCancel(context.Background())
	c, err := New(ctx, env.opts())
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.TokenSource().Token(); err != nil {
		t.Errorf("token fetch after New's ctx ended: %v", err)
	}
}

// BenchmarkTransportCached measures what the transport adds to a request
// once a token is cached (stat of the ADC file, header clone).
func BenchmarkTransportCached(b *testing.B) {
	dir := b.TempDir()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"access_token":"ya29.b","token_type":"Bearer","expires_in":3600}`)
	}))
	defer ts.Close()
	p := filepath.Join(dir, "adc.json")
	_ = os.WriteFile(p, []byte(`{"type":"authorized_user","client_id":"c","client_secret":"s","refresh_token":"r","token_uri":"`+ts.URL+`"}`), 0o600)
	c, err := New(context.Background(), Options{Getenv: func(k string) string {
		return map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": p, "HOME": dir}[k]
	}})
	if err != nil {
		b.Fatal(err)
	}
	rt := c.Transport(roundTripFunc(func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Body: http.NoBody}, nil
	}))
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", nil)
	for b.Loop() {
		if _, err := rt.RoundTrip(req); err != nil {
			b.Fatal(err)
		}
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func apiErr401() error {
	return api.ParseHTTPError(401, "", []byte(`{"error":{"code":401,"status":"UNAUTHENTICATED"}}`))
}
