package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/colabfaketest"
	"github.com/colabdash/colabdash/api/secrettest"
	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/ui"
	"github.com/colabdash/colabdash/ui/cli/internal/clitest"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// isolate points HOME and the ADC variables at an empty temp dir, so no
// test can find real credentials or let ADC probe the network.
func isolate(t testing.TB) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "")
	t.Setenv("CLOUDSDK_CONFIG", filepath.Join(home, "gcloud"))
	t.Setenv("GOOGLE_CLOUD_QUOTA_PROJECT", "")
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	t.Setenv("COLABDASH_CONFIG", "")
	t.Setenv("COLABDASH_PROFILE", "")
	return home
}

func runCLI(t testing.TB, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestStatusDemoTable(t *testing.T) {
	isolate(t)
	code, out, errs := runCLI(t, "status", "--demo")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{"Colab Pro", "3 runtimes", "GPU/T4/STANDARD", "CPU/STANDARD", "TPU/V6E1/STANDARD", "EXPIRING", "EXPIRED", "notebook-"} {
		if !strings.Contains(out, want) {
			t.Errorf("status output lacks %q:\n%s", want, out)
		}
	}
	if regexp.MustCompile(`(?m) +$`).MatchString(out) {
		t.Errorf("status output has trailing spaces:\n%q", out)
	}
}

func TestStatusDemoJSONShape(t *testing.T) {
	isolate(t)
	for _, args := range [][]string{{"status", "--demo", "--json"}, {"--demo", "status", "--json"}} {
		code, out, errs := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d, stderr %q", args, code, errs)
		}
		var rep struct {
			Subscription map[string]any   `json:"subscription"`
			Runtimes     []map[string]any `json:"runtimes"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v: not JSON: %v\n%s", args, err, out)
		}
		if rep.Subscription["tier"] != "SUBSCRIPTION_TIER_PRO" || len(rep.Runtimes) != 3 {
			t.Fatalf("%v: tier %v, %d runtimes", args, rep.Subscription["tier"], len(rep.Runtimes))
		}
		var expired, sessions int
		for _, rt := range rep.Runtimes {
			for _, k := range []string{"name", "runtimeSpec", "version", "connectionInfo", "tokenExpiresInSeconds", "sessions"} {
				if _, ok := rt[k]; !ok {
					t.Errorf("runtime %v lacks %q", rt["name"], k)
				}
			}
			ci := rt["connectionInfo"].(map[string]any)
			if _, ok := ci["token"]; ok {
				t.Errorf("token printed without --show-tokens: %v", ci)
			}
			exp, err := time.Parse(time.RFC3339, ci["expireTime"].(string))
			if err != nil || exp.Location() != time.UTC {
				t.Errorf("expireTime %v is not RFC 3339 UTC", ci["expireTime"])
			}
			secs := rt["tokenExpiresInSeconds"].(float64)
			if d := time.Until(exp).Seconds() - secs; d < -2 || d > 2 {
				t.Errorf("tokenExpiresInSeconds %v disagrees with expireTime %v", secs, exp)
			}
			if secs < 0 {
				expired++
			}
			sessions += len(rt["sessions"].([]any))
		}
		if expired != 1 || sessions == 0 {
			t.Errorf("demo data: %d expired runtimes (want 1), %d sessions (want some)", expired, sessions)
		}
	}
}

func TestStatusShowTokens(t *testing.T) {
	isolate(t)
	_, out, _ := runCLI(t, "status", "--demo", "--json", "--show-tokens")
	if n := strings.Count(out, `"token":`); n != 3 {
		t.Errorf("--show-tokens printed %d tokens, want 3", n)
	}
	// In the table the tokens come after it, leaving its columns as narrow
	// as without them.
	_, plain, _ := runCLI(t, "status", "--demo")
	_, withTokens, _ := runCLI(t, "status", "--demo", "--show-tokens")
	header := func(s string) string { return strings.Split(s, "\n")[2] }
	if header(plain) != header(withTokens) || strings.Count(withTokens, "/proxy/rt-") != 3 {
		t.Errorf("--show-tokens changed the table:\n%s\nvs\n%s", plain, withTokens)
	}
}

func TestStatusAgainstEmulatorWithAccessTokenFile(t *testing.T) {
	home := isolate(t)
	var (
		mu   sync.Mutex
		seen []string
	)
	_, endpoint := colabfaketest.Start(t, colabfake.Options{
		Seed: colabfake.SeedDemo,
		OnRequest: func(r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, r.Header.Get("X-Goog-User-Project"))
		},
	})
	tokenFile := filepath.Join(home, "token.txt")
	os.WriteFile(tokenFile, []byte("ya29.secret-from-file\n"), 0o600)
	code, out, errs := runCLI(t, "status", "--endpoint", endpoint, "--access-token-file", tokenFile, "--quota-project", "my-proj")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if !strings.Contains(out, "rt-t4demo7k2p") {
		t.Errorf("unexpected output:\n%s", out)
	}
	secrettest.Check(t, "status stdout", out, "ya29.secret-from-file")
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 || seen[len(seen)-1] != "my-proj" {
		t.Errorf("x-goog-user-project headers seen: %v", seen)
	}
}

// One loopback rule: every plain-http endpoint form the client accepts
// (any case of "localhost", IPv4-mapped loopback) is answered by the
// emulator, and "localhost." (a name DNS would resolve) is refused by
// the client before any token is sent, as a usage error.
func TestEndpointLoopbackFormsAgree(t *testing.T) {
	home := isolate(t)
	_, endpoint := colabfaketest.Start(t, colabfake.Options{Seed: colabfake.SeedDemo})
	port := strings.TrimSuffix(strings.TrimPrefix(endpoint, "http://127.0.0.1:"), "/mcp")
	tokenFile := filepath.Join(home, "token.txt")
	os.WriteFile(tokenFile, []byte("demo-token-4f9c2a\n"), 0o600)
	for _, host := range []string{"localhost", "LOCALHOST", "[::ffff:127.0.0.1]", "127.0.0.1"} {
		code, out, errs := runCLI(t, "status", "--endpoint", "http://"+host+":"+port+"/mcp", "--access-token-file", tokenFile)
		if code != 0 || !strings.Contains(out, "rt-t4demo7k2p") {
			t.Errorf("%s: exit %d, stderr %q", host, code, errs)
		}
	}
	code, _, errs := runCLI(t, "status", "--endpoint", "http://localhost.:"+port+"/mcp", "--access-token-file", tokenFile)
	if code != 2 || !strings.Contains(errs, "unencrypted") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("localhost.: exit %d, stderr %q; want a one-line usage error", code, errs)
	}
}

func TestStatusExitCodes(t *testing.T) {
	home := isolate(t)
	tokenFile := filepath.Join(home, "token.txt")
	os.WriteFile(tokenFile, []byte("tok"), 0o600)
	googleErr := func(status int, body string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprint(w, body)
		}))
		t.Cleanup(srv.Close)
		return srv.URL + "/mcp"
	}
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL + "/mcp"
	down.Close()
	cases := []struct {
		name string
		args []string
		code int
		line string // in stderr
		fix  string // the second line of stderr, if any
	}{
		{"unknown flag", []string{"status", "--nope"}, 2, "unknown flag", ""},
		{"extra argument", []string{"status", "extra"}, 2, "unknown command", ""},
		{"no credentials", []string{"status"}, 3, "or pass --credentials FILE or --access-token-file FILE", ""},
		{"missing credentials file", []string{"status", "--credentials", filepath.Join(home, "nope.json")}, 3, "nope.json", ""},
		{"401", []string{"status", "--endpoint", googleErr(401, `{"error":{"code":401,"status":"UNAUTHENTICATED","message":"Request had invalid authentication credentials."}}`), "--access-token-file", tokenFile}, 3, "", ""},
		{"scope", []string{"status", "--endpoint", googleErr(403, `{"error":{"code":403,"status":"PERMISSION_DENIED","message":"insufficient scopes","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"ACCESS_TOKEN_SCOPE_INSUFFICIENT"}]}}`), "--access-token-file", tokenFile}, 3, "--scopes=", ""},
		// Unreachable: the line, then one line of fix naming the network and doctor.
		{"server down", []string{"status", "--endpoint", downURL, "--access-token-file", tokenFile}, 4, "connection refused", kit.NetworkFix},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := runCLI(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.code, errs)
			}
			if tc.fix != "" {
				lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
				if len(lines) != 2 || !strings.Contains(lines[0], tc.line) || lines[1] != "colabdash: "+tc.fix {
					t.Errorf("stderr %q; want the failure and then colabdash: %s", errs, tc.fix)
				}
			} else {
				oneLineError(t, errs, tc.line)
			}
			if strings.Contains(errs, "<") || strings.Contains(errs, "tok\n") {
				t.Errorf("stderr leaks raw body or token: %q", errs)
			}
		})
	}
}

