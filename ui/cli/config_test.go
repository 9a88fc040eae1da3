package cli

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/spf13/cobra"
)

// A profile's missing credentials file is blamed on the profile and its
// config line, in `status` and when the dashboard switches to it (P), not
// on a --credentials flag the user never passed.
func TestProfileCredentialErrorsNameTheProfile(t *testing.T) {
	home := isolate(t)
	cfg := writeFile(t, filepath.Join(home, "c.yaml"), "profiles:\n  work:\n    credentials: file\n    credentialsFile: ~/keys/work.json\n"+
		"  ci:\n    accessTokenFile: /nonexistent/colab-token\n")
	for _, tc := range []struct {
		profile, want, fix string
	}{
		{"work", "credentials file " + filepath.Join(home, "keys", "work.json") + " (from profile work, " + cfg + ":4) does not exist",
			"fix: point credentialsFile (profile work, " + cfg + ":4) at an existing credentials file"},
		{"ci", "access token file /nonexistent/colab-token (from profile ci, " + cfg + ":6) does not exist",
			"or point accessTokenFile (profile ci, " + cfg + ":6) at another file"},
	} {
		code, _, errs := runCLI(t, "--config", cfg, "--profile", tc.profile, "status")
		if code != kit.ExitCredential || !strings.Contains(errs, tc.want) || !strings.Contains(errs, tc.fix) ||
			strings.Contains(errs, "--credentials") || strings.Contains(errs, "--access-token-file") {
			t.Errorf("status --profile %s: exit %d, stderr %q\nwant %q and %q", tc.profile, code, errs, tc.want, tc.fix)
		}
		// The same text reaches the dashboard's P switch (status line, L log).
		g := loadForTest(t, "--config", cfg)
		_, _, err := dashboardOptions(g).Connect(context.Background(), tc.profile)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "--credentials") {
			t.Errorf("switch to %s: err = %v", tc.profile, err)
		}
	}
	// A flag still names itself.
	code, _, errs := runCLI(t, "--config", cfg, "--profile", "work", "--credentials", "/nonexistent/x.json", "status")
	if code != kit.ExitCredential || !strings.Contains(errs, "(from --credentials)") {
		t.Errorf("--credentials: exit %d %q", code, errs)
	}
}

// loadForTest parses the global flags in args and loads the config the way
// every command does.
func loadForTest(t *testing.T, args ...string) kit.Globals {
	t.Helper()
	cmd := &cobra.Command{}
	g := kit.Globals{}
	f := cmd.Flags()
	f.StringVar(&g.Config, "config", "", "")
	f.StringVar(&g.Theme, "theme", "", "")
	f.StringVar(&g.ProfileName, "profile", "", "")
	f.StringVar(&g.Endpoint, "endpoint", "", "")
	f.StringVar(&g.Credentials, "credentials", "", "")
	f.StringVar(&g.AccessTokenFile, "access-token-file", "", "")
	f.StringVar(&g.QuotaProject, "quota-project", "", "")
	f.BoolVar(&g.Demo, "demo", false, "")
	if err := f.Parse(args); err != nil {
		t.Fatal(err)
	}
	if err := kit.LoadConfig(cmd, &g, os.Getenv); err != nil {
		t.Fatal(err)
	}
	return g
}

