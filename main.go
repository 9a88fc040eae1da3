// Command colabdash is a terminal dashboard for Google Colab runtimes: the
// subscription tier, every runtime and its Jupyter sessions, and a live
// countdown to each runtime's proxy-token expiry.
//
// main only parses flags and wires the packages together: api/auth
// (credentials), api/client (the Colab MCP client), api/colabfake (the
// embedded emulator for --demo and `colabdash emulator`) and ui.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/oauth2"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/auth"
	"github.com/colabdash/colabdash/api/client"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui"
)

// Exit codes of every command.
const (
	exitOK         = 0
	exitFailure    = 1 // the dashboard could not run
	exitUsage      = 2 // wrong flags or arguments
	exitCredential = 3 // credentials or permission
	exitAPI        = 4 // any other API or network failure
)

// version and commit are set at build time with
// -ldflags "-X main.version=… -X main.commit=…"; otherwise they come from
// the module's build info.
var version, commit = "dev", ""

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// globalFlags are accepted before or after any subcommand. settings,
// keys and profile are filled in before any command runs (loadConfig).
type globalFlags struct {
	endpoint, credentials, accessTokenFile, quotaProject string
	demo                                                 bool
	config, profileName                                  string
	logFile, theme                                       string
	debug                                                bool
	readOnly                                             bool          // dashboard: --readonly
	renewLead                                            time.Duration // dashboard: --renew-lead

	changed  func(name string) bool // whether a flag was given
	settings *state.Settings
	keys     *keymap.KeyMap
	profile  state.Profile
	origin   authOrigin // where profile's files and quota project were set
	logs     logs
}

// authOrigin says where a profile's credentials file (or access token
// file) and quota project were set, for error messages: a flag such as
// "--credentials", or "profile work, FILE:LINE". "" lets api/auth name
// the flag.
type authOrigin struct{ creds, quota string }

// profileAuthOrigin is where the config file set profile p's credentials
// file and quota project.
func profileAuthOrigin(s *state.Settings, p state.Profile) authOrigin {
	o := authOrigin{quota: s.ProfileOrigin(p.Name, "quotaProject")}
	switch p.Credentials {
	case state.CredentialsFile:
		o.creds = s.ProfileOrigin(p.Name, "credentialsFile")
	case state.CredentialsAccessToken:
		o.creds = s.ProfileOrigin(p.Name, "accessTokenFile")
	}
	return o
}

// logs is where structured logs go (--log-file) and the redactor every
// line passes through; without --log-file, log discards.
type logs struct {
	log   *slog.Logger
	red   *api.Redactor
	close func()
}