func TestDashboardWithoutTerminal(t *testing.T) {
	isolate(t)
	if f, err := os.Open(os.DevNull); err == nil {
		old := os.Stdout
		os.Stdout = f
		defer func() { os.Stdout = old; f.Close() }()
	}
	code, _, errs := runCLI(t, "--demo")
	if code == 0 || !strings.Contains(errs, "colabdash status") {
		t.Errorf("exit %d, stderr %q: want non-zero and a hint to use status", code, errs)
	}
}

// The helpers shared with the other packages whose tests run the real
// binary (clitest).
var (
	binary     = clitest.Binary
	needBinary = clitest.NeedBinary
	writeFile  = clitest.WriteFile
	homeEnv    = clitest.HomeEnv
	waitExit   = clitest.WaitExit
	waitReady  = clitest.WaitReady
	initialEnv = clitest.InitialEnv()
)

// waitTimeout is clitest's: how long a test waits for what the program
// shows.
const waitTimeout = clitest.WaitTimeout

// skipUnderShort skips the test under -short: it builds and runs the real
// binary.
func skipUnderShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
}

func TestMain(m *testing.M) {
	// Retries are counted, not timed, here: no test waits out real
	// half-seconds between attempts.
	kit.RetryBaseDelay = 5 * time.Millisecond
	childrenGetDefaultSignals()
	code := m.Run()
	clitest.RemoveBinary()
	os.Exit(code)
}