// README's key examples load: " " and "space" are the space bar, quit: Q
// keeps ctrl+c, and ctrl+c on another action is refused at its line.
func TestConfigKeysSpaceAndCtrlC(t *testing.T) {
	home := isolate(t)
	// The space bar marks runtimes by default: moved to K here.
	for _, src := range []string{"keys:\n  refresh: \" \"\n  quit: Q\n  mark: K\n", "keys:\n  refresh: space\n  mark: K\n"} {
		cfg := writeFile(t, filepath.Join(home, "ok.yaml"), src)
		g := loadForTest(t, "--config", cfg)
		refresh, _ := g.Keys.Binding(keymap.ActionRefresh)
		quit, _ := g.Keys.Binding(keymap.ActionQuit)
		if got := refresh.Keys(); len(got) != 1 || got[0] != " " {
			t.Errorf("%q: refresh keys %q, want the space bar", src, got)
		}
		if !slices.Contains(quit.Keys(), "ctrl+c") {
			t.Errorf("%q: quit keys %q lack ctrl+c", src, quit.Keys())
		}
	}
	cfg := writeFile(t, filepath.Join(home, "bad.yaml"), "theme: dark\nkeys:\n  quit: Q\n  refresh: ctrl+c\n")
	code, _, errs := runCLI(t, "--config", cfg, "config")
	if code != kit.ExitUsage || !strings.Contains(errs, cfg+`:4: conflict: key "ctrl+c" always quits; bind refresh to another key`) {
		t.Errorf("refresh: ctrl+c: exit %d %q", code, errs)
	}
	// In the console ctrl+c never quits: binding it to another console
	// action clashes with console_stop, and the error says so.
	cfg = writeFile(t, filepath.Join(home, "console.yaml"), "keys:\n  console_run: ctrl+c\n")
	code, _, errs = runCLI(t, "--config", cfg, "config")
	if code != kit.ExitUsage || !strings.Contains(errs, cfg+`:2: conflict: key "ctrl+c" is bound to console_run and console_stop in the run-code console`) {
		t.Errorf("console_run: ctrl+c: exit %d %q", code, errs)
	}
}