// exitError carries an exit code and the one line already worth printing.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func run(args []string, stdout, stderr io.Writer) int {
	var g globalFlags
	root := &cobra.Command{
		Use:   "colabdash",
		Short: "A terminal dashboard for Google Colab runtimes",
		Long: "colabdash shows your Colab subscription tier, every runtime with its Jupyter sessions,\n" +
			"and a live countdown to each runtime's proxy-token expiry, renewing tokens before they lapse.",
		Example: "  colabdash --demo                 # the dashboard on the embedded emulator\n" +
			"  colabdash                        # the dashboard on your Colab account (ADC)\n" +
			"  colabdash --profile work         # a profile from the config file (P switches inside)\n" +
			"  colabdash status --json          # a one-shot listing for scripts\n" +
			"  colabdash config                 # the settings in effect and the file they came from\n" +
			"  colabdash --log-file /tmp/colabdash.log --debug   # structured logs, secrets redacted\n" +
			"  colabdash completion bash > ~/.local/share/bash-completion/completions/colabdash\n" +
			"                                   # shell completion (also zsh, fish, powershell)",
		Version:       versionString(),
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDashboard(cmd.Context(), g)
		},
		// A broken config file stops every command before it starts.
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			// version, help and shell completion work whatever the file says.
			switch cmd.Name() {
			case "version", "help", "completion", cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd:
				return nil
			}
			if cmd.Parent() != nil && cmd.Parent().Name() == "completion" {
				return nil
			}
			if err := loadConfig(cmd, &g, os.Getenv); err != nil {
				return err
			}
			return openLog(&g, cmd.CommandPath())
		},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&g.config, "config", "", "config file (default $XDG_CONFIG_HOME/colabdash/config.yaml; env COLABDASH_CONFIG)")
	pf.StringVar(&g.logFile, "log-file", "", "append structured JSON logs (every API call: tool, target, duration, outcome) to FILE; secrets are redacted")
	pf.BoolVar(&g.debug, "debug", false, "log in more detail (retries, MCP traffic, raw error replies); needs --log-file")
	pf.StringVar(&g.theme, "theme", "", "colours for a dark or light terminal background: auto, dark or light (default: config theme, else auto)")
	pf.StringVar(&g.profileName, "profile", "", "profile from the config file to use (env COLABDASH_PROFILE; \"demo\" is built in)")
	pf.StringVar(&g.endpoint, "endpoint", client.DefaultEndpoint, "Colab MCP endpoint URL")
	pf.StringVar(&g.credentials, "credentials", "", "Google credentials JSON file (authorized_user or service_account)")
	pf.StringVar(&g.accessTokenFile, "access-token-file", "", "file holding an OAuth access token to send as the bearer token")
	pf.StringVar(&g.quotaProject, "quota-project", "", "Google Cloud project billed for quota (sent as x-goog-user-project)")
	pf.BoolVar(&g.demo, "demo", false, "use an in-process Colab emulator seeded with demo data (no Google account needed)")
	_ = root.RegisterFlagCompletionFunc("theme", cobra.FixedCompletions([]string{"auto", "dark", "light"}, cobra.ShellCompDirectiveNoFileComp))
	_ = root.RegisterFlagCompletionFunc("profile", func(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		path, explicit := configPath(&g, os.Getenv)
		s, err := state.LoadSettings(path, explicit, state.SettingsOptions{Actions: keymap.Actions(), CheckKey: keymap.CheckKey})
		if err != nil {
			return []string{state.ProfileDemo}, cobra.ShellCompDirectiveNoFileComp
		}
		return s.ProfileNames(), cobra.ShellCompDirectiveNoFileComp
	})
	root.Flags().BoolVar(&g.readOnly, "readonly", false, "disable every action that changes something (create, delete, sessions, run code)")
	root.Flags().DurationVar(&g.renewLead, "renew-lead", ui.DefaultRenewLead, "renew each proxy token this long before its expireTime")
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		// A dashboard-only flag given to a subcommand: say where it goes.
		if cmd != root {
			for _, name := range []string{"renew-lead", "readonly"} {
				if strings.HasPrefix(err.Error(), "unknown flag: --"+name) {
					return &exitError{exitUsage, "--" + name + " is a dashboard flag: use it without a subcommand, e.g. colabdash --" + name + dashboardFlagExample[name]}
				}
			}
		}
		return &exitError{exitUsage, err.Error()}
	})

	root.AddCommand(statusCmd(&g, stdout), emulatorCmd(stdout), configCmd(&g, stdout), &cobra.Command{
		Use:     "version",
		Short:   "Print the version, commit and Go version",
		Example: "  colabdash version\n  colabdash --version",
		Args:    cobra.NoArgs,
		Run:     func(*cobra.Command, []string) { fmt.Fprintln(stdout, versionString()) },
	})
	root.SetArgs(args)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	failed, err := root.ExecuteContextC(ctx)
	if g.logs.close != nil {
		defer g.logs.close()
	}
	if err != nil && g.logs.log != nil {
		g.logs.log.Error("command failed", "error", err)
	}
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if !errors.As(err, &ee) {
		// cobra's own argument and command errors are usage errors.
		ee = &exitError{exitUsage, err.Error() + " (see " + failed.CommandPath() + " --help)"}
	}
	if ee.msg != "" {
		// A server reply quoted in an error may carry a token.
		fmt.Fprintln(stderr, "colabdash: "+g.logs.red.Redact(ee.msg))
	}
	return ee.code
}

