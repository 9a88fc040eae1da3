package cli

import (
	"slices"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/ui/cli/exec"
	"github.com/colabdash/colabdash/ui/cli/files"
	"github.com/colabdash/colabdash/ui/cli/jobs"
	"github.com/colabdash/colabdash/ui/cli/kit"
	runcmd "github.com/colabdash/colabdash/ui/cli/run"
	"github.com/colabdash/colabdash/ui/cli/runtimes"
	"github.com/colabdash/colabdash/ui/cli/top"
)

// builtin is one constructor of built-in commands: the names (and
// aliases) of the commands it makes, and how to make them.
type builtin struct {
	names []string
	make  func(g *kit.Globals, s *kit.Streams) []*cobra.Command
}

// one adapts a constructor of a single command to builtin.make.
func one(f func(*kit.Globals, *kit.Streams) *cobra.Command) func(*kit.Globals, *kit.Streams) []*cobra.Command {
	return func(g *kit.Globals, s *kit.Streams) []*cobra.Command { return []*cobra.Command{f(g, s)} }
}

// builtins are every built-in command below the root except cobra's
// help and completion, in the tree's order.
var builtins = []builtin{
	{[]string{"specs"}, one(runtimes.SpecsCommand)},
	{[]string{"create"}, one(runtimes.CreateCommand)},
	{[]string{"delete"}, one(runtimes.DeleteCommand)},
	{[]string{"sessions"}, one(runtimes.SessionsCommand)},
	{[]string{"session"}, one(runtimes.SessionCommand)},
	{[]string{"exec"}, one(exec.Command)},
	{[]string{"url"}, one(runtimes.URLCommand)},
	{[]string{"token"}, one(runtimes.TokenCommand)},
	{[]string{"run"}, one(runcmd.Command)},
	{[]string{"top"}, one(top.Command)},
	{[]string{"ls", "cp", "rm", "forward"}, files.Commands},
	{[]string{"shell", "tty"}, one(files.ShellCommand)},
	{[]string{"jobs", "logs", "wait", "stop"}, jobs.Commands},
	{[]string{"status"}, one(statusCmd)},
	{[]string{"doctor"}, one(doctorCmd)},
	{[]string{"emulator"}, func(_ *kit.Globals, s *kit.Streams) []*cobra.Command { return []*cobra.Command{emulatorCmd(s.Out)} }},
	{[]string{"config"}, func(g *kit.Globals, s *kit.Streams) []*cobra.Command { return []*cobra.Command{configCmd(g, s.Out)} }},
	{[]string{"version"}, one(versionCmd)},
}

// addBuiltins adds to root the commands of every builtin, or, when only
// is not "", of the one that makes the command named only.
func addBuiltins(root *cobra.Command, g *kit.Globals, s *kit.Streams, only string) {
	for _, b := range builtins {
		if only == "" || slices.Contains(b.names, only) {
			root.AddCommand(b.make(g, s)...)
		}
	}
}

// commandTreeFor is the tree runStreamsContext executes for args. When
// args starts with the name of a built-in command, the root gets that
// command alone (with its own subcommands, the global flags and cobra's
// help and completion): making the forty others, their flags and help
// texts, was a fifth of every start-up's own work, and the command runs
// the same in either tree. Anything else (no argument, a flag first,
// help, shell completion, a mistyped command, an extension) gets the
// whole tree, which help, completion and suggestions list.
func commandTreeFor(g *kit.Globals, s *kit.Streams, args []string) *cobra.Command {
	if len(args) > 0 && slices.ContainsFunc(builtins, func(b builtin) bool { return slices.Contains(b.names, args[0]) }) {
		root := newRootCommandOf(g, s, args[0])
		if c, _, err := root.Find(args[:1]); err == nil && c != root {
			return root
		}
	}
	return newRootCommand(g, s)
}