// writeJSON writes v as JSON at path (directories made, mode 0600) and
// returns path.
func writeJSON(t *testing.T, path string, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, path, string(b))
}

// writeAuthorizedUser writes an authorized_user credentials file (ADC's
// format) at path with this client secret, refresh token and token_uri,
// and returns path.
func writeAuthorizedUser(t *testing.T, path, clientSecret, refreshToken, tokenURI string) string {
	t.Helper()
	return writeJSON(t, path, map[string]string{"type": "authorized_user", "client_id": "cid.apps.googleusercontent.com",
		"client_secret": clientSecret, "refresh_token": refreshToken, "token_uri": tokenURI})
}

func TestConfigCommandDefaultsAndFile(t *testing.T) {
	home := isolate(t)
	code, out, errs := runCLI(t, "config")
	if code != 0 || !strings.HasPrefix(out, "# defaults: no config file at "+filepath.Join(home, ".config", "colabdash", "config.yaml")) ||
		!strings.Contains(out, "refreshInterval: 30s") || !strings.Contains(out, "# profile in effect: default") {
		t.Fatalf("exit %d, stderr %q, out:\n%s", code, errs, out)
	}
	// The XDG location is read; COLABDASH_CONFIG overrides it; --config
	// overrides both.
	xdg := writeFile(t, filepath.Join(home, ".config", "colabdash", "config.yaml"), "refreshInterval: 45s\n")
	env := writeFile(t, filepath.Join(home, "env.yaml"), "refreshInterval: 50s\nprofile: work\nprofiles:\n  work:\n    quotaProject: q1\n")
	flag := writeFile(t, filepath.Join(home, "flag.yaml"), "refreshInterval: 55s\n")
	for _, c := range []struct {
		env  string
		args []string
		want []string
	}{
		{"", []string{"config"}, []string{"# from " + xdg, "refreshInterval: 45s"}},
		{env, []string{"config"}, []string{"# from " + env, "refreshInterval: 50s", "# profile in effect: work"}},
		{env, []string{"config", "--profile", "demo"}, []string{"# profile in effect: demo"}},
		{env, []string{"--config", flag, "config"}, []string{"# from " + flag, "refreshInterval: 55s"}},
	} {
		t.Setenv("COLABDASH_CONFIG", c.env)
		code, out, errs := runCLI(t, c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v (COLABDASH_CONFIG=%q): output lacks %q:\n%s", c.args, c.env, w, out)
			}
		}
	}
}

