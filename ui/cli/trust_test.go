package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/colabfaketest"
	"github.com/colabdash/colabdash/api/secrettest"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// Distinctive secrets, none shaped like a Google token (no "ya29.", never
// after "Bearer " in an echo): only the redactor's registration or its
// by-key rules can keep them out.
const (
	trustStaticToken  = "STATq7Wm2Rk9Xv4Lp"
	trustMintedToken  = "MINTz3Hc8Nq5Tb1Jy"
	trustProxyToken   = "PRXYk6Fd2Vs8Gw3Qe"
	trustProxyToken2  = "PRXYm2Kc7Hn4Ws9Ua"
	trustProxyToken3  = "PRXYp5Tq1Lf8Gd3Zc"
	trustClientSecret = "CSECg4Lx9Pm2Zr7Kt"
	trustRefreshToken = "1//RFSHb8Yn3Jw5Dq"
)

// echoServer is the emulator behind a front that answers list_sessions
// with an error echoing the caller's bearer token and the proxy token, in
// a different form per runtime: an isError result (r-echo), an HTTP 500
// text body (r-echo2), a JSON-RPC error in an HTTP 400 (r-echo3).
func echoServer(t *testing.T) string {
	srv, _ := colabfaketest.Start(t, colabfake.Options{RuntimeLimit: -1, Seed: colabfake.SeedEmpty})
	for id, tok := range map[string]string{"r-echo": trustProxyToken, "r-echo2": trustProxyToken2, "r-echo3": trustProxyToken3} {
		if _, err := srv.AddRuntime(api.Runtime{Name: id, RuntimeSpec: api.RuntimeSpecKey{Variant: api.VariantCPU, Accelerator: api.AcceleratorNone, Shape: api.ShapeStandard},
			ConnectionInfo: &api.ConnectionInfo{Token: tok, ExpireTime: time.Now().Add(time.Hour)}}); err != nil {
			t.Fatal(err)
		}
	}
	h := srv.Handler()
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string `json:"name"`
				Arguments struct {
					Parent string `json:"parent"`
				} `json:"arguments"`
			} `json:"params"`
		}
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			_ = json.Unmarshal(b, &msg)
		}
		caller := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		echo := "caller " + caller + " runtime proxies " + trustProxyToken + " " + trustProxyToken2 + " " + trustProxyToken3
		if msg.Params.Name == "list_sessions" {
			switch strings.TrimPrefix(msg.Params.Arguments.Parent, "runtimes/") {
			case "r-echo":
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"isError":true,"content":[{"type":"text","text":"INTERNAL: %s"}]}}`, msg.ID, echo)
			case "r-echo2":
				w.WriteHeader(500)
				io.WriteString(w, "backend failure: "+echo)
			default:
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(400)
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"INVALID_ARGUMENT: bad parent for %s"}}`, msg.ID, echo)
			}
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	return front.URL + "/mcp"
}

// tokenEndpoint mints trustMintedToken, or, when echo is set, fails with
// an error that echoes the request body it received.
func tokenEndpoint(t *testing.T, echo bool) string {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		if echo {
			w.WriteHeader(400)
			fmt.Fprintf(w, `{"error":"invalid_request","error_description":"could not use %s"}`, b)
			return
		}
		fmt.Fprintf(w, `{"access_token":%q,"token_type":"Bearer","expires_in":3600}`, trustMintedToken)
	}))
	t.Cleanup(s.Close)
	return s.URL + "/token"
}

var trustCLIMu sync.Mutex // run() uses package-level flags state