func versionString() string {
	v, c := version, commit
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && c == "" {
				c = s.Value
			}
		}
	}
	if c == "" {
		c = "unknown"
	}
	return fmt.Sprintf("colabdash %s (commit %s, %s)", v, c, runtime.Version())
}

// dashboardFlagExample is the value shown after a dashboard-only flag in
// the error for giving it to a subcommand.
var dashboardFlagExample = map[string]string{"renew-lead": " 2m", "readonly": ""}

// Retries of transient failures (UNAVAILABLE, 5xx, rate limits): three
// attempts from half a second apart, so a dead endpoint is reported in
// about two seconds instead of a quarter of a minute.
//
// A server retry delay longer than maxClientRetryDelay is not waited out
// silently inside the client: the error reaches the dashboard, which shows
// the countdown (e.g. "rate limited, retrying 2/5 in 0:53") with a cancel
// key and re-sends the identical create_runtime itself.
const (
	retryAttempts       = 3
	retryBaseDelay      = 500 * time.Millisecond
	maxClientRetryDelay = 5 * time.Second
)

// demoCreateDelay is how long create_runtime takes in --demo, so the
// "creating… 0:02" row is visible.
const demoCreateDelay = 2 * time.Second

// connection is a ready Service plus what the header shows about it.
type connection struct {
	svc      api.Service
	endpoint string
	account  string
	creds    *auth.Credentials // nil in demo mode
	close    func()
}

// connect wires credentials and the MCP client, or, with --demo, an
// in-process emulator seeded with demo data. Connecting to the server is
// lazy (the first call does it), so this never blocks on the network.
func connect(ctx context.Context, g globalFlags) (*connection, error) {
	return connectProfile(ctx, g.profile, g.origin, g.logs)
}

// connectProfile connects with one profile's credentials and endpoint;
// every API call is logged to lg.
// from says where the profile's files and quota project were set.
func connectProfile(ctx context.Context, p state.Profile, from authOrigin, lg logs) (*connection, error) {
	if lg.log == nil {
		lg = logs{log: slog.New(slog.DiscardHandler), red: &api.Redactor{}}
	}
	// Every record of this connection names its profile, so calls after a
	// profile switch can be told apart in the log.
	lg.log = lg.log.With("profile", p.Name)
	if p.Credentials == state.CredentialsDemo {
		return connectDemo(ctx, lg)
	}
	if p.Credentials == state.CredentialsAccessToken {
		// The token is a secret wherever it might show up in a log.
		if b, err := os.ReadFile(expandHome(p.AccessTokenFile)); err == nil {
			lg.red.Add(string(b))
		}
	}
	creds, err := auth.New(ctx, auth.Options{
		CredentialsFile:  expandHome(p.CredentialsFile),
		AccessTokenFile:  expandHome(p.AccessTokenFile),
		QuotaProject:     p.QuotaProject,
		From:             from.creds,
		QuotaProjectFrom: from.quota,
	})
	if err != nil {
		return nil, err
	}
	c, err := client.New(ctx, client.Options{
		Endpoint:          p.Endpoint,
		HTTPClient:        creds.HTTPClient(),
		OnUnauthenticated: creds.ForceRefresh,
		ClientVersion:     version,
		Logger:            lg.log,
		MaxAttempts:       retryAttempts,
		BaseDelay:         retryBaseDelay,
		MaxRetryDelay:     maxClientRetryDelay,
	})
	if err != nil {
		return nil, &exitError{exitUsage, err.Error()}
	}
	return owned(&connection{svc: api.LoggingService(c, lg.log, lg.red), endpoint: p.Endpoint, account: creds.Describe(), creds: creds, close: func() { c.Close() }}), nil
}

