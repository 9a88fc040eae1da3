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
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/auth"
	"github.com/colabdash/colabdash/api/client"
	"github.com/colabdash/colabdash/api/colabfake"
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

// globalFlags are accepted before or after any subcommand.
type globalFlags struct {
	endpoint, credentials, accessTokenFile, quotaProject string
	demo                                                 bool
	readOnly                                             bool          // dashboard: --readonly
	renewLead                                            time.Duration // dashboard: --renew-lead
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
			"  colabdash status --json          # a one-shot listing for scripts",
		Version:       versionString(),
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDashboard(cmd.Context(), g, stderr)
		},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&g.endpoint, "endpoint", client.DefaultEndpoint, "Colab MCP endpoint URL")
	pf.StringVar(&g.credentials, "credentials", "", "Google credentials JSON file (authorized_user or service_account)")
	pf.StringVar(&g.accessTokenFile, "access-token-file", "", "file holding an OAuth access token to send as the bearer token")
	pf.StringVar(&g.quotaProject, "quota-project", "", "Google Cloud project billed for quota (sent as x-goog-user-project)")
	pf.BoolVar(&g.demo, "demo", false, "use an in-process Colab emulator seeded with demo data (no Google account needed)")
	root.Flags().BoolVar(&g.readOnly, "readonly", false, "disable every action that changes something (create, delete, sessions, run code)")
	root.Flags().DurationVar(&g.renewLead, "renew-lead", ui.DefaultRenewLead, "renew each proxy token this long before its expireTime")
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &exitError{exitUsage, err.Error()} })

	root.AddCommand(statusCmd(&g, stdout), emulatorCmd(stdout), &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and Go version",
		Args:  cobra.NoArgs,
		Run:   func(*cobra.Command, []string) { fmt.Fprintln(stdout, versionString()) },
	})
	root.SetArgs(args)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if !errors.As(err, &ee) {
		// cobra's own argument and command errors are usage errors.
		ee = &exitError{exitUsage, err.Error() + " (see colabdash --help)"}
	}
	if ee.msg != "" {
		fmt.Fprintln(stderr, "colabdash: "+ee.msg)
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
	if g.demo {
		return connectDemo(ctx)
	}
	creds, err := auth.New(ctx, auth.Options{
		CredentialsFile: g.credentials,
		AccessTokenFile: g.accessTokenFile,
		QuotaProject:    g.quotaProject,
	})
	if err != nil {
		return nil, err
	}
	c, err := client.New(ctx, client.Options{
		Endpoint:          g.endpoint,
		HTTPClient:        creds.HTTPClient(),
		OnUnauthenticated: creds.ForceRefresh,
		ClientVersion:     version,
		MaxAttempts:       retryAttempts,
		BaseDelay:         retryBaseDelay,
		MaxRetryDelay:     maxClientRetryDelay,
	})
	if err != nil {
		return nil, &exitError{exitUsage, err.Error()}
	}
	return &connection{svc: c, endpoint: g.endpoint, account: creds.Describe(), creds: creds, close: func() { c.Close() }}, nil
}

// connectDemo starts the emulator on a loopback port and connects to it
// with a placeholder bearer token (the emulator accepts any).
func connectDemo(ctx context.Context) (*connection, error) {
	srv, endpoint, err := colabfake.Start(ctx, "127.0.0.1:0", colabfake.Options{Seed: colabfake.SeedDemo, CreateDelay: demoCreateDelay})
	if err != nil {
		return nil, &exitError{exitFailure, "starting the demo emulator: " + err.Error()}
	}
	c, err := client.New(ctx, client.Options{Endpoint: endpoint, HTTPClient: demoHTTPClient(), ClientVersion: version})
	if err != nil {
		srv.Close()
		return nil, &exitError{exitFailure, err.Error()}
	}
	return &connection{svc: c, endpoint: endpoint, account: "demo (embedded emulator)", close: func() { c.Close(); srv.Close() }}, nil
}

// demoHTTPClient sends the fixed bearer token the emulator expects.
func demoHTTPClient() *http.Client {
	return &http.Client{Transport: bearer{token: "demo", base: http.DefaultTransport}}
}

type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
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
		return &exitError{exitCredential, api.OneLine(headline, 400)}
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
			for name, serr := range ov.SessionErrors {
				return classify(fmt.Errorf("list_sessions %s: %w", name, serr), conn.creds)
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
	f.DurationVar(&o.Latency, "latency", 0, "delay added to every tool call")
	f.StringVar(&o.Seed, "seed", colabfake.SeedDemo, "starting data: demo or empty")
	f.BoolVar(&o.Stateless, "stateless", false, "serve stateless MCP (protocol 2026-07-28, no Mcp-Session-Id)")
	f.BoolVar(&o.JSONResponse, "json-response", false, "answer with application/json instead of SSE streams")
	return cmd
}

// runDashboard opens the interactive dashboard. Without credentials it
// shows what was tried and how to fix it, with a key to continue in demo
// mode.
func runDashboard(ctx context.Context, g globalFlags, stderr io.Writer) error {
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
		final, runErr := ui.Run(ui.NewAuthError(authScreen(ae, noColor)))
		if runErr != nil {
			return &exitError{exitFailure, runErr.Error()}
		}
		if m, ok := final.(ui.AuthErrorModel); !ok || !m.WantsDemo() {
			return &exitError{exitCredential, ""}
		}
		if conn, err = connectDemo(ctx); err != nil {
			return err
		}
		g.demo = true
	}
	defer conn.close()
	_, err = ui.Run(ui.New(ui.Options{
		Service:   conn.svc,
		Endpoint:  conn.endpoint,
		Account:   conn.account,
		Demo:      g.demo,
		NoColor:   noColor,
		Context:   ctx,
		ReadOnly:  g.readOnly,
		RenewLead: g.renewLead,
		StateDir:  ui.DefaultStateDir(),
	}))
	if err != nil {
		return &exitError{exitFailure, err.Error()}
	}
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