// `colabdash config` prints the values in effect after flags, environment
// and profile, each saying where it came from.
func TestConfigShowsOverridesAndOrigins(t *testing.T) {
	home := isolate(t)
	cfg := writeFile(t, filepath.Join(home, "c.yaml"), "theme: dark\nprofile: alpha\nprofiles:\n  alpha:\n    quotaProject: qa\n"+
		"  beta:\n    endpoint: http://127.0.0.1:8089/mcp\n")
	t.Setenv("COLABDASH_PROFILE", "beta")
	code, out, errs := runCLI(t, "--config", cfg, "--theme", "light", "--endpoint", "http://127.0.0.1:9/mcp", "--quota-project", "qp", "config")
	if code != 0 {
		t.Fatalf("exit %d %q", code, errs)
	}
	for _, want := range []string{
		"theme: light # from --theme\n",
		"profile: beta # from COLABDASH_PROFILE\n",
		"    quotaProject: qa # from c.yaml:5\n",
		"    quotaProject: qp # from --quota-project\n",
		"    endpoint: \"http://127.0.0.1:9/mcp\" # from --endpoint\n",
		"refreshInterval: 30s\n", // a default: no comment
	} {
		if !strings.Contains(out, want) {
			t.Errorf("config output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "theme: dark") || strings.Contains(out, "8089") {
		t.Errorf("config output shows overridden values:\n%s", out)
	}
	code, out, _ = runCLI(t, "--config", cfg, "--demo", "config")
	if code != 0 || !strings.Contains(out, "profile: demo # from --demo\n") {
		t.Errorf("--demo config: exit %d\n%s", code, out)
	}
}

// One-line messages say what is wrong in the user's terms.
func TestUsageMessages(t *testing.T) {
	home := isolate(t)
	tab := writeFile(t, filepath.Join(home, "tab.yaml"), "theme: dark\nprofiles:\n\twork:\n\t\tquotaProject: x\n")
	missing := filepath.Join(home, "missing.yaml")
	for _, tc := range []struct {
		env  string
		args []string
		want string
	}{
		{"", []string{"--debug", "status", "--demo"}, "colabdash: --debug needs --log-file FILE\n"},
		{"", []string{"--demo", "--renew-lead", "0s", "status"}, "colabdash: --renew-lead is a dashboard flag: use it without a subcommand, e.g. colabdash --renew-lead 2m\n"},
		{"", []string{"status", "--readonly"}, "colabdash: --readonly is a dashboard flag"},
		{"", []string{"--config", tab, "config"}, "colabdash: config " + tab + ":3: tabs are not allowed for indentation in YAML; use spaces\n"},
		{missing, []string{"config"}, "colabdash: COLABDASH_CONFIG names " + missing + ", which does not exist\n"},
		{"", []string{"--config", missing, "config"}, "colabdash: --config names " + missing + ", which does not exist\n"},
	} {
		t.Setenv("COLABDASH_CONFIG", tc.env)
		code, _, errs := runCLI(t, tc.args...)
		if code != kit.ExitUsage || !strings.HasPrefix(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q\nwant %q", tc.args, code, errs, tc.want)
		}
	}
}

// config --check FILE names the line of a bad value (exit 2), is quiet
// and exit 0 for a good file, and checks FILE alone: a broken config in
// effect does not stop it.
func TestConfigCheckNamesTheBadLine(t *testing.T) {
	home := isolate(t)
	dir := t.TempDir()
	bad := writeFile(t, filepath.Join(dir, "bad.yaml"), "theme: dark\nprofiles:\n  work:\n    credentials: adc\n    endpoint: ftp://example.com\n")
	code, out, errs := runCLI(t, "config", "--check", bad)
	if code != 2 || out != "" || !strings.Contains(errs, bad+":5: profiles.work.endpoint") || strings.Count(errs, "\n") != 1 {
		t.Errorf("a bad endpoint on line 5: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	clash := writeFile(t, filepath.Join(dir, "clash.yaml"), "# keys\nkeys:\n  refresh: q\n")
	if code, _, errs := runCLI(t, "config", "--check", clash); code != 2 || !strings.Contains(errs, clash+":3: conflict") {
		t.Errorf("a key bound twice on line 3: exit %d, stderr %q", code, errs)
	}
	shadow := writeFile(t, filepath.Join(dir, "shadow.yaml"), "plugins:\n  mine:\n    scope: runtimes\n    key: r\n    command: /bin/true\n")
	if code, _, errs := runCLI(t, "config", "--check", shadow); code != 2 || !strings.Contains(errs, shadow+`:4: plugins.mine.key: conflict: key "r" is refresh's`) {
		t.Errorf("a plugin key shadowing refresh on line 4: exit %d, stderr %q", code, errs)
	}
	good := writeFile(t, filepath.Join(dir, "good.yaml"), "theme: light\nrefreshInterval: 1m\n")
	// The config in effect is broken; --check reads only its FILE.
	if err := os.MkdirAll(filepath.Join(home, ".config", "colabdash"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, ".config", "colabdash", "config.yaml"), "theme: blue\n")
	if code, out, errs := runCLI(t, "config", "--check", good); code != 0 || out != "" || errs != "" {
		t.Errorf("a good file: exit %d, stdout %q, stderr %q; want a quiet success", code, out, errs)
	}
	if code, _, errs := runCLI(t, "config", "--check", filepath.Join(dir, "none.yaml")); code != 2 || !strings.Contains(errs, "does not exist") {
		t.Errorf("a missing file: exit %d, stderr %q", code, errs)
	}
}

// The plugin examples in docs/configuration.md are configs colabdash
// accepts (config --check), so the documented example cannot rot.
func TestConfigurationDocPluginExamplesCheck(t *testing.T) {
	isolate(t)
	doc, err := os.ReadFile(filepath.Join(repoRoot, "docs", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(doc), "```yaml\n")[1:]
	n := 0
	for _, b := range blocks {
		body, _, _ := strings.Cut(b, "```")
		if !strings.HasPrefix(body, "plugins:") {
			continue
		}
		n++
		p := writeFile(t, filepath.Join(t.TempDir(), "c.yaml"), body)
		if code, _, errs := runCLI(t, "config", "--check", p); code != 0 {
			t.Errorf("a documented plugin config is refused: %s\n%s", errs, body)
		}
	}
	if n < 2 {
		t.Errorf("found %d plugin examples in docs/configuration.md, want the reference and the Jupyter one", n)
	}
}
