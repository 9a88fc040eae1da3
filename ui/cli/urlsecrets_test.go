package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/ui/cli/kit"
)

// A secret in an endpoint URL (an API key in the query, a
// password in the user info) is redacted in every output that shows the
// URL: `colabdash config`, a failing verb's stderr, and the log file.
func TestEndpointURLSecretsRedacted(t *testing.T) {
	home := isolate(t)
	const key, password = "AIzaSyB-1a2b3c4d5e6f7g8h9i0jKLMNOPQRS", "Pa55w0rd-Secret"
	tokenFile := filepath.Join(home, "token.txt")
	if err := os.WriteFile(tokenFile, []byte("tok-0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Port 1 on loopback: nothing listens, the call fails at once.
	endpoint := "http://me:" + password + "@127.0.0.1:1/mcp?alt=json&key=" + key
	cfg := filepath.Join(home, ".config", "colabdash", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		t.Fatal(err)
	}
	yaml := "profile: work\nprofiles:\n  work:\n    accessTokenFile: " + tokenFile + "\n    endpoint: \"" + endpoint + "\"\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	logFile := filepath.Join(home, "colabdash.log")
	for _, args := range [][]string{
		{"config"},
		{"status", "--log-file", logFile, "--debug"},
		{"status", "--endpoint", endpoint, "--access-token-file", tokenFile},
	} {
		trustCLIMu.Lock()
		code, out, errs := runCLI(t, args...)
		trustCLIMu.Unlock()
		for name, text := range map[string]string{"stdout": out, "stderr": errs} {
			if strings.Contains(text, key) || strings.Contains(text, password) {
				t.Errorf("%v (exit %d) %s shows a URL secret:\n%s", args, code, name, text)
			}
		}
		if args[0] == "config" && (code != 0 || !strings.Contains(out, "key=[redacted]") || !strings.Contains(out, "127.0.0.1:1/mcp")) {
			t.Errorf("config: exit %d, the endpoint is not shown redacted:\n%s%s", code, out, errs)
		}
		if args[0] == "status" && code == 0 {
			t.Errorf("%v: exit 0 against a port where nothing listens", args)
		}
	}
	logged, err := os.ReadFile(logFile)
	if err != nil || !strings.Contains(string(logged), "127.0.0.1:1") {
		t.Fatalf("the log does not name the endpoint (%v):\n%s", err, logged)
	}
	if strings.Contains(string(logged), key) || strings.Contains(string(logged), password) {
		t.Errorf("the log file shows a URL secret:\n%s", logged)
	}
}

// The hint about a bad access token reaches stderr whole (the
// redactor read "bearer token" as a token and printed "a bearer
// [redacted] is letters…").
func TestBadTokenHintNotRedacted(t *testing.T) {
	home := isolate(t)
	tokenFile := filepath.Join(home, "token.txt")
	if err := os.WriteFile(tokenFile, []byte("tok\x01en-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	trustCLIMu.Lock()
	code, _, errs := runCLI(t, "status", "--endpoint", "http://127.0.0.1:1/mcp", "--access-token-file", tokenFile)
	trustCLIMu.Unlock()
	if code != kit.ExitCredential || !strings.Contains(errs, "a bearer token is letters, digits and -._~+/ with = at the end") ||
		strings.Contains(errs, "[redacted]") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}
