package runtimes

import (
	"bytes"
	"context"
	"fmt"
	"github.com/colabdash/colabdash/api/plural"
	"strings"
	"text/tabwriter"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/report"
	"github.com/colabdash/colabdash/ui/termtext"
	"github.com/spf13/cobra"
)

// SpecsReport is the JSON of `colabdash specs --json`.
type SpecsReport struct {
	kit.Envelope
	Subscription report.Subscription `json:"subscription"`
	RuntimeSpecs []specEntry         `json:"runtimeSpecs"`
}

// specEntry is one runtimeSpec: Spec is the short form --spec takes
// ("GPU/T4/STANDARD").
type specEntry struct {
	Spec        string             `json:"spec"`
	RuntimeSpec api.RuntimeSpecKey `json:"runtimeSpec"`
	Eligible    bool               `json:"eligible"`
}

// LoadSpecs is ops.LoadSpecs on conn, its error classified.
func LoadSpecs(ctx context.Context, conn *kit.Connection) ([]api.RuntimeSpec, api.SubscriptionTier, error) {
	return kit.LoadSpecs(ctx, conn)
}

// SpecsCommand is `colabdash specs`.
func SpecsCommand(g *kit.Globals, s *kit.Streams) *cobra.Command {
	v := newVerb(g, s, "specs")
	cmd := &cobra.Command{
		Use:   "specs",
		Short: "List the runtime specs and whether you may create each",
		Long: "specs calls list_runtime_specs and prints every runtimeSpec (variant/accelerator/shape) with\n" +
			"whether your tier is eligible for it, as the dashboard's picker does. The SPEC column is what\n" +
			"create --spec takes.\n" + kit.JSONHelp + "\n" + kit.ExitCodesHelp,
		Example: "  colabdash specs\n  colabdash specs --json | jq -r '.runtimeSpecs[] | select(.eligible) | .spec'",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			conn, err := v.Connect(cmd.Context())
			if err != nil {
				return err
			}
			defer conn.Close()
			specs, tier, err := LoadSpecs(cmd.Context(), conn)
			if err != nil {
				return err
			}
			rep := SpecsReport{Envelope: kit.Envelope{OK: true}, Subscription: report.Subscription{Tier: tier}, RuntimeSpecs: make([]specEntry, 0, len(specs))}
			for _, sp := range specs {
				rep.RuntimeSpecs = append(rep.RuntimeSpecs, specEntry{Spec: sp.Key.String(), RuntimeSpec: sp.Key, Eligible: sp.Eligible})
			}
			if v.AsJSON {
				return v.WriteJSON(rep)
			}
			st := v.Style(s.Out, s.OutTTY)
			dim := st.NewStyle().Faint(true)
			v.Say("Colab " + termtext.Cut(tier.Label(), 40) + " · " + plural.Count(len(specs), "runtime spec"))
			if len(specs) == 0 {
				return nil
			}
			var buf bytes.Buffer
			tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "\nSPEC\tELIGIBLE")
			for _, sp := range specs {
				fmt.Fprintf(tw, "%s\t%s\n", termtext.Cut(sp.Key.String(), 60), eligibleCell(sp.Eligible, tier))
			}
			tw.Flush()
			for _, line := range strings.Split(strings.TrimRight(buf.String(), "\n"), "\n") {
				line = strings.TrimRight(line, " ")
				if strings.HasSuffix(line, eligibleCell(false, tier)) {
					v.SayStyled(&dim, line)
					continue
				}
				v.Say(line)
			}
			return nil
		},
	}
	v.JSONFlags(cmd, "print JSON (schema: docs/scripting.md)")
	return cmd
}

func eligibleCell(eligible bool, tier api.SubscriptionTier) string {
	if eligible {
		return "yes"
	}
	return "no, " + termtext.Cut(state.IneligibleNote(tier), 60)
}
