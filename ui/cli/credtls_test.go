package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/colabdash/colabdash/ui/cli/kit"
)

// writeCreds writes an authorized_user credentials file whose token_uri is
// tokenURI.
func writeCreds(t *testing.T, path, tokenURI string) string {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"type": "authorized_user", "client_id": "cid.apps.googleusercontent.com",
		"client_secret": "SECRET-client-secret", "refresh_token": "1//SECRET-refresh-token", "token_uri": tokenURI})
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A credentials file whose token_uri is plain http to a host
// that is not loopback is refused before anything is sent — through
// --credentials, GOOGLE_APPLICATION_CREDENTIALS and the well-known ADC
// file — with one line naming the file and the field, exit 3. The MCP
// endpoint (a loopback listener) is never reached either.
func TestPlainHTTPTokenURIRefused(t *testing.T) {
	var reached atomic.Int64
	mcp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		reached.Add(1)
		w.WriteHeader(http.StatusTeapot)
	}))
	defer mcp.Close()
	const bad = "http://203.0.113.7/token"
	for _, via := range []string{"--credentials", "GOOGLE_APPLICATION_CREDENTIALS", "well-known file"} {
		t.Run(via, func(t *testing.T) {
			home := isolate(t)
			args := []string{"status", "--endpoint", mcp.URL + "/mcp"}
			var path string
			switch via {
			case "--credentials":
				path = writeCreds(t, filepath.Join(home, "creds.json"), bad)
				args = append(args, "--credentials", path)
			case "GOOGLE_APPLICATION_CREDENTIALS":
				path = writeCreds(t, filepath.Join(home, "adc.json"), bad)
				t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", path)
			default:
				path = writeCreds(t, filepath.Join(os.Getenv("CLOUDSDK_CONFIG"), "application_default_credentials.json"), bad)
			}
			trustCLIMu.Lock()
			code, out, errs := runCLI(t, args...)
			trustCLIMu.Unlock()
			lines := strings.Split(strings.TrimRight(errs, "\n"), "\n")
			if code != kit.ExitCredential || out != "" || len(lines) != 1 {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 3 and one line", code, out, errs)
			}
			for _, want := range []string{path, "token_uri", "plain http", "https://"} {
				if !strings.Contains(errs, want) {
					t.Errorf("stderr lacks %q: %s", want, errs)
				}
			}
			if strings.Contains(errs, "SECRET") {
				t.Errorf("a secret reached stderr: %s", errs)
			}
			if n := reached.Load(); n != 0 {
				t.Errorf("the MCP endpoint was reached %d times", n)
			}
		})
	}
}

// invalid_grant from the token endpoint is final end to end:
// `status` asks the token endpoint once and exits 3; a 503 is still
// retried.
func TestInvalidGrantOneTokenRequest(t *testing.T) {
	home := isolate(t)
	endpoint := echoServer(t)
	var hits atomic.Int64
	var status atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		code := int(status.Load())
		w.WriteHeader(code)
		if code == http.StatusBadRequest {
			fmt.Fprint(w, `{"error":"invalid_grant","error_description":"Bad Request"}`)
		} else {
			fmt.Fprint(w, `{"error":"temporarily_unavailable"}`)
		}
	}))
	defer ts.Close()
	subject := filepath.Join(home, "subject.jwt")
	if err := os.WriteFile(subject, []byte("SECRET-subject-token"), 0o600); err != nil {
		t.Fatal(err)
	}
	// An external account: STS reports its refusal as text, which used to
	// read as a network failure and be retried.
	b, _ := json.Marshal(map[string]any{"type": "external_account",
		"audience":           "//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/q",
		"subject_token_type": "urn:ietf:params:oauth:token-type:jwt", "token_url": ts.URL + "/sts",
		"credential_source": map[string]any{"file": subject}})
	path := filepath.Join(home, "ext.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	status.Store(http.StatusBadRequest)
	trustCLIMu.Lock()
	code, _, errs := runCLI(t, "status", "--endpoint", endpoint, "--credentials", path)
	trustCLIMu.Unlock()
	if code != kit.ExitCredential || !strings.Contains(errs, "re-authentication required") || hits.Load() != 1 {
		t.Errorf("invalid_grant: exit %d, %d token request(s), stderr %q; want exit 3, one request", code, hits.Load(), errs)
	}
	hits.Store(0)
	status.Store(http.StatusServiceUnavailable)
	trustCLIMu.Lock()
	code, _, errs = runCLI(t, "status", "--endpoint", endpoint, "--credentials", path)
	trustCLIMu.Unlock()
	t.Logf("503: exit %d, %d requests, %s", code, hits.Load(), errs)
	if code == 0 || hits.Load() < 2 {
		t.Errorf("503: exit %d, %d token request(s), stderr %q; want a failure after retries", code, hits.Load(), errs)
	}
}