// connectDemo starts the emulator on a loopback port and connects to it
// with a placeholder bearer token (the emulator accepts any).
func connectDemo(ctx context.Context, lg logs) (*connection, error) {
	srv, endpoint, err := colabfake.Start(ctx, "127.0.0.1:0", colabfake.Options{Seed: colabfake.SeedDemo, CreateDelay: demoCreateDelay})
	if err != nil {
		return nil, &exitError{exitFailure, "starting the demo emulator: " + err.Error()}
	}
	c, err := client.New(ctx, client.Options{Endpoint: endpoint, HTTPClient: demoHTTPClient(), ClientVersion: version, Logger: lg.log})
	if err != nil {
		srv.Close()
		return nil, &exitError{exitFailure, err.Error()}
	}
	return owned(&connection{svc: api.LoggingService(c, lg.log, lg.red), endpoint: endpoint, account: "embedded emulator", close: func() { c.Close(); srv.Close() }}), nil
}

// demoHTTPClient sends the fixed bearer token the emulator expects
// (any non-empty token).
func demoHTTPClient() *http.Client {
	return &http.Client{Transport: &oauth2.Transport{Source: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "demo"})}}
}

// classify turns a failure into the command's exit code and one line:
// 3 for credentials or permission, 4 for any other API or network failure.
func classify(err error, creds *auth.Credentials) *exitError {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee
	}
	if headline, fix := auth.Explain(err, creds); headline != "" {
		if fix != "" {
			headline += "; fix: " + fix
		}
		return &exitError{exitCredential, api.OneLine(headline, 0)}
	}
	var ae *api.Error
	if errors.As(err, &ae) && ae.IsAuth() {
		return &exitError{exitCredential, ae.Error()}
	}
	if errors.Is(err, context.Canceled) {
		return &exitError{exitAPI, "interrupted"}
	}
	return &exitError{exitAPI, api.OneLine(err.Error(), 300)}
}