// Every command refuses to start on a broken config: one line naming the
// file and line, exit code 2, nothing on stdout.
func TestBrokenConfigRefusesEveryCommand(t *testing.T) {
	home := isolate(t)
	cases := map[string]string{
		"bad value":    "theme: dark\nrefreshInterval: 1s\n",
		"unknown key":  "theme: dark\ncolour: red\n",
		"syntax":       "theme: dark\nkeys: [\n",
		"key conflict": "keys:\n  refresh: s\n",
		// Keys the console's input types or edits with.
		"console types it":   "keys:\n  console_run: a\n",
		"console edits with": "keys:\n  console_back: backspace\n",
		"console arrow":      "keys:\n  console_scroll_up: [pgup, up]\n",
	}
	for name, src := range cases {
		path := writeFile(t, filepath.Join(home, name+".yaml"), src)
		for _, args := range [][]string{{"config"}, {"status", "--demo"}, {"--demo"}, {"emulator", "--addr", "127.0.0.1:0"}} {
			code, out, errs := runCLI(t, append([]string{"--config", path}, args...)...)
			lines := strings.Split(strings.TrimSpace(errs), "\n")
			if code != kit.ExitUsage || out != "" || len(lines) != 1 || !strings.Contains(errs, path+":2:") {
				t.Errorf("%s %v: exit %d, stdout %q, stderr %q", name, args, code, out, errs)
			}
		}
	}
	// version still works, so a user can report which build rejects the file.
	if code, out, _ := runCLI(t, "--config", filepath.Join(home, "bad value.yaml"), "version"); code != 0 || !strings.HasPrefix(out, "colabdash ") {
		t.Errorf("version: exit %d %q", code, out)
	}
}

func TestUnknownProfileIsUsageError(t *testing.T) {
	isolate(t)
	t.Setenv("COLABDASH_PROFILE", "nope")
	code, _, errs := runCLI(t, "status")
	if code != kit.ExitUsage || !strings.Contains(errs, `profile "nope" (from COLABDASH_PROFILE) is not defined`) {
		t.Fatalf("exit %d, %q", code, errs)
	}
}

// Key bindings from the config replace the defaults and are what the help
// view shows and what the dashboard obeys.
func TestConfigKeysReachHelpView(t *testing.T) {
	s, err := config.ParseSettings("c.yaml", []byte("keys:\n  refresh: [f5, ctrl+r]\n  quit: Q\n  help: h\n"),
		config.SettingsOptions{Actions: keymap.Actions(), CheckKey: keymap.CheckBinding})
	if err != nil {
		t.Fatal(err)
	}
	k, err := kit.BuildKeymap(s)
	if err != nil {
		t.Fatal(err)
	}
	o := dashboardOptions(kit.Globals{Settings: s, Keys: k, Profile: s.Profiles["default"]})
	o.Service, o.NoColor = &nullService{}, true
	var m tea.Model = ui.New(o)
	m, _ = m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	if v := m.View(); !strings.Contains(v, "h help") || !strings.Contains(v, "Q/ctrl+c quit") || !strings.Contains(v, "profile default") {
		t.Fatalf("footer does not show the configured keys:\n%s", v)
	}
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("h")})
	v := m.View()
	if !strings.Contains(v, "HELP") || !strings.Contains(v, "f5/ctrl+r") || regexp.MustCompile(`(^|\s)r\s+refresh`).MatchString(v) || strings.Contains(v, "q/ctrl+c") {
		t.Fatalf("help view does not show the keys in effect:\n%s", v)
	}
	// The old quit key no longer quits; the new one does.
	if _, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")}); cmd != nil {
		if _, quit := cmd().(tea.QuitMsg); quit {
			t.Fatal("q still quits")
		}
	}
	if _, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("Q")}); cmd == nil {
		t.Fatal("Q does not quit")
	} else if _, quit := cmd().(tea.QuitMsg); !quit {
		t.Fatal("Q does not quit")
	}
}

// nullService answers every call with an empty result.
type nullService struct{ api.Service }

