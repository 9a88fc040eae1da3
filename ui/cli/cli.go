// Package cli holds colabdash's commands (cobra): the dashboard, status,
// config, emulator and completion, with flag/environment/config precedence
// and the wiring of api/auth, api/client, api/colabfake and ui.
//
// colabdash is a terminal dashboard for Google Colab runtimes: the
// subscription tier, every runtime and its Jupyter sessions, and a live
// countdown to each runtime's proxy-token expiry.
//
// This package is the command registry (newRootCommand, verbCommands):
// the root command and its global flags, the dashboard (dashboard.go, the
// one file that starts package ui's dashboard), status, config, emulator
// and the generated references. The verbs live below it: runtimes (specs,
// create, delete, sessions, session, url, token), exec, run, top and files
// (ls, cp, rm, forward, shell), jobs (jobs, logs, wait, stop), all built on kit (global flags, streams,
// exit codes, connection, output and JSON).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/colabdash/colabdash/ui/cli/exec"
	runcmd "github.com/colabdash/colabdash/ui/cli/run"
	"github.com/colabdash/colabdash/ui/cli/top"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/ui/cli/files"
	"github.com/colabdash/colabdash/ui/cli/jobs"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/cli/runtimes"
	"github.com/colabdash/colabdash/ui/termtext"
)

// Run runs colabdash with args (without the program name), reading
// os.Stdin and writing to stdout and stderr, and returns the process exit
// code: 0 ok, 1 failure (exec: the code raised; several targets: some
// failed), 2 usage, 3 credentials or permission, 4 API or network, 5 quota
// or ineligible, 128 + the signal's number when a signal ended it (130
// SIGINT, 143 SIGTERM, 129 SIGHUP).
func Run(args []string, stdout, stderr io.Writer) int {
	return runStreams(args, kit.OSStreams(stdout, stderr))
}

// run is Run without a terminal anywhere and with an empty stdin (tests).
func run(args []string, stdout, stderr io.Writer) int {
	return runStreams(args, &kit.Streams{In: strings.NewReader(""), Out: stdout, Err: stderr})
}

func runStreams(args []string, s *kit.Streams) int {
	return runStreamsContext(context.Background(), args, s)
}

