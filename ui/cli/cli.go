// Package cli holds colabdash's commands (cobra): the dashboard, status,
// config, emulator and completion, with flag/environment/config precedence
// and the wiring of api/auth, api/client, api/colabfake and ui.
//
// colabdash is a terminal dashboard for Google Colab runtimes: the
// subscription tier, every runtime and its Jupyter sessions, and a live
// countdown to each runtime's proxy-token expiry.
//
// This package parses flags and wires the packages together: api/auth
// (credentials), api/client (the Colab MCP client), api/colabfake (the
// embedded emulator for --demo and `colabdash emulator`) and ui.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/ui/termtext"
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
// -ldflags "-X github.com/colabdash/colabdash/ui/cli.version=…"
// (and cli.commit); otherwise they come from the module's build info.
var version, commit = "dev", ""

// Run runs colabdash with args (without the program name), reading
// os.Stdin and writing to stdout and stderr, and returns the process exit
// code: 0 ok, 1 failure (exec: the code raised; several targets: some
// failed), 2 usage, 3 credentials or permission, 4 API or network, 5 quota
// or ineligible, 128 + the signal's number when a signal ended it (130
// SIGINT, 143 SIGTERM, 129 SIGHUP).
func Run(args []string, stdout, stderr io.Writer) int {
	return runStreams(args, osStreams(stdout, stderr))
}

// run is Run without a terminal anywhere and with an empty stdin (tests).
func run(args []string, stdout, stderr io.Writer) int {
	return runStreams(args, &streams{in: strings.NewReader(""), out: stdout, err: stderr})
}

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
	settings *config.Settings
	keys     *keymap.KeyMap
	profile  config.Profile
	origin   authOrigin // where profile's files and quota project were set
	logs     logs

	completions *completionWriter // set while __complete runs
}

// authOrigin says where a profile's credentials file (or access token
// file) and quota project were set, for error messages: a flag such as
// "--credentials", or "profile work, FILE:LINE". "" lets api/auth name
// the flag.
type authOrigin struct{ creds, quota string }

// profileAuthOrigin is where the config file set profile p's credentials
// file and quota project.
func profileAuthOrigin(s *config.Settings, p config.Profile) authOrigin {
	o := authOrigin{quota: s.ProfileOrigin(p.Name, "quotaProject")}
	switch p.Credentials {
	case config.CredentialsFile:
		o.creds = s.ProfileOrigin(p.Name, "credentialsFile")
	case config.CredentialsAccessToken:
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

func runStreams(args []string, s *streams) int {
	return runStreamsContext(context.Background(), args, s)
}

// newRootCommand is the whole command tree, its flags bound to g and its
// output to s: what runStreamsContext executes and what the generated
// references (docs/reference, docs/man) are made from.
func newRootCommand(g *globalFlags, s *streams) *cobra.Command {
	stdout, stderr := s.out, s.err
	root := &cobra.Command{
		Use:   "colabdash",
		Short: "A terminal dashboard for Google Colab runtimes",
		Long: "colabdash shows your Colab subscription tier, every runtime with its Jupyter sessions,\n" +
			"and a live countdown to each runtime's proxy-token expiry, renewing tokens before they lapse.",
		Example: "  colabdash --demo                 # the dashboard on the embedded emulator\n" +
			"  colabdash                        # the dashboard on your Colab account (ADC)\n" +
			"  colabdash --profile work         # a profile from the config file (P switches inside)\n" +
			"  colabdash status --json          # a one-shot listing for scripts\n" +
			"  colabdash create --spec GPU/T4/STANDARD --wait --json   # scriptable verbs: specs, create, delete,\n" +
			"  colabdash exec rt-abc -c 'print(6*7)'                   # sessions, session, exec, url, token\n" +
			"  colabdash config                 # the settings in effect and the file they came from\n" +
			"  colabdash --log-file /tmp/colabdash.log --debug   # structured logs, secrets redacted\n" +
			"  colabdash completion bash > ~/.local/share/bash-completion/completions/colabdash\n" +
			"                                   # shell completion (also zsh, fish, powershell)",
		Version:       versionString(),
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          unknownCommand,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDashboard(cmd.Context(), *g)
		},
		// A broken config file stops every command before it starts.
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Name() == cobra.ShellCompRequestCmd { // __complete and __completeNoDesc
				// Every candidate leaves through termtext (completionWriter).
				g.completions = &completionWriter{w: stdout}
				cmd.Root().SetOut(g.completions)
			}
			// version, help and shell completion work whatever the file says.
			switch cmd.Name() {
			case "version", "help", "completion", cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd:
				return nil
			}
			if cmd.Parent() != nil && cmd.Parent().Name() == "completion" {
				return nil
			}
			if err := loadConfig(cmd, g, os.Getenv); err != nil {
				return err
			}
			return openLog(g, cmd.CommandPath())
		},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&g.config, "config", "", "config file (default $XDG_CONFIG_HOME/colabdash/config.yaml; env COLABDASH_CONFIG)")
	pf.StringVar(&g.logFile, "log-file", "", "append structured JSON logs (every API call: tool, target, duration, outcome) to FILE; secrets are redacted")
	pf.BoolVar(&g.debug, "debug", false, "log in more detail (retries, MCP traffic, raw error replies); needs --log-file")
	pf.StringVar(&g.theme, "theme", "", "colours for a dark or light terminal background: auto, dark or light (default: config theme, else auto)")
	pf.StringVar(&g.profileName, "profile", "", "profile from the config file to use (env COLABDASH_PROFILE; \"demo\" is built in)")
	pf.StringVar(&g.endpoint, "endpoint", api.DefaultEndpoint, "Colab MCP endpoint URL")
	pf.StringVar(&g.credentials, "credentials", "", "Google credentials JSON file (authorized_user or service_account)")
	pf.StringVar(&g.accessTokenFile, "access-token-file", "", "file holding an OAuth access token to send as the bearer token")
	pf.StringVar(&g.quotaProject, "quota-project", "", "Google Cloud project billed for quota (sent as x-goog-user-project)")
	pf.BoolVar(&g.demo, "demo", false, "use an in-process Colab emulator seeded with demo data (no Google account needed)")
	_ = root.RegisterFlagCompletionFunc("theme", cobra.FixedCompletions([]string{"auto", "dark", "light"}, cobra.ShellCompDirectiveNoFileComp))
	_ = root.RegisterFlagCompletionFunc("profile", func(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		path, explicit := configPath(g, os.Getenv)
		s, err := config.LoadSettings(path, explicit, config.SettingsOptions{Actions: keymap.Actions(), CheckKey: keymap.CheckBinding})
		if err != nil {
			return []string{config.ProfileDemo}, cobra.ShellCompDirectiveNoFileComp
		}
		return s.ProfileNames(), cobra.ShellCompDirectiveNoFileComp
	})
	root.Flags().BoolVar(&g.readOnly, "readonly", false, "disable every action that changes something (create, delete, sessions, run code)")
	durationVar(root.Flags(), &g.renewLead, "renew-lead", config.DefaultSettings().RenewLead, false, "renew each proxy token this long before its expireTime")
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

	root.AddCommand(verbCommands(g, s)...)
	root.AddCommand(fileCommands(g, s)...)
	root.AddCommand(shellCmd(g, s))
	root.AddCommand(statusCmd(g, s), emulatorCmd(stdout), configCmd(g, stdout), &cobra.Command{
		Use:     "version",
		Short:   "Print the version, commit and Go version",
		Example: "  colabdash version\n  colabdash --version",
		Args:    cobra.NoArgs,
		Run:     func(*cobra.Command, []string) { fmt.Fprintln(stdout, versionString()) },
	})
	strictCompletion(root)
	return root
}

