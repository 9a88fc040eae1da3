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
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/colabfaketest"
	"github.com/colabdash/colabdash/api/secrettest"
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
	tokenFile := filepath.Join(home, "token.txt")
	if err := os.WriteFile(tokenFile, []byte(trustStaticToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	creds := func(name, tokenURI string) string {
		p := filepath.Join(home, name)
		b, _ := json.Marshal(map[string]string{"type": "authorized_user", "client_id": "cid.apps.googleusercontent.com",
			"client_secret": trustClientSecret, "refresh_token": trustRefreshToken, "token_uri": tokenURI})
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
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