// newRootCommand is the whole command tree, its flags bound to g and its
// output to s: what runStreamsContext executes and what the generated
// references (docs/reference, docs/man) are made from.
func newRootCommand(g *kit.Globals, s *kit.Streams) *cobra.Command {
	stdout, stderr := s.Out, s.Err
	root := &cobra.Command{
		Use:   "colabdash",
		Short: "A terminal dashboard for Google Colab runtimes",
		Long: "colabdash shows your Colab subscription tier, every runtime with its Jupyter sessions,\n" +
			"and a live countdown to each runtime's proxy-token expiry, renewing tokens before they lapse.\n" +
			"The dashboard exits 0 when quit (q or ctrl+c), 2 without a terminal.\n" +
			"colabdash NAME ARGS… runs the extension colabdash-NAME found on PATH when NAME is no command of\n" +
			"colabdash's, with COLABDASH_PROFILE and COLABDASH_ENDPOINT set, and exits with its exit code;\n" +
			"this help lists the extensions found. Plugins bind commands to dashboard keys (docs/configuration.md).\n" + kit.ExitCodesHelp,
		Example: "  colabdash --demo                 # the dashboard on the embedded emulator\n" +
			"  colabdash                        # the dashboard on your Colab account (ADC)\n" +
			"  colabdash --profile work         # a profile from the config file (P switches inside)\n" +
			"  colabdash status --json          # a one-shot listing for scripts\n" +
			"  colabdash doctor                 # check credentials, clock, endpoint, tools and routes\n" +
			"  colabdash create --spec GPU/T4/STANDARD --wait --json   # scriptable verbs: specs, create, delete,\n" +
			"  colabdash exec rt-abc -c 'print(6*7)'                   # sessions, session, exec, url, token\n" +
			"  colabdash config                 # the settings in effect and the file they came from\n" +
			"  colabdash --log-file /tmp/colabdash.log --debug   # structured logs, secrets redacted\n" +
			"  colabdash completion bash > ~/.local/share/bash-completion/completions/colabdash\n" +
			"                                   # shell completion (also zsh, fish, powershell)",
		Version:       kit.VersionString(),
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          unknownCommand,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDashboard(cmd.Context(), *g, cmd.ErrOrStderr())
		},
		// A broken config file stops every command before it starts.
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Name() == cobra.ShellCompRequestCmd { // __complete and __completeNoDesc
				// Every candidate leaves through termtext (completionWriter).
				g.Completions = &kit.CompletionWriter{W: stdout}
				cmd.Root().SetOut(g.Completions)
			}
			// version, help and shell completion work whatever the
			// file says (a package is built without one).
			switch cmd.Name() {
			case "version", "help", "completion", cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd:
				return nil
			}
			if cmd.Parent() != nil && cmd.Parent().Name() == "completion" {
				return nil
			}
			if f := cmd.Flags().Lookup("check"); cmd.Name() == "config" && f != nil && f.Changed {
				return nil // config --check FILE reads FILE alone, not the config in effect
			}
			if err := kit.CheckPrivateDirs(os.Getenv); err != nil {
				return err
			}
			if err := kit.LoadConfig(cmd, g, os.Getenv); err != nil {
				return err
			}
			return kit.OpenLog(g, cmd.CommandPath())
		},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&g.Config, "config", "", "config file (default $XDG_CONFIG_HOME/colabdash/config.yaml, else the platform's config directory; env COLABDASH_CONFIG)")
	pf.StringVar(&g.LogFile, "log-file", "", "append structured JSON logs (every API call: tool, target, duration, outcome) to FILE; secrets are redacted")
	pf.BoolVar(&g.Debug, "debug", false, "log in more detail (retries, MCP traffic, raw error replies); needs --log-file")
	pf.StringVar(&g.Theme, "theme", "", "colours for a dark or light terminal background: auto, dark or light (default: config theme, else auto)")
	pf.StringVar(&g.Color, "color", "", "when to draw colour: auto (a terminal, unless NO_COLOR or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always or never (default auto)")
	pf.StringVar(&g.ProfileName, "profile", "", "profile from the config file to use (env COLABDASH_PROFILE; \"demo\" is built in)")
	pf.StringVar(&g.Endpoint, "endpoint", api.DefaultEndpoint, "Colab MCP endpoint URL")
	pf.StringVar(&g.Credentials, "credentials", "", "Google credentials JSON file (authorized_user or service_account)")
	pf.StringVar(&g.AccessTokenFile, "access-token-file", "", "file holding an OAuth access token to send as the bearer token")
	pf.StringVar(&g.QuotaProject, "quota-project", "", "Google Cloud project billed for quota (sent as x-goog-user-project)")
	pf.BoolVar(&g.Demo, "demo", false, "use an in-process Colab emulator seeded with demo data (no Google account needed)")
	_ = root.RegisterFlagCompletionFunc("color", cobra.FixedCompletions([]string{"auto", "always", "never"}, cobra.ShellCompDirectiveNoFileComp))
	_ = root.RegisterFlagCompletionFunc("theme", cobra.FixedCompletions([]string{"auto", "dark", "light"}, cobra.ShellCompDirectiveNoFileComp))
	_ = root.RegisterFlagCompletionFunc("profile", func(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		path, explicit := kit.ConfigPath(g, os.Getenv)
		s, err := config.LoadSettings(path, explicit, config.SettingsOptions{Actions: keymap.Actions(), CheckKey: keymap.CheckBinding})
		if err != nil {
			return []string{config.ProfileDemo}, cobra.ShellCompDirectiveNoFileComp
		}
		return s.ProfileNames(), cobra.ShellCompDirectiveNoFileComp
	})
	root.Flags().BoolVar(&g.ReadOnly, "readonly", false, "disable every action that changes something (create, delete, sessions, run code)")
	kit.DurationVar(root.Flags(), &g.RenewLead, "renew-lead", config.DefaultSettings().RenewLead, false, "renew each proxy token this long before its expireTime")
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		// A mistyped command before a verb's flag ("stauts --json"): the
		// root took the flag, but the mistake is the command.
		if cmd == root && len(cmd.Flags().Args()) > 0 {
			return unknownCommand(cmd, cmd.Flags().Args())
		}
		// A dashboard-only flag given to a subcommand: say where it goes.
		if cmd != root {
			for _, name := range []string{"renew-lead", "readonly"} {
				if strings.HasPrefix(err.Error(), "unknown flag: --"+name) {
					return &kit.ExitError{Code: kit.ExitUsage, Msg: "--" + name + " is a dashboard flag: use it without a subcommand, e.g. colabdash --" + name + dashboardFlagExample[name]}
				}
			}
		}
		return kit.FlagError(err)
	})

	root.AddCommand(verbCommands(g, s)...)
	root.AddCommand(files.Commands(g, s)...)
	root.AddCommand(files.ShellCommand(g, s))
	root.AddCommand(jobs.Commands(g, s)...)
	root.AddCommand(statusCmd(g, s), doctorCmd(g, s), emulatorCmd(stdout), configCmd(g, stdout), versionCmd(g, s))
	strictCompletion(root)
	ownArgsErrors(root)
	return root
}