func (nullService) GetSubscription(context.Context) (api.Subscription, error) {
	return api.Subscription{}, nil
}
func (nullService) ListRuntimeSpecs(context.Context) ([]api.RuntimeSpec, error) { return nil, nil }
func (nullService) ListRuntimes(context.Context) ([]api.Runtime, error)         { return nil, nil }
func (nullService) ListSessions(context.Context, string) ([]api.Session, error) {
	return nil, nil
}
func (nullService) Close() error { return nil }

// A whole status run against the emulator with --log-file --debug: every
// API call is logged with tool, target, duration and outcome, and no log
// line (nor stderr) contains the access token or any proxy token, even
// when a server reply quoting them becomes an error.
func TestLogFileRedactsEveryToken(t *testing.T) {
	home := isolate(t)
	srv, endpoint := colabfaketest.Start(t, colabfake.Options{Seed: colabfake.SeedDemo})
	const accessToken = "ya29.test-access-token-0123456789"
	tokFile := writeFile(t, filepath.Join(home, "token.txt"), accessToken+"\n")
	secrets := []string{accessToken, "test-access-token-0123456789"}
	for _, rt := range srv.Runtimes() {
		if rt.ConnectionInfo != nil && rt.ConnectionInfo.Token != "" {
			secrets = append(secrets, rt.ConnectionInfo.Token)
		}
	}
	if len(secrets) < 4 {
		t.Fatalf("emulator issued too few proxy tokens: %v", secrets)
	}
	// One list_sessions fails with a reply that quotes a proxy token and
	// the caller's Authorization header.
	srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: "list_sessions", Times: 1,
		Text: colabfake.GoogleErrorText(api.FailedPrecondition, "proxy token "+secrets[2]+" rejected; Authorization: Bearer "+accessToken, "", 0)})
	logPath := filepath.Join(home, "colabdash.log")
	code, out, errs := runCLI(t, "status", "--endpoint", endpoint, "--access-token-file", tokFile, "--log-file", logPath, "--debug")
	if code != kit.ExitAPI || !strings.Contains(errs, "FAILED_PRECONDITION") || !strings.Contains(errs, "[redacted]") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, rt := range srv.Runtimes() { // tokens issued meanwhile count too
		if rt.ConnectionInfo != nil {
			secrets = append(secrets, rt.ConnectionInfo.Token)
		}
	}
	data, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	calls := map[string]string{}
	for i, ln := range lines {
		secrettest.Check(t, "log line "+strconv.Itoa(i+1), ln, secrets...)
		var rec map[string]any
		if err := json.Unmarshal([]byte(ln), &rec); err != nil {
			t.Fatalf("log line %d is not JSON: %v: %s", i+1, err, ln)
		}
		if rec["msg"] == "api call" {
			if _, ok := rec["duration"]; !ok {
				t.Errorf("api call without duration: %s", ln)
			}
			if rec["profile"] != "default" {
				t.Errorf("api call does not name its profile: %s", ln)
			}
			calls[rec["tool"].(string)+" "+rec["target"].(string)] = rec["outcome"].(string)
		}
	}
	secrettest.Check(t, "status stdout", out, secrets...)
	secrettest.Check(t, "status stderr", errs, secrets...)
	if calls["list_runtimes "] != "ok" || calls["get_subscription "] != "ok" {
		t.Errorf("calls logged: %v", calls)
	}
	failed := 0
	for k, v := range calls {
		if strings.HasPrefix(k, "list_sessions runtimes/") && v == "FAILED_PRECONDITION" {
			failed++
		}
	}
	if failed != 1 || len(lines) < 6 {
		t.Errorf("%d failed list_sessions logged, %d lines: %v", failed, len(lines), calls)
	}
	if !strings.Contains(string(data), `"level":"DEBUG"`) {
		t.Errorf("--debug wrote no debug lines")
	}
}

func TestDebugNeedsLogFile(t *testing.T) {
	isolate(t)
	if code, _, errs := runCLI(t, "status", "--demo", "--debug"); code != kit.ExitUsage || !strings.Contains(errs, "--log-file") {
		t.Fatalf("exit %d %q", code, errs)
	}
}