func statusCmd(g *globalFlags, stdout io.Writer) *cobra.Command {
	var asJSON, showTokens bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Print the tier, runtimes, sessions and token time left, then exit",
		Long: "status calls get_subscription, list_runtimes and list_sessions for every runtime (concurrently)\n" +
			"and prints a table, or JSON with --json. Proxy tokens are printed only with --show-tokens.\n" +
			"Exit codes: 0 ok, 2 usage, 3 credentials or permission, 4 any other API or network failure.",
		Example: "  colabdash status --demo\n  colabdash status --json | jq '.runtimes[].tokenExpiresInSeconds'\n" +
			"  colabdash status --endpoint http://127.0.0.1:8089/mcp --access-token-file token.txt",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			conn, err := connect(cmd.Context(), *g)
			if err != nil {
				return classify(err, nil)
			}
			defer conn.close()
			ov, err := api.LoadOverview(cmd.Context(), conn.svc)
			if err != nil {
				return classify(err, conn.creds)
			}
			now := time.Now()
			if asJSON {
				err = ui.WriteStatusJSON(stdout, ui.NewStatusReport(ov, now, showTokens))
			} else {
				err = ui.WriteStatusTable(stdout, ov, now, showTokens)
			}
			if err != nil {
				return &exitError{exitFailure, err.Error()}
			}
			for _, rt := range ov.Runtimes { // in listed order, not map order
				if serr := ov.SessionErrors[rt.Name]; serr != nil {
					return classify(fmt.Errorf("list_sessions %s: %w", rt.Name, serr), conn.creds)
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON (shape documented in README)")
	cmd.Flags().BoolVar(&showTokens, "show-tokens", false, "include the proxy tokens (secrets!) in the output")
	return cmd
}

func emulatorCmd(stdout io.Writer) *cobra.Command {
	var (
		addr string
		o    colabfake.Options
	)
	cmd := &cobra.Command{
		Use:   "emulator",
		Short: "Serve the embedded Colab MCP emulator on loopback",
		Long: "emulator serves a Colab MCP server (all ten tools, proxy tokens that expire, quotas) on a\n" +
			"loopback address until interrupted. It accepts any non-empty bearer token.",
		Example: "  colabdash emulator --addr 127.0.0.1:8089 --token-ttl 2m\n" +
			"  echo fake > token.txt; colabdash status --endpoint http://127.0.0.1:8089/mcp --access-token-file token.txt",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Seed != colabfake.SeedDemo && o.Seed != colabfake.SeedEmpty {
				return &exitError{exitUsage, fmt.Sprintf("--seed must be %q or %q, not %q", colabfake.SeedDemo, colabfake.SeedEmpty, o.Seed)}
			}
			srv, endpoint, err := colabfake.Start(cmd.Context(), addr, o)
			if err != nil {
				return &exitError{exitUsage, err.Error()}
			}
			defer srv.Close()
			fmt.Fprintln(stdout, endpoint)
			fmt.Fprintf(stdout, "Colab emulator serving on %s (any non-empty bearer token is accepted; Ctrl+C stops it)\n", endpoint)
			<-cmd.Context().Done()
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8089", "loopback address to listen on (port 0 picks a free one)")
	f.DurationVar(&o.TokenTTL, "token-ttl", colabfake.DefaultTokenTTL, "proxy-token lifetime")
	f.DurationVar(&o.CreateDelay, "create-delay", 3*time.Second, "how long create_runtime takes")
	f.DurationVar(&o.Latency, "latency", 0, "delay added to every MCP request (handshake, tools/list, tools/call)")
	f.StringVar(&o.Seed, "seed", colabfake.SeedDemo, "starting data: demo or empty")
	f.BoolVar(&o.Stateless, "stateless", false, "serve stateless MCP (protocol 2026-07-28, no Mcp-Session-Id)")
	f.BoolVar(&o.JSONResponse, "json-response", false, "answer with application/json instead of SSE streams")
	f.BoolVar(&o.NoAuth, "no-auth", false, "also serve requests without a bearer token (for MCP conformance suites only)")
	return cmd
}

// runDashboard opens the interactive dashboard. Without credentials it
// shows what was tried and how to fix it, with a key to continue in demo
// mode.
func runDashboard(ctx context.Context, g globalFlags) error {
	if !ui.IsTerminal(os.Stdout) {
		return &exitError{exitUsage, strings.TrimPrefix(ui.NotATerminalMessage, "colabdash: ")}
	}
	noColor := ui.NoColorFromEnv()
	ui.ConfigureColor(noColor)
	conn, err := connect(ctx, g)
	if err != nil {
		var ae *auth.Error
		if !errors.As(err, &ae) {
			return classify(err, nil)
		}
		info := authScreen(ae, noColor)
		info.Keymap = g.keys
		final, runErr := ui.Run(ui.NewAuthError(info))
		if runErr != nil {
			return &exitError{exitFailure, runErr.Error()}
		}
		if m, ok := final.(ui.AuthErrorModel); !ok || !m.WantsDemo() {
			// Printed on the normal screen, where a long login command can
			// be copied whole.
			return classify(err, nil)
		}
		if conn, err = connectDemo(ctx, g.logs); err != nil {
			return err
		}
		g.demo, g.profile = true, g.settings.Profiles[state.ProfileDemo]
	}
	defer conn.close()
	o := dashboardOptions(g)
	o.Service, o.Endpoint, o.Account, o.Demo, o.NoColor, o.Context = conn.svc, conn.endpoint, conn.account, g.demo, noColor, ctx
	o.ReadOnly, o.StateDir = g.readOnly, ui.DefaultStateDir()
	if g.changed("renew-lead") {
		o.RenewLead = g.renewLead // the flag beats the config file
	}
	if o.Theme == state.ThemeAuto {
		o.Theme = ui.ThemeDark // irrelevant without colour: never query the terminal
		if !noColor {
			o.Theme = ui.DetectTheme() // bounded wait, before Bubble Tea owns the terminal
		}
	}
	final, err := ui.Run(ui.New(o))
	if m, ok := final.(ui.Model); ok && m.Service() != nil {
		m.Service().Close() // the last profile's connection
	}
	if err != nil {
		return &exitError{exitFailure, err.Error()}
	}
	return nil
}

// configPath returns the config file to read and whether the user named
// it (--config, then COLABDASH_CONFIG) rather than it being the default
// location.
func configPath(g *globalFlags, getenv func(string) string) (string, bool) {
	if g.config != "" {
		return g.config, true
	}
	if p := getenv("COLABDASH_CONFIG"); p != "" {
		return p, true
	}
	return state.DefaultConfigPath(getenv), false
}

// loadConfig reads the config file, builds the key map and resolves the
// profile; precedence is flags > environment > profile > file > defaults.
// Any problem is one line and exit code 2.
func loadConfig(cmd *cobra.Command, g *globalFlags, getenv func(string) string) error {
	path, explicit := configPath(g, getenv)
	if _, err := os.Stat(path); explicit && errors.Is(err, fs.ErrNotExist) {
		by := "--config"
		if g.config == "" {
			by = "COLABDASH_CONFIG"
		}
		return &exitError{exitUsage, by + " names " + path + ", which does not exist"}
	}
	s, err := state.LoadSettings(path, explicit, state.SettingsOptions{Actions: keymap.Actions(), CheckKey: keymap.CheckKey})
	if err != nil {
		return &exitError{exitUsage, err.Error()}
	}
	if g.keys, err = buildKeymap(s); err != nil {
		return &exitError{exitUsage, err.Error()}
	}
	g.settings = s
	g.changed = func(name string) bool { f := cmd.Flags().Lookup(name); return f != nil && f.Changed }
	name, from := s.Profile, "the config file"
	if s.Line("profile") == 0 {
		from = "the default"
	}
	if v := getenv("COLABDASH_PROFILE"); v != "" {
		name, from = v, "COLABDASH_PROFILE"
	}
	if g.profileName != "" {
		name, from = g.profileName, "--profile"
	}
	if g.demo {
		name, from = state.ProfileDemo, "--demo"
	}
	p, ok := s.Profiles[name]
	if !ok {
		return &exitError{exitUsage, fmt.Sprintf("profile %q (from %s) is not defined (defined: %s)", name, from, strings.Join(s.ProfileNames(), ", "))}
	}
	g.origin = profileAuthOrigin(s, p)
	if g.changed("endpoint") {
		p.Endpoint = g.endpoint
	}
	if g.changed("quota-project") {
		p.QuotaProject, g.origin.quota = g.quotaProject, "--quota-project"
	}
	if g.changed("credentials") {
		p.Credentials, p.CredentialsFile, p.AccessTokenFile = state.CredentialsFile, g.credentials, ""
		g.origin.creds = "--credentials"
	}
	if g.changed("access-token-file") {
		p.Credentials, p.AccessTokenFile = state.CredentialsAccessToken, g.accessTokenFile
		g.origin.creds = "--access-token-file"
	}
	g.profile = p
	g.demo = p.Credentials == state.CredentialsDemo
	switch strings.ToLower(g.theme) {
	case "", state.ThemeAuto, state.ThemeDark, state.ThemeLight:
		g.theme = strings.ToLower(g.theme)
	default:
		return &exitError{exitUsage, fmt.Sprintf("--theme %q is not accepted (accepted: auto, dark, light)", g.theme)}
	}
	return nil
}

// themeName is --theme, else the config's theme: "auto", "dark" or
// "light".
func (g globalFlags) themeName() string {
	if g.theme != "" {
		return g.theme
	}
	return g.settings.Theme
}

// buildKeymap applies the config's key bindings over the defaults and
// reports a key bound to two actions, naming the config line.
func buildKeymap(s *state.Settings) (*keymap.KeyMap, error) {
	k := keymap.Default()
	for _, a := range keymap.Actions() {
		if keys, ok := s.Keys[a]; ok {
			if err := k.Rebind(a, keys...); err != nil {
				return nil, s.ErrorAt("keys."+a, err.Error())
			}
		}
	}
	for _, c := range k.Conflicts() {
		if c.Key == keymap.AlwaysQuit {
			// ctrl+c stays on quit whatever the file says.
			for _, a := range c.Actions {
				if a != keymap.ActionQuit {
					return nil, s.ErrorAt("keys."+a, fmt.Sprintf("conflict: key %q always quits; bind %s to another key", c.Key, a))
				}
			}
		}
		for _, a := range c.Actions {
			if _, ok := s.Keys[a]; ok {
				return nil, s.ErrorAt("keys."+a, "conflict: "+c.String()+"; bind one of them to another key")
			}
		}
	}
	return k, nil
}

// expandHome turns a leading "~/" into the home directory.
func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return p
}

func configCmd(g *globalFlags, stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "Print the effective configuration and the file it came from",
		Long: "config prints the settings in effect as a YAML config file, after flags, environment and profile:\n" +
			"a value that is not a default ends in a comment saying where it came from (# from --theme,\n" +
			"# from COLABDASH_PROFILE, # from config.yaml:12). The file is --config, else $COLABDASH_CONFIG, else\n" +
			"$XDG_CONFIG_HOME/colabdash/config.yaml (~/.config/colabdash/config.yaml).\n" +
			"A broken file is reported as one line naming the file and line (exit code 2).",
		Example: "  colabdash config                       # what is in effect, and from where\n" +
			"  colabdash config > ~/.config/colabdash/config.yaml   # start a config file from the defaults\n" +
			"  colabdash --config ./test.yaml config  # check a file before using it",
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			s := g.settings
			if s.Source == "" {
				path, _ := configPath(g, os.Getenv)
				fmt.Fprintf(stdout, "# defaults: no config file at %s\n", path)
			}
			fmt.Fprint(stdout, effectiveSettings(*g, os.Getenv).EffectiveAnnotated())
			fmt.Fprintf(stdout, "# profile in effect: %s\n", g.profile.Name)
			return nil
		},
	}
}

