package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/termtext"
	"github.com/spf13/cobra"
)

func configCmd(g *kit.Globals, stdout io.Writer) *cobra.Command {
	var check string
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Print the effective configuration and the file it came from",
		Long: "config prints the settings in effect as a YAML config file, after flags, environment and profile:\n" +
			"a value that is not a default ends in a comment saying where it came from (# from --theme,\n" +
			"# from COLABDASH_PROFILE, # from config.yaml:12). The file is --config, else $COLABDASH_CONFIG, else\n" +
			"colabdash/config.yaml below $XDG_CONFIG_HOME, else below the platform's config directory\n" +
			"(~/.config on Linux, ~/Library/Application Support on macOS, %AppData% on Windows).\n" +
			"A broken file is reported as one line naming the file and line (exit code 2).\n" +
			"--check FILE validates FILE alone, whatever the config in effect, and prints nothing when it is good,\n" +
			"else a line for each bad line of it (file:line: what is wrong and what is accepted);\n" +
			"editors validate and complete it with the JSON Schema docs/reference/config.schema.json.\n" + kit.ExitCodesHelp,
		Example: "  colabdash config                       # what is in effect, and from where\n" +
			"  colabdash config > ~/.config/colabdash/config.yaml   # start a config file from the defaults\n" +
			"  colabdash --config ./test.yaml config  # the settings a file would give\n" +
			"  colabdash config --check ./test.yaml   # check a file before using it (exit 2 names every bad line)",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("check") {
				return kit.CheckConfigFile(check)
			}
			s := g.Settings
			if s.Source == "" {
				path, _ := kit.ConfigPath(g, os.Getenv)
				fmt.Fprintf(stdout, "# defaults: no config file at %s\n", termtext.Line(path))
			}
			// Config values come from a file and the environment; an
			// endpoint may carry a secret in its URL (?key=, user:password@).
			fmt.Fprint(stdout, termtext.Block(g.Logs.Red.Redact(kit.EffectiveSettings(*g, os.Getenv).EffectiveAnnotated())))
			fmt.Fprintf(stdout, "# profile in effect: %s\n", termtext.Line(g.Profile.Name))
			return nil
		},
	}
	cmd.Flags().StringVar(&check, "check", "", "validate the config file FILE and exit: quiet when it is good, else a line naming each bad line (exit 2)")
	_ = cmd.MarkFlagFilename("check", "yaml", "yml")
	return cmd
}
