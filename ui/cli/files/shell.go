package files

import (
	"os"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/shell"
)

// shellExitCodes ends the shell verb's help.
var shellExitCodes = "0 when the remote shell exited (or ~. detached): neither terminal protocol carries the remote shell's\n" +
	"exit status, so `exit 3` ends colabdash with 0; 130 when ctrl+c (or ~.) was typed before the terminal\n" +
	"connected; 3 when the proxy refused the renewed token or get_runtime refused the account; 4 when the\n" +
	"connection was lost or the runtime is gone.\n" + kit.ExitCodesHelp

// ShellCommand is `colabdash shell`: a terminal on the runtime.
func ShellCommand(g *kit.Globals, s *kit.Streams) *cobra.Command {
	v := newVerb(g, s, "shell")
	var filterOSC, readOnly bool
	cmd := &cobra.Command{
		Use:     "shell RUNTIME",
		Aliases: []string{"tty"},
		Short:   "Open a terminal on a runtime (Colab's /colab/tty, or terminado on a stock Jupyter server)",
		Long: "shell opens a shell on the runtime (RUNTIME: its id, runtimes/ID or a unique prefix) in this\n" +
			"terminal, which is put in raw mode and restored however the shell ends. It speaks Colab's\n" +
			"/colab/tty WebSocket below connectionInfo.url, with the proxy token in a header (renewed first when\n" +
			"less than 5 min is left), and falls back to a terminado terminal (POST /api/terminals, deleted on\n" +
			"exit) when the runtime's server is a stock Jupyter server.\n\n" +
			"The remote output is written raw, as ssh does: the runtime is your own machine, and this is the one\n" +
			"place where colabdash does not sanitize what a server sends. --filter-osc parses it as a terminal\n" +
			"does and drops clipboard writes (OSC 52, 5522), title changes (OSC 0/1/2, ESC k, APC), iTerm2's\n" +
			"OSC 1337 and tmux passthrough (docs/security.md lists them) for the cautious. Type ~. after a\n" +
			"newline to detach. Until the terminal has connected, ctrl+c gives up (nothing typed is sent).\n" +
			"When the connection closes and the runtime is still listed, r reconnects to a new shell.\n\n" +
			"shell is interactive only: it needs a terminal and runs no `-- COMMAND`. To run a shell command\n" +
			"from a script, give it to exec with a leading !, which IPython on the runtime runs in its shell:\n" +
			"colabdash exec RUNTIME -c '!ls -la' (the command's output comes back, not its exit status).\n" + shellExitCodes,
		Example: "  colabdash shell rt-abc\n  colabdash shell rt-abc --filter-osc",
		Args: func(cmd *cobra.Command, args []string) error {
			if cmd.ArgsLenAtDash() >= 0 {
				return nil // `shell RT -- CMD`: RunE says what to use instead
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return v.CompleteRuntimes(cmd, args, toComplete)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if at := cmd.ArgsLenAtDash(); at >= 0 {
				return &kit.ExitError{Code: kit.ExitUsage, Msg: "shell runs no command (it is interactive only); " + v.execHint(args[:at], args[at:])}
			}
			if readOnly {
				return &kit.ExitError{Code: kit.ExitUsage, Msg: "shell is disabled by --readonly (a shell can change anything on the runtime)"}
			}
			in, inFile := s.In.(*os.File)
			out, outFile := kit.File(s.Out) // raw: the runtime's own terminal output
			if !s.InTTY || !s.OutTTY || !inFile || !outFile {
				return &kit.ExitError{Code: kit.ExitUsage, Msg: "shell needs a terminal on stdin and stdout; " + v.execHint(args, nil)}
			}
			ctx := cmd.Context()
			rf, err := v.openRuntime(ctx, args[0], "")
			if err != nil {
				return err
			}
			defer rf.conn.Close()
			outcome, err := shell.Run(ctx, shell.Options{Runtime: rf.id(), Client: rf.jc, In: in, Out: out, FilterOSC: filterOSC,
				Redact: v.Red().Redact, Logger: g.Logs.Log, Listed: ops.Listed(rf.conn.Svc, rf.rt.Name)})
			// Run has said what happened on the terminal: no second line.
			switch outcome {
			case shell.Exited, shell.Detached:
				return nil
			case shell.Refused:
				return &kit.ExitError{Code: kit.ExitCredential, Msg: ""}
			case shell.Interrupted:
				return &kit.ExitError{Code: kit.ExitInterrupted, Msg: ""}
			}
			if err == shell.ErrNotTerminal {
				return &kit.ExitError{Code: kit.ExitUsage, Msg: err.Error()}
			}
			return &kit.ExitError{Code: kit.ExitAPI, Msg: ""}
		},
	}
	cmd.Flags().BoolVar(&filterOSC, "filter-osc", false, "drop clipboard, title and passthrough sequences (OSC 52, 0/1/2, 1337, ...) from the remote output")
	cmd.Flags().BoolVar(&readOnly, "readonly", false, "refuse to open a shell (as the dashboard's --readonly disables its shell key)")
	return cmd
}

// execHint is the way to run a shell command without a terminal: exec
// with IPython's "!" (which runs the rest of the line in the runtime's
// shell), on the runtime the user named (runtime: args before "--") with
// command (the words after it, shell-quoted; "ls -la" when none). It
// names the line only when it prints as itself.
func (v *verb) execHint(runtime, command []string) string {
	rt := "RUNTIME"
	if len(runtime) == 1 {
		rt = runtime[0]
	}
	cmdline := "ls -la"
	if len(command) > 0 {
		cmdline = kit.ShellJoin(command)
	}
	const why = " (IPython runs a line that starts with ! in the runtime's shell; the command's exit status is not passed on)"
	if line, ok := v.G.CommandLine("exec", rt, "-c", "!"+ipythonLiteral(cmdline)); ok {
		return "to run a shell command, use: " + line + why
	}
	return "to run a shell command, use colabdash exec RUNTIME -c '!COMMAND'" + why
}

// ipythonDollar is a "$" IPython's "!" line would read as the start of a
// Python name to put in ($x, $x.y), inside quotes too.
var ipythonDollar = regexp.MustCompile(`\$([\w.])`)

// ipythonLiteral is cmdline as IPython's "!" must be given it to run it
// as written: before a "!" line reaches the shell, IPython replaces $name
// and {expression} with Python values (single quotes do not stop it), so
// `echo '{__import__("os").getuid()}'` would run Python. "$$" before a
// name and doubled braces are IPython's escapes for a literal "$" and
// brace.
func ipythonLiteral(cmdline string) string {
	s := ipythonDollar.ReplaceAllString(cmdline, "$$$$$1")
	return strings.NewReplacer("{", "{{", "}", "}}").Replace(s)
}