// Switching profile inside the dashboard, against two emulators with
// different tiers and runtimes: the header names the new profile and tier,
// the rows are the new account's, and the first account's rows are gone.
func TestProfileSwitchBetweenTwoEmulators(t *testing.T) {
	home := isolate(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, endA := colabfaketest.Start(t, colabfake.Options{Seed: colabfake.SeedDemo, Tier: api.TierPro})
	srvB, endB := colabfaketest.Start(t, colabfake.Options{Seed: colabfake.SeedEmpty, Tier: api.TierFree})
	if _, err := srvB.AddRuntime(api.Runtime{Name: "runtimes/rt-bravo-only", RuntimeSpec: api.RuntimeSpecKey{Variant: api.VariantCPU, Accelerator: "NONE", Shape: api.ShapeStandard},
		ConnectionInfo: &api.ConnectionInfo{}}); err != nil {
		t.Fatal(err)
	}
	tok := writeFile(t, filepath.Join(home, "tok"), "ya29.profile-switch-token\n")
	cfg := fmt.Sprintf("profile: alpha\nprofiles:\n  alpha:\n    accessTokenFile: %s\n    endpoint: %s\n  bravo:\n    accessTokenFile: %s\n    endpoint: %s\n", tok, endA, tok, endB)
	s, err := config.ParseSettings("c.yaml", []byte(cfg), config.SettingsOptions{Actions: keymap.Actions()})
	if err != nil {
		t.Fatal(err)
	}
	g := kit.Globals{Settings: s, Keys: keymap.Default(), Profile: s.Profiles["alpha"]}
	conn, err := kit.Connect(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	o := dashboardOptions(g)
	o.Service, o.Endpoint, o.NoColor, o.Context = conn.Svc, conn.Endpoint, true, ctx
	tm := teatest.NewTestModel(t, ui.New(o), teatest.WithInitialTermSize(110, 30))
	waitFor := func(what ...string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			for _, w := range what {
				if !bytes.Contains(b, []byte(w)) {
					return false
				}
			}
			return true
		}, teatest.WithDuration(30*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	}
	waitFor("profile alpha", "tier Pro", "rt-t4demo")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("P")})
	waitFor("PROFILES", "alpha (active)", "bravo", "demo")
	tm.Send(tea.KeyMsg{Type: tea.KeyDown})
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitFor("profile bravo", "tier Free", "rt-bravo-only")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(ui.Model)
	if fm.Profile() != "bravo" || fm.Snapshot().Runtime("runtimes/rt-bravo-only") == nil || fm.Snapshot().Len() != 1 {
		t.Fatalf("after the switch: profile %q, %d runtimes", fm.Profile(), fm.Snapshot().Len())
	}
	if v := fm.View(); strings.Contains(v, "rt-t4demo") || !strings.Contains(v, "profile bravo") {
		t.Fatalf("view after the switch:\n%s", v)
	}
	// The first profile's connection was closed by the switch: calling
	// through it fails.
	if _, err := conn.Svc.ListRuntimes(ctx); err == nil {
		t.Fatal("the replaced Service still works")
	}
	fm.Service().Close()
	var connects int
	for _, e := range fm.Events() {
		if e.Tool == "connect" && e.Target == "bravo" && e.Err == nil {
			connects++
		}
	}
	if connects != 1 {
		t.Fatalf("event log lacks the profile switch: %+v", fm.Events())
	}
}

// --help of the program and of every subcommand has examples; completion
// and version work even with a broken config file.
func TestHelpCompletionVersion(t *testing.T) {
	home := isolate(t)
	broken := writeFile(t, filepath.Join(home, "broken.yaml"), "theme: blue\n")
	code, out, _ := runCLI(t, "--help")
	for _, want := range []string{"Examples:", "completion bash", "--log-file", "--profile", "--theme", "--config"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("--help lacks %q (exit %d)", want, code)
		}
	}
	for _, sub := range []string{"status", "config", "emulator"} {
		if code, out, _ := runCLI(t, sub, "--help"); code != 0 || !strings.Contains(out, "Examples:") {
			t.Errorf("%s --help: exit %d, no examples:\n%s", sub, code, out)
		}
	}
	for _, sh := range []string{"bash", "zsh", "fish"} {
		if code, out, errs := runCLI(t, "--config", broken, "completion", sh); code != 0 || !strings.Contains(out, "colabdash") {
			t.Errorf("completion %s: exit %d %q", sh, code, errs)
		}
	}
	code, out, _ = runCLI(t, "--config", broken, "__complete", "--theme", "")
	if code != 0 || !strings.Contains(out, "light") {
		t.Errorf("--theme completion: exit %d %q", code, out)
	}
	for _, args := range [][]string{{"version"}, {"--version"}} {
		if code, out, _ := runCLI(t, args...); code != 0 || !strings.Contains(out, "commit ") || !strings.Contains(out, "go1.") {
			t.Errorf("%v: exit %d %q", args, code, out)
		}
	}
}

