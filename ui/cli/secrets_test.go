package cli

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/secrettest"
)

// TestNoSecretInOutput scans everything `colabdash status` writes (table
// and --json, stdout and stderr, the --debug log file, success and
// failure) for the OAuth access
// token it was given and the proxy tokens the server sent, and finds
// no piece of any (secrettest.Piece characters). --show-tokens is the control: there the proxy tokens must appear,
// so the scan can fail.
func TestNoSecretInOutput(t *testing.T) {
	home := isolate(t)
	const oauth = "ya29.OAUTH-SECRET-c0ffee"
	srv, endpoint, err := colabfake.Start(context.Background(), "127.0.0.1:0", colabfake.Options{RuntimeLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var proxyTokens []string
	for _, id := range []string{"r-one", "r-two", "r-three"} {
		tok := secrettest.Token(id)
		proxyTokens = append(proxyTokens, tok)
		if _, err := srv.AddRuntime(api.Runtime{Name: id, RuntimeSpec: api.RuntimeSpecKey{Variant: api.VariantCPU, Accelerator: api.AcceleratorNone, Shape: api.ShapeStandard},
			ConnectionInfo: &api.ConnectionInfo{Token: tok, ExpireTime: time.Now().Add(time.Hour)}}); err != nil {
			t.Fatal(err)
		}
	}
	tokenFile := filepath.Join(home, "token.txt")
	if err := os.WriteFile(tokenFile, []byte(oauth+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	logFile := filepath.Join(home, "colabdash.log")
	base := []string{"status", "--endpoint", endpoint, "--access-token-file", tokenFile, "--log-file", logFile, "--debug"}
	secrets := append([]string{oauth, strings.TrimPrefix(oauth, "ya29.")}, proxyTokens...)
	scan := func(what, out string) {
		t.Helper()
		secrettest.Check(t, what, out, secrets...)
	}
	for _, args := range [][]string{nil, {"--json"}} {
		code, out, errs := runCLI(t, append(base, args...)...)
		if code != 0 || !strings.Contains(out, "r-two") {
			t.Fatalf("status %v: exit %d\n%s\n%s", args, code, out, errs)
		}
		scan(strings.Join(append([]string{"status"}, args...), " ")+" stdout", out)
		scan("status stderr", errs)
	}
	// Failures: the server echoes the request's token in an error body
	// (Raw), and a list_sessions error; still nothing printed.
	srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: "list_sessions", Times: -1,
		Text: `{"error":{"code":500,"status":"INTERNAL","message":"backend error","details":[{"token":"` + proxyTokens[0] + `"}]}}`})
	code, out, errs := runCLI(t, append(base, "--json")...)
	scan("status --json with failing list_sessions (exit "+strconv.Itoa(code)+")", out+errs)
	srv.ClearFaults()
	srv.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: "list_runtimes", Status: 401, Times: -1,
		Body: `{"error":{"code":401,"status":"UNAUTHENTICATED","message":"Request had invalid authentication credentials."},"echo":"Bearer ` + oauth + `"}`})
	code, out, errs = runCLI(t, base...)
	if code == 0 {
		t.Errorf("status with a rejected token exited 0")
	}
	scan("status with a rejected token", out+errs)
	srv.ClearFaults()

	// The debug log of all those runs (raw error replies included).
	logged, err := os.ReadFile(logFile)
	if err != nil || !strings.Contains(string(logged), "list_runtimes") {
		t.Fatalf("no debug log to scan (%v):\n%s", err, logged)
	}
	scan("the --debug log file", string(logged))

	// The control: --show-tokens prints them, so the scan above can fail.
	_, out, _ = runCLI(t, append(base, "--json", "--show-tokens")...)
	for _, tok := range proxyTokens {
		if !strings.Contains(out, tok) {
			t.Errorf("--show-tokens does not print %q: the scan would not notice a leak", tok)
		}
	}
	if strings.Contains(out, oauth) {
		t.Errorf("--show-tokens prints the OAuth token")
	}
}