// runStreamsContext is runStreams under parent: its end is what ctrl+c,
// SIGTERM and SIGHUP do (tests end it instead of signalling the process;
// then the exit code of an interrupted command is 130).
func runStreamsContext(parent context.Context, args []string, s *kit.Streams) int {
	// One redactor for the run: every secret learnt is registered with
	// it, and every byte on stdout and stderr passes it (kit.Streams.Protect).
	var g kit.Globals
	g.Logs.Red = &api.Redactor{}
	s.Protect(g.Logs.Red)
	stderr := s.Err
	root := newRootCommand(&g, s)
	root.SetArgs(args)

	ctx, sigs, stop := kit.WatchSignals(parent)
	defer stop()
	s.Signals = sigs
	s.SetContext(ctx)
	if path := extensionCall(root, args); path != "" {
		return runExtension(ctx, &g, s, root, path, args[1:])
	}
	withExtensionsHelp(root)
	failed, err := root.ExecuteContextC(ctx)
	if g.Completions != nil {
		_ = g.Completions.Flush()
	}
	if g.Logs.Close != nil {
		defer g.Logs.Close()
	}
	if err != nil && g.Logs.Log != nil {
		g.Logs.Log.Error("command failed", "error", err)
	}
	if err == nil {
		return sigs.ExitCode(kit.ExitOK)
	}
	var ee *kit.ExitError
	if !errors.As(err, &ee) {
		// cobra's own argument and command errors are usage errors.
		ee = &kit.ExitError{Code: kit.ExitUsage, Msg: err.Error() + " (see " + failed.CommandPath() + " --help)"}
	}
	code := sigs.ExitCode(ee.Code)
	if kit.WantsJSON(s, failed, args) {
		// Whatever failed, a --json command prints one document on stdout.
		kit.WriteFailure(s, &kit.ExitError{Code: code, Msg: ee.Msg}, g.Logs.Red)
	}
	if ee.Msg != "" {
		// A server reply quoted in an error may carry a token, and a
		// server, a file or the environment may carry control sequences.
		fmt.Fprintln(stderr, "colabdash: "+termtext.Block(g.Logs.Red.Redact(ee.Msg)))
		if ee.Fix != "" {
			fmt.Fprintln(stderr, "colabdash: "+termtext.Block(g.Logs.Red.Redact(ee.Fix)))
		}
	}
	return code
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
	return &kit.ExitError{Code: kit.ExitUsage, Msg: msg + " (see " + cmd.CommandPath() + " --help)"}
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
		c.Long = strings.TrimRight(c.Long, "\n") + "\n\nAny other shell is a usage error.\n\n" + kit.ExitCodesHelp
		c.Example = "  colabdash completion bash > ~/.local/share/bash-completion/completions/colabdash\n" +
			"  colabdash completion zsh > \"${fpath[1]}/_colabdash\"      # then start a new shell\n" +
			"  colabdash completion fish > ~/.config/fish/completions/colabdash.fish\n" +
			"  colabdash completion powershell | Out-String | Invoke-Expression\n" +
			"  source <(colabdash completion bash)                      # this shell only"
		for _, sh := range c.Commands() {
			sh.Long = strings.TrimRight(sh.Long, "\n") + "\n\n" + kit.ExitCodesHelp
			sh.Example = "  colabdash completion " + sh.Name() + completionExample[sh.Name()]
		}
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return &kit.ExitError{Code: kit.ExitUsage, Msg: fmt.Sprintf("completion: unknown shell %q (accepted: %s)", args[0], strings.Join(shells, ", "))}
		}
	}
}

// completionExample is the rest of each `completion SHELL` example line.
var completionExample = map[string]string{
	"bash":       " > ~/.local/share/bash-completion/completions/colabdash",
	"zsh":        " > \"${fpath[1]}/_colabdash\"",
	"fish":       " > ~/.config/fish/completions/colabdash.fish",
	"powershell": " | Out-String | Invoke-Expression",
}

// dashboardFlagExample is the value shown after a dashboard-only flag in
// the error for giving it to a subcommand.
var dashboardFlagExample = map[string]string{"renew-lead": " 2m", "readonly": ""}

// verbCommands are the scriptable verbs: specs, create, delete, sessions,
// session open/close, exec, url, token, run and top.
func verbCommands(g *kit.Globals, s *kit.Streams) []*cobra.Command {
	return []*cobra.Command{runtimes.SpecsCommand(g, s), runtimes.CreateCommand(g, s), runtimes.DeleteCommand(g, s), runtimes.SessionsCommand(g, s), runtimes.SessionCommand(g, s),
		exec.Command(g, s), runtimes.URLCommand(g, s), runtimes.TokenCommand(g, s), runcmd.Command(g, s), top.Command(g, s)}
}
