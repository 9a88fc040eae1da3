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
	"time"

	"github.com/colabdash/colabdash/ui/cli/kit"
)

// The OAuth bearer token goes to the endpoint and the upstream's Jupyter
// token to --jupyter-upstream: plain http to a host that is not loopback
// is refused wherever the URL comes from (flag or profile), with one line
// saying why and the https form, before anything is sent. (isolate leaves
// no credentials, so without the rule these would fail on credentials,
// never reaching a network.)
func TestPlainHTTPEndpointRefused(t *testing.T) {
	home := isolate(t)
	cfg := writeFile(t, filepath.Join(home, "plain.yaml"),
		"profile: work\nprofiles:\n  work:\n    endpoint: http://colab.example.com/mcp\n")
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"--endpoint", []string{"status", "--endpoint", "http://colab.example.com/mcp"},
			[]string{"--endpoint http://colab.example.com/mcp", "unencrypted", "use https://colab.example.com/mcp", "loopback"}},
		{"--endpoint on a verb", []string{"ls", "rt-abc", "--endpoint", "http://10.1.2.3:8089/mcp"},
			[]string{"--endpoint http://10.1.2.3:8089/mcp", "unencrypted", "use https://10.1.2.3:8089/mcp"}},
		{"profile endpoint", []string{"status", "--config", cfg},
			[]string{"plain.yaml:4", "profiles.work.endpoint", "unencrypted", "use https://colab.example.com/mcp"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, tc.args...)
			if code != kit.ExitUsage || out != "" {
				t.Errorf("exit %d, stdout %q, want exit %d and nothing on stdout (stderr %q)", code, out, kit.ExitUsage, errs)
			}
			oneLineError(t, errs, tc.want...)
		})
	}

	// The upstream's token is in its URL: the refusal does not repeat it.
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errs := runCLI(t, "emulator", "--addr", "127.0.0.1:0", "--jupyter-upstream", "http://10.1.2.3:8888/?token=UPSTREAM-SECRET")
		done <- result{code, out, errs}
	}()
	select {
	case r := <-done:
		if r.code != kit.ExitUsage || r.out != "" {
			t.Errorf("--jupyter-upstream over plain http: exit %d, stdout %q (stderr %q)", r.code, r.out, r.err)
		}
		oneLineError(t, r.err, "--jupyter-upstream http://10.1.2.3:8888/?…", "unencrypted", "https://10.1.2.3:8888/")
		if strings.Contains(r.err, "UPSTREAM-SECRET") {
			t.Errorf("the refusal repeats the upstream's token: %q", r.err)
		}
	case <-time.After(waitTimeout):
		t.Fatal("the emulator started with a plain-http --jupyter-upstream instead of refusing it")
	}
}

// Loopback http stays accepted in every spelling: the emulator, --demo
// and tests use it.
func TestLoopbackHTTPEndpointAccepted(t *testing.T) {
	e := demoVerbEnv(t)
	endpoint := e.flags[1]
	for _, ep := range []string{endpoint, strings.Replace(endpoint, "127.0.0.1", "localhost", 1)} {
		flags := []string{"--endpoint", ep, e.flags[2], e.flags[3]}
		var out, errb strings.Builder
		if code := run(append([]string{"status"}, flags...), &out, &errb); code != 0 || !strings.Contains(out.String(), "rt-t4demo7k2p") {
			t.Errorf("status --endpoint %s: exit %d\n%s%s", ep, code, out.String(), errb.String())
		}
	}
	if code, _, errs := runCLI(t, "status", "--demo"); code != 0 {
		t.Errorf("--demo: exit %d %q", code, errs)
	}
}

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