// End to end, with --access-token-file and with
// --credentials (minted token), against a server that echoes the bearer
// token and the proxy token in every error, and with a token endpoint that
// echoes its form body: stdout and stderr of `status` and `status --json`,
// and the --debug log, hold no 8-byte piece of any secret.
func TestEchoedSecretsNeverReachAnyOutput(t *testing.T) {
	home := isolate(t)
	endpoint := echoServer(t)
	tokenFile := writeFile(t, filepath.Join(home, "token.txt"), trustStaticToken+"\n")
	creds := func(name, tokenURI string) string {
		return writeAuthorizedUser(t, filepath.Join(home, name), trustClientSecret, trustRefreshToken, tokenURI)
	}
	good := creds("good.json", tokenEndpoint(t, false))
	echoing := creds("echo.json", tokenEndpoint(t, true))
	logFile := filepath.Join(home, "colabdash.log")
	secrets := []string{trustStaticToken, trustMintedToken, trustProxyToken, trustProxyToken2, trustProxyToken3,
		trustClientSecret, trustRefreshToken}
	ran := 0
	for _, auth := range [][]string{{"--access-token-file", tokenFile}, {"--credentials", good}, {"--credentials", echoing}} {
		for _, extra := range [][]string{nil, {"--json"}} {
			args := append(append([]string{"status", "--endpoint", endpoint, "--log-file", logFile, "--debug"}, auth...), extra...)
			trustCLIMu.Lock()
			code, out, errs := runCLI(t, args...)
			trustCLIMu.Unlock()
			ran++
			secrettest.Check(t, fmt.Sprintf("%v (exit %d) stdout", args[5:], code), out, secrets...)
			secrettest.Check(t, fmt.Sprintf("%v (exit %d) stderr", args[5:], code), errs, secrets...)
			if auth[1] != echoing && !strings.Contains(out, "r-echo") {
				t.Errorf("%v: the runtime is not listed, the scan proves little:\n%s\n%s", args[5:], out, errs)
			}
		}
	}
	logged, err := os.ReadFile(logFile)
	if err != nil || !strings.Contains(string(logged), "list_sessions") || !strings.Contains(string(logged), "caller") {
		t.Fatalf("the debug log does not hold the echoes (%v):\n%s", err, logged)
	}
	secrettest.Check(t, "the --debug log", string(logged), secrets...)
}

// End to end: --config, --credentials and
// --access-token-file pointing at a symlink to /dev/zero each end at once
// with one line naming the file, instead of growing to gigabytes.
func TestInputFilesThatNeverEnd(t *testing.T) {
	home := isolate(t)
	zero := filepath.Join(home, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	nested := filepath.Join(home, "nested.yaml")
	if err := os.WriteFile(nested, []byte("refreshInterval: "+strings.Repeat("[", 20000)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--config", zero, "status"}, 2, zero + ": cannot read: is a character device, not a regular file (a link to /dev/zero)"},
		{[]string{"--config", nested, "status"}, 2, nested + ":1: YAML nested more than 64 levels deep"},
		{[]string{"status", "--credentials", zero}, 3, zero + " (from --credentials): is a character device, not a regular file (a link to /dev/zero)"},
		{[]string{"status", "--access-token-file", zero}, 3, zero + " (from --access-token-file): is a character device, not a regular file (a link to /dev/zero)"},
	} {
		trustCLIMu.Lock()
		code, out, errs := runCLI(t, c.args...)
		trustCLIMu.Unlock()
		if code != c.code || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d (want %d)\nstdout %q\nstderr %q\nwant stderr to contain %q", c.args, code, c.code, out, errs, c.want)
		}
	}
}

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
// tokenURI (its secrets say SECRET).
func writeCreds(t *testing.T, path, tokenURI string) string {
	t.Helper()
	return writeAuthorizedUser(t, path, "SECRET-client-secret", "1//SECRET-refresh-token", tokenURI)
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
	subject := writeFile(t, filepath.Join(home, "subject.jwt"), "SECRET-subject-token")
	// An external account: STS reports its refusal as text, which used to
	// read as a network failure and be retried.
	path := writeJSON(t, filepath.Join(home, "ext.json"), map[string]any{"type": "external_account",
		"audience":           "//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/q",
		"subject_token_type": "urn:ietf:params:oauth:token-type:jwt", "token_url": ts.URL + "/sts",
		"credential_source": map[string]any{"file": subject}})
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
