// Package authtest holds loopback stand-ins for what the auth package
// talks to — Google's OAuth token endpoint and a bearer-checking API
// endpoint — and the credential files its tests write. It imports nothing
// of colabdash, so auth's own tests and the tests of any package that signs
// in (the CLI, the doctor) can share it.
package authtest

import (
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
)

// TokenServer is a loopback OAuth token endpoint (any path). By default it
// answers each request with a bearer token "ya29.minted-N", N the request's
// number counted from 1, valid for 3600 seconds. It records each request's
// form.
type TokenServer struct {
	*httptest.Server
	// Hits counts the requests answered so far; a test may reset it.
	Hits  atomic.Int64
	mu    sync.Mutex
	reply func(w http.ResponseWriter, r *http.Request, n int64)
	forms []map[string]string
}

// NewTokenServer starts a TokenServer, closed when the test ends.
func NewTokenServer(t testing.TB) *TokenServer {
	ts := &TokenServer{}
	ts.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := ts.Hits.Add(1)
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

// SetReply makes f answer the following requests instead of the default
// (n is the request's number, counted from 1); nil restores the default.
func (ts *TokenServer) SetReply(f func(w http.ResponseWriter, r *http.Request, n int64)) {
	ts.mu.Lock()
	ts.reply = f
	ts.mu.Unlock()
}

// LastForm is the form (name: first value) of the latest request, nil
// before the first.
func (ts *TokenServer) LastForm() map[string]string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if len(ts.forms) == 0 {
		return nil
	}
	return ts.forms[len(ts.forms)-1]
}

// APIServer is a loopback stand-in for a Google API endpoint (the Colab
// MCP endpoint) that records the headers of each request and answers
// {"ok":true}. A request whose bearer token the accept function refuses
// gets 401 with an invalid_token WWW-Authenticate header and Google's
// UNAUTHENTICATED body, as Google answers.
type APIServer struct {
	*httptest.Server
	mu      sync.Mutex
	headers []http.Header
	accept  func(token string) bool
	before  func()
}

// NewAPIServer starts an APIServer accepting any token, closed when the
// test ends.
func NewAPIServer(t testing.TB) *APIServer {
	s := &APIServer{}
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

// Gate sets, from the next request on, what decides which bearer tokens
// are good (nil: any) and what runs ahead of each reply (a barrier, say;
// nil: nothing).
func (s *APIServer) Gate(accept func(token string) bool, before func()) {
	s.mu.Lock()
	s.accept, s.before = accept, before
	s.mu.Unlock()
}

// Last is the headers of the latest request, nil before the first.
func (s *APIServer) Last() http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.headers) == 0 {
		return nil
	}
	return s.headers[len(s.headers)-1]
}

// Count is how many requests the server has had.
func (s *APIServer) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.headers)
}

// WriteJSON writes v as JSON to dir/name (WriteFile) and returns its path.
func WriteJSON(t testing.TB, dir, name string, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return WriteFile(t, dir, name, string(b))
}

// WriteFile writes content to dir/name, mode 0600 as credential files
// are, creating the missing parents of name, and returns its path.
func WriteFile(t testing.TB, dir, name, content string) string {
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

// Rewrite replaces the content of the file at path and moves its
// modification time 2 s past the old one, as a new
// `gcloud auth application-default login` would.
func Rewrite(t testing.TB, path, content string) {
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