// A 401 while the cached access token looked valid (revoked, clock skew)
// makes `status` mint a new token and retry once, through the wiring of the
// client's OnUnauthenticated hook to the credentials' forced refresh: the
// run succeeds, the token endpoint is asked twice, and the retried request
// carries the new token.
func TestStatusRefreshesARejectedToken(t *testing.T) {
	home := isolate(t)
	var minted atomic.Int64
	tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := minted.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"access_token":"ya29.minted-%d","token_type":"Bearer","expires_in":3600}`, n)
	}))
	defer tokens.Close()
	var (
		mu     sync.Mutex
		bearer = map[string]int{} // token -> requests carrying it
	)
	srv, endpoint := colabfaketest.Start(t, colabfake.Options{Seed: colabfake.SeedDemo,
		OnRequest: func(r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			bearer[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]++
		}})
	// The server rejects one list_runtimes as Google does for a revoked
	// token.
	srv.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: "list_runtimes", Status: 401, Times: 1,
		Body: `{"error":{"code":401,"status":"UNAUTHENTICATED","message":"Request had invalid authentication credentials."}}`})
	creds := writeFile(t, filepath.Join(home, "adc.json"), `{"type":"authorized_user","client_id":"cid.apps.googleusercontent.com",`+
		`"client_secret":"cs","refresh_token":"1//rt","token_uri":"`+tokens.URL+`/token"}`)
	code, out, errs := runCLI(t, "status", "--endpoint", endpoint, "--credentials", creds)
	if code != 0 || !strings.Contains(out, "rt-t4demo7k2p") {
		t.Fatalf("status after one 401: exit %d, stderr %q (the rejected token was not refreshed)", code, errs)
	}
	mu.Lock()
	defer mu.Unlock()
	if n := minted.Load(); n != 2 || bearer["ya29.minted-2"] == 0 {
		t.Fatalf("%d tokens minted, requests per token %v: want a forced refresh whose token is sent", n, bearer)
	}
}

// childrenGetDefaultSignals undoes an ignored SIGHUP or SIGINT inherited
// from whoever started the tests (nohup go test, trap ” HUP, a
// background job of a script) for the programs the tests start. An
// ignored signal stays ignored across exec, and colabdash keeps an
// ignored SIGHUP ignored, as nohup asks: the tests that send the real
// binary SIGHUP would wait for an exit that never comes and blame it.
// A caught signal is reset to the default by exec, so this process
// catches them (and drops them: for it they stay as good as ignored),
// and says so on stderr.
func childrenGetDefaultSignals() {
	var ignored []os.Signal
	for _, sig := range []os.Signal{syscall.SIGHUP, syscall.SIGINT} {
		if signal.Ignored(sig) {
			ignored = append(ignored, sig)
		}
	}
	if len(ignored) == 0 {
		return
	}
	fmt.Fprintf(os.Stderr, "ui/cli tests: started with %v ignored (nohup?); the programs they start get the default disposition\n", ignored)
	signal.Notify(make(chan os.Signal, 1), ignored...)
}

// needRoot skips test t, which needs root for what, when it does not run
// as root; where CI is set it fails instead: CI runs as root (.ci/run
// installs its tools with apt-get), so a skip there would hide a test
// that silently stopped running.
func needRoot(t *testing.T, what string) {
	t.Helper()
	if os.Geteuid() == 0 {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("CI is set, and CI runs as root, but this test runs as uid %d: %s needs root", os.Geteuid(), what)
	}
	t.Skipf("SKIP: %s needs root (uid %d here)", what, os.Geteuid())
}