// runStreamsContext is runStreams under parent: its end is what ctrl+c,
// SIGTERM and SIGHUP do (tests end it instead of signalling the process;
// then the exit code of an interrupted command is 130).
func runStreamsContext(parent context.Context, args []string, s *streams) int {
	stderr := s.err
	var g globalFlags
	root := newRootCommand(&g, s)
	root.SetArgs(args)

	ctx, sigs, stop := watchSignals(parent)
	defer stop()
	s.signals = sigs
	failed, err := root.ExecuteContextC(ctx)
	if g.completions != nil {
		_ = g.completions.Flush()
	}
	if g.logs.close != nil {
		defer g.logs.close()
	}
	if err != nil && g.logs.log != nil {
		g.logs.log.Error("command failed", "error", err)
	}
	if err == nil {
		return sigs.exitCode(exitOK)
	}
	var ee *exitError
	if !errors.As(err, &ee) {
		// cobra's own argument and command errors are usage errors.
		ee = &exitError{exitUsage, err.Error() + " (see " + failed.CommandPath() + " --help)"}
	}
	if ee.msg != "" {
		// A server reply quoted in an error may carry a token, and a
		// server, a file or the environment may carry control sequences.
		fmt.Fprintln(stderr, "colabdash: "+termtext.Block(g.logs.red.Redact(ee.msg)))
	}
	return sigs.exitCode(ee.code)
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

// unknownCommand is the root's argument check: the dashboard takes none,
// so an argument is a mistyped command, answered with the commands it may
// have meant.
func unknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2 // cobra's default, set only on its own path
	}
	s := cmd.SuggestionsFor(args[0])
	// A command the word starts is the likely one: "emu" means emulator,
	// not rm (which is as close by edit distance).
	var prefixed []string
	for _, c := range s {
		if strings.HasPrefix(c, args[0]) {
			prefixed = append(prefixed, c)
		}
	}
	if len(prefixed) > 0 {
		s = prefixed
	}
	if len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return &exitError{exitUsage, msg + " (see " + cmd.CommandPath() + " --help)"}
}

// strictCompletion makes `completion SHELL` with a shell cobra does not
// know an error (exit 2) instead of the command's help and success.
func strictCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		var shells []string
		for _, s := range c.Commands() {
			shells = append(shells, s.Name())
		}
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return &exitError{exitUsage, fmt.Sprintf("completion: unknown shell %q (accepted: %s)", args[0], strings.Join(shells, ", "))}
		}
	}
}

// dashboardFlagExample is the value shown after a dashboard-only flag in
// the error for giving it to a subcommand.
var dashboardFlagExample = map[string]string{"renew-lead": " 2m", "readonly": ""}
