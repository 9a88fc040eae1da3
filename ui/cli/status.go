package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/cli/kit"
	runcmd "github.com/colabdash/colabdash/ui/cli/run"
	"github.com/colabdash/colabdash/ui/report"
	"github.com/spf13/cobra"
)

func statusCmd(g *kit.Globals, s *kit.Streams) *cobra.Command {
	v := kit.NewVerb(g, s, "status")
	var showTokens bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Print the tier, runtimes, sessions and token time left, then exit",
		Long: "status calls get_subscription, list_runtimes and list_sessions for every runtime (concurrently)\n" +
			"and prints a table, or JSON with --json. Proxy tokens are printed only with --show-tokens.\n" +
			kit.JSONHelp + "\n" + kit.ExitCodesHelp,
		Example: "  colabdash status --demo\n  colabdash status --jq '.runtimes[].tokenExpiresInSeconds'\n" +
			"  colabdash status --endpoint http://127.0.0.1:8089/mcp --access-token-file token.txt",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			conn, err := kit.Connect(cmd.Context(), *g)
			if err != nil {
				return kit.Classify(err, nil)
			}
			defer conn.Close()
			ov, err := api.LoadOverview(cmd.Context(), conn.Svc)
			if err != nil {
				return kit.Classify(err, conn.Creds)
			}
			// A session error may quote a secret (a proxy token in the
			// server's message): redact it whole before the table cuts it
			// to one line, which would leave a piece the redactor cannot
			// recognise.
			for name, serr := range ov.SessionErrors {
				if serr != nil {
					ov.SessionErrors[name] = redactedError{serr, g.Logs.Red.Redact(serr.Error())}
				}
			}
			now := time.Now()
			if v.AsJSON {
				doc := StatusReport{Envelope: kit.Envelope{OK: true}, Report: report.New(ov, now, showTokens)}
				if serr := firstSessionError(&ov); serr != nil {
					doc.Envelope = kit.Failure(kit.Classify(serr, conn.Creds), g.Logs.Red)
				}
				if showTokens {
					err = v.WriteJSONRevealed(doc) // the tokens asked for
				} else {
					err = v.WriteJSON(doc)
				}
			} else {
				stdout := s.Out
				if showTokens {
					stdout = s.Revealed() // the tokens asked for
				}
				err = report.WriteTable(stdout, ov, now, showTokens, g.CommandOr("colabdash"))
			}
			if err != nil {
				var ee *kit.ExitError
				if errors.As(err, &ee) {
					return ee // --jq failing on the document: 2
				}
				return &kit.ExitError{Code: kit.ExitFailure, Msg: err.Error()}
			}
			runcmd.NoteLeftovers(v, conn, ov.Runtimes)
			if serr := firstSessionError(&ov); serr != nil {
				return kit.Classify(serr, conn.Creds)
			}
			return nil
		},
	}
	v.JSONFlags(cmd, "print JSON (shape documented in docs/scripting.md)")
	cmd.Flags().BoolVar(&showTokens, "show-tokens", false, "include the proxy tokens (secrets!) in the output")
	return cmd
}

// StatusReport is `status --json`: the envelope and the overview
// (report.Report). A failed list_sessions makes OK false, its runtime's
// sessionsError says which.
type StatusReport struct {
	kit.Envelope
	report.Report
}

// firstSessionError is the first failed list_sessions, in listed order
// (not map order), naming its runtime; nil when none failed.
func firstSessionError(ov *api.Overview) error {
	for _, rt := range ov.Runtimes {
		if serr := ov.SessionErrors[rt.Name]; serr != nil {
			return fmt.Errorf("list_sessions %s: %w", rt.Name, serr)
		}
	}
	return nil
}

// redactedError is err with its text redacted; errors.Is and errors.As
// still see err.
type redactedError struct {
	err  error
	text string
}

func (e redactedError) Error() string { return e.text }

func (e redactedError) Unwrap() error { return e.err }