// effectiveSettings is the config file's settings with the flags and
// environment variables applied, each override recorded (SetOrigin) so
// `colabdash config` can say where it came from.
func effectiveSettings(g globalFlags, getenv func(string) string) *state.Settings {
	eff := g.settings.Clone()
	if g.theme != "" {
		eff.Theme = g.theme
		eff.SetOrigin("theme", "--theme")
	}
	name := g.profile.Name
	eff.Profile = name
	switch {
	case g.changed("demo"):
		eff.SetOrigin("profile", "--demo")
	case g.changed("profile"):
		eff.SetOrigin("profile", "--profile")
	case getenv("COLABDASH_PROFILE") != "":
		eff.SetOrigin("profile", "COLABDASH_PROFILE")
	}
	if name == state.ProfileDemo {
		return eff // built in: the flags below do not apply to it
	}
	eff.Profiles[name] = g.profile
	path := "profiles." + name + "."
	for _, f := range []struct{ flag, field string }{
		{"endpoint", "endpoint"}, {"quota-project", "quotaProject"},
		{"credentials", "credentials"}, {"credentials", "credentialsFile"},
		{"access-token-file", "credentials"}, {"access-token-file", "accessTokenFile"},
	} {
		if g.changed(f.flag) {
			eff.SetOrigin(path+f.field, "--"+f.flag)
		}
	}
	return eff
}

