package auth

import (
	"context"
	"net/http"
	"testing"

	"github.com/colabdash/colabdash/api/auth/authtest"
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

// useADC writes an authorized_user file pointing at ts (authorizedUser
// with extra) to a new directory and points the env's
// GOOGLE_APPLICATION_CREDENTIALS at it: the file's path.
func (e *fakeEnv) useADC(ts *authtest.TokenServer, extra map[string]string) string {
	e.t.Helper()
	path := authtest.WriteJSON(e.t, e.t.TempDir(), "adc.json", authorizedUser(ts, extra))
	e.set("GOOGLE_APPLICATION_CREDENTIALS", path)
	return path
}

// authorizedUser is an ADC authorized_user file pointing at ts.
func authorizedUser(ts *authtest.TokenServer, extra map[string]string) map[string]string {
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
