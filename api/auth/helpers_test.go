package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// fakeEnv is an isolated environment: a temp HOME with no gcloud files, no
// GOOGLE_APPLICATION_CREDENTIALS, and the metadata server guarded so that
// reaching it fails the test. The real process env is also pointed at the
// temp HOME so nothing can pick up the developer's own credentials.
type fakeEnv struct {
	t    *testing.T
	home string
	vars map[string]string
}

func newEnv(t *testing.T) *fakeEnv {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "")
	t.Setenv("CLOUDSDK_CONFIG", "")
	t.Setenv("GOOGLE_CLOUD_QUOTA_PROJECT", "")
	t.Setenv("GCE_METADATA_HOST", "")
	guardMetadata(t)
	return &fakeEnv{t: t, home: home, vars: map[string]string{"HOME": home}}
}

// guardMetadata makes any attempt to reach the metadata server a test
// failure, and restores the real functions afterwards.
func guardMetadata(t *testing.T) {
	oldOn, oldSrc := onGCE, newMetadataSource
	onGCE = func() bool { t.Errorf("metadata server probed (OnGCE called)"); return false }
	newMetadataSource = func([]string) oauth2.TokenSource {
		t.Errorf("metadata token source used")
		return oauth2.StaticTokenSource(&oauth2.Token{})
	}
	t.Cleanup(func() { onGCE, newMetadataSource = oldOn, oldSrc })
}

func (e *fakeEnv) set(k, v string) { e.vars[k] = v }

func (e *fakeEnv) getenv(k string) string { return e.vars[k] }

func (e *fakeEnv) opts() Options { return Options{Getenv: e.getenv} }

// writeJSON writes v as JSON into a new file under dir and returns its path.
func writeJSON(t *testing.T, dir, name string, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, name, string(b))
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// rewrite replaces a file's content and moves its mtime forward, as a new
// `gcloud auth application-default login` would.
func rewrite(t *testing.T, path, content string) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	later := st.ModTime().Add(2 * time.Second)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
}

// tokenServer is a loopback OAuth token endpoint. By default it mints
// "ya29.minted-N" (N counts hits) valid for an hour.
type tokenServer struct {
	*httptest.Server
	hits atomic.Int64
	mu   sync.Mutex
	// reply, when set, answers instead of the default.
	reply func(w http.ResponseWriter, r *http.Request, n int64)
	forms []map[string]string
}

func newTokenServer(t *testing.T) *tokenServer {
	ts := &tokenServer{}
	ts.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := ts.hits.Add(1)
		_ = r.ParseForm()
		form := map[string]string{}
		for k := range r.PostForm {
			form[k] = r.PostForm.Get(k)
		}
		ts.mu.Lock()
		ts.forms = append(ts.forms, form)
		reply := ts.reply
		ts.mu.Unlock()
		if reply != nil {
			reply(w, r, n)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"access_token":"ya29.minted-%d","token_type":"Bearer","expires_in":3600}`, n)
	}))
	t.Cleanup(ts.Close)
	return ts
}

func (ts *tokenServer) setReply(f func(w http.ResponseWriter, r *http.Request, n int64)) {
	ts.mu.Lock()
	ts.reply = f
	ts.mu.Unlock()
}

func (ts *tokenServer) lastForm() map[string]string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if len(ts.forms) == 0 {
		return nil
	}
	return ts.forms[len(ts.forms)-1]
}

// apiServer is a loopback stand-in for the Colab MCP endpoint that records
// the headers of each request. accept decides whether the bearer token is
// good (default: any); rejected requests get 401 with an invalid_token
// WWW-Authenticate header, as Google sends.
type apiServer struct {
	*httptest.Server
	mu      sync.Mutex
	headers []http.Header
	accept  func(token string) bool
	// before, when set, runs before each reply (e.g. a barrier).
	before func()
}

func newAPIServer(t *testing.T) *apiServer {
	s := &apiServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.headers = append(s.headers, r.Header.Clone())
		accept, before := s.accept, s.before
		s.mu.Unlock()
		if before != nil {
			before()
		}
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if accept != nil && !accept(tok) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="https://accounts.google.com/", error="invalid_token"`)
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}`)
			return
		}
		fmt.Fprint(w, `{"ok":true}`)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *apiServer) last() http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.headers) == 0 {
		return nil
	}
	return s.headers[len(s.headers)-1]
}

func (s *apiServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.headers)
}

// get sends one GET through c's client and returns the status.
func get(t *testing.T, c *Credentials, url string) (int, error) {
	t.Helper()
	// No t.Fatal here: the refresh tests call get from goroutines, where
	// FailNow would end the goroutine and leave the test waiting for it.
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := c.HTTPClient().Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// authorizedUser is an ADC authorized_user file pointing at ts.
func authorizedUser(ts *tokenServer, extra map[string]string) map[string]string {
	m := map[string]string{
		"type": "authorized_user", "client_id": "cid.apps.googleusercontent.com",
		"client_secret": "SECRET-client", "refresh_token": "1//SECRET-refresh",
		"token_uri": ts.URL + "/token",
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}