// dashboardOptions carries the config's settings into the dashboard.
func dashboardOptions(g globalFlags) ui.Options {
	s := g.settings
	return ui.Options{
		RefreshInterval:   s.RefreshInterval,
		ExpiringThreshold: s.ExpiryWarning,
		RenewLead:         s.RenewLead,
		NoAutoRenew:       !s.AutoRenew,
		DefaultSpec:       s.DefaultRuntimeSpec,
		Keymap:            g.keys,
		Theme:             g.themeName(),
		Profile:           g.profile.Name,
		Profiles:          s.ProfileNames(),
		Redact:            g.logs.red.Redact,
		Connect: func(ctx context.Context, name string) (api.Service, ui.ConnInfo, error) {
			p, ok := s.Profiles[name]
			if !ok {
				return nil, ui.ConnInfo{}, fmt.Errorf("profile %q is not defined", name)
			}
			c, err := connectProfile(ctx, p, profileAuthOrigin(s, p), g.logs)
			if err != nil {
				return nil, ui.ConnInfo{}, errors.New(classify(err, nil).msg)
			}
			return c.svc, ui.ConnInfo{Endpoint: c.endpoint, Account: c.account, Demo: p.Credentials == state.CredentialsDemo}, nil
		},
	}
}

// ownedService is a connection's Service whose Close also releases what
// the connection owns (the demo emulator), once, whoever calls it first:
// the dashboard when it switches profile, or main on exit.
type ownedService struct {
	api.Service
	once  sync.Once
	close func()
}

