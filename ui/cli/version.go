package cli

import (
	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/ui/cli/kit"
)

// VersionReport is `colabdash version --json`: the envelope and the
// build (kit.Build: version, commit, date, modified, goVersion).
type VersionReport struct {
	kit.Envelope
	kit.Build
}

// versionCmd is `colabdash version`: the line --version prints, or the
// build as JSON.
func versionCmd(g *kit.Globals, s *kit.Streams) *cobra.Command {
	v := kit.NewVerb(g, s, "version")
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit, build date and Go version",
		Long: "version prints the version, the commit, whether the work tree had uncommitted changes\n" +
			"(\"modified\"), the build date and the Go version it was built with. A release stamps its own\n" +
			"version, commit and date; a build from `go install` reports the module version and the commit,\n" +
			"its time and its changes from the build information Go records.\n" +
			kit.JSONHelp + "\n" + kit.ExitCodesHelp,
		Example: "  colabdash version\n  colabdash --version\n  colabdash version --jq .version",
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			b := kit.ReadBuild()
			if v.AsJSON {
				return v.WriteJSON(VersionReport{Envelope: kit.Envelope{OK: true}, Build: b})
			}
			v.Say(b.String())
			return nil
		},
	}
	v.JSONFlags(cmd, "print the build as JSON: version, commit, date, modified, goVersion")
	return cmd
}