// Close releases the connection once.
func (o *ownedService) Close() error {
	o.once.Do(o.close)
	return nil
}

func owned(c *connection) *connection {
	o := &ownedService{Service: c.svc, close: c.close}
	c.svc, c.close = o, func() { o.Close() }
	return c
}

// openLog opens --log-file (appending, mode 0600) with a JSON handler
// behind api.RedactingHandler: info level, debug with --debug.
func openLog(g *globalFlags, command string) error {
	g.logs = logs{log: slog.New(slog.DiscardHandler), red: &api.Redactor{}}
	if g.logFile == "" {
		if g.debug {
			msg := "--debug needs --log-file FILE"
			if command == "colabdash" {
				msg += " (the dashboard owns the terminal)"
			}
			return &exitError{exitUsage, msg}
		}
		return nil
	}
	f, err := os.OpenFile(expandHome(g.logFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return &exitError{exitUsage, "--log-file: " + err.Error()}
	}
	level := slog.LevelInfo
	if g.debug {
		level = slog.LevelDebug
	}
	g.logs.log = slog.New(api.NewRedactingHandler(slog.NewJSONHandler(f, &slog.HandlerOptions{Level: level}), g.logs.red))
	g.logs.close = func() { f.Close() }
	g.logs.log.Info("start", "command", command, "version", versionString(), "profile", g.profile.Name,
		"endpoint", g.profile.Endpoint, "config", g.settings.Source)
	return nil
}

// authScreen says what was tried and how to fix it, the login command on a
// line of its own so it can be copied whole.
func authScreen(ae *auth.Error, noColor bool) ui.AuthErrorInfo {
	info := ui.AuthErrorInfo{Headline: ae.Error(), Tried: ae.Tried, NoColor: noColor}
	if ae.Kind == auth.KindNoCredentials {
		info.Headline = "No Google credentials found"
		info.Fix = []string{
			"Sign in with the Colab scope (Application Default Credentials):",
			"  gcloud auth application-default login \\",
			"    --scopes=" + auth.ColabScope + "," + auth.CloudPlatformScope,
			"or pass --credentials FILE (authorized_user or service_account JSON),",
			"or pass --access-token-file FILE (a bearer token).",
		}
		return info
	}
	if ae.Fix != "" {
		info.Fix = []string{ae.Fix}
	}
	return info
}
