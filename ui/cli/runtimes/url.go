package runtimes

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/report"
	"github.com/colabdash/colabdash/ui/termtext"
)

// ConnectionReport is the JSON of `colabdash url --json` and `colabdash
// token --json`: the runtime's name, its connectionInfo and
// tokenExpiresInSeconds exactly as in `status --json` (token only from
// the token command).
type ConnectionReport struct {
	kit.Envelope
	Name                  kit.RuntimeName   `json:"name"`
	ConnectionInfo        report.Connection `json:"connectionInfo"`
	TokenExpiresInSeconds *int64            `json:"tokenExpiresInSeconds"`
}

func newConnectionReport(rt api.Runtime, now time.Time, withToken bool) ConnectionReport {
	sr := report.NewRuntime(rt, nil, nil, now, withToken)
	return ConnectionReport{Envelope: kit.Envelope{OK: true}, Name: kit.NameOf(sr.Name), ConnectionInfo: sr.ConnectionInfo, TokenExpiresInSeconds: sr.TokenExpiresInSeconds}
}

// URLCommand is `colabdash url`.
func URLCommand(g *kit.Globals, s *kit.Streams) *cobra.Command {
	v := newVerb(g, s, "url")
	cmd := &cobra.Command{
		Use:   "url RUNTIME",
		Short: "Print a runtime's connection URL",
		Long: "url prints the runtime's connectionInfo.url, the Jupyter server behind Colab's proxy. Requests\n" +
			"to it need the proxy token (colabdash token) in the X-Colab-Runtime-Proxy-Token header.\n" + kit.JSONHelp + "\n" + kit.ExitCodesHelp,
		Example:           "  colabdash url rt-abc\n  url=$(colabdash url rt-abc)\n  curl -H \"X-Colab-Runtime-Proxy-Token: $(colabdash token rt-abc)\" \"${url%/}/api/kernels\"   # the url ends in /",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: v.CompleteRuntimes,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			conn, rt, err := v.ConnectRuntime(ctx, args[0])
			if err != nil {
				return err
			}
			defer conn.Close()
			if rt.ConnectionInfo == nil || rt.ConnectionInfo.URL == "" {
				// Not listed with one: get_runtime is the authority.
				if rt, err = conn.Svc.GetRuntime(ctx, rt.Name); err != nil {
					return kit.Classify(err, conn.Creds)
				}
			}
			if rt.ConnectionInfo == nil || rt.ConnectionInfo.URL == "" {
				return &kit.ExitError{Code: kit.ExitAPI, Msg: termtext.Cut(rt.ID(), 63) + " has no connection URL yet (Colab sent no connectionInfo)"}
			}
			if v.AsJSON {
				return v.WriteJSON(newConnectionReport(rt, time.Now(), false))
			}
			v.Say(termtext.Line(rt.ConnectionInfo.URL))
			return nil
		},
	}
	v.JSONFlags(cmd, "print JSON (schema: docs/scripting.md)")
	return cmd
}

// TokenCommand is `colabdash token`.
func TokenCommand(g *kit.Globals, s *kit.Streams) *cobra.Command {
	v := newVerb(g, s, "token")
	var (
		minValid   time.Duration
		showTokens bool
	)
	cmd := &cobra.Command{
		Use:   "token RUNTIME",
		Short: "Print a runtime's proxy token (a secret) with enough life left",
		Long: "token prints the runtime's proxy token, renewing it with get_runtime when less than --min-valid\n" +
			"of its life is left, for use as a credential helper in scripts. The token is a bearer\n" +
			"credential for the runtime: token refuses to print it to a terminal unless --show-tokens, and it\n" +
			"never appears in any other output (stderr, logs), which redact it.\n" + kit.JSONHelp + "\n" + kit.ExitCodesHelp,
		Example: "  url=$(colabdash url rt-abc)\n  curl -H \"X-Colab-Runtime-Proxy-Token: $(colabdash token rt-abc)\" \"${url%/}/api/kernels\"   # the url ends in /\n" +
			"  colabdash token rt-abc --min-valid 30m --json | jq -r .connectionInfo.expireTime",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: v.CompleteRuntimes,
		RunE: func(cmd *cobra.Command, args []string) error {
			if s.OutTTY && !showTokens {
				return &kit.ExitError{Code: kit.ExitUsage, Msg: "refusing to print a proxy token (a secret) to a terminal: pipe or redirect stdout, or pass --show-tokens"}
			}
			ctx := cmd.Context()
			conn, rt, err := v.ConnectRuntime(ctx, args[0])
			if err != nil {
				return err
			}
			defer conn.Close()
			left := func(rt api.Runtime) time.Duration {
				if rt.ConnectionInfo == nil || rt.ConnectionInfo.Token == "" || rt.ExpireTime().IsZero() {
					return -1
				}
				return time.Until(rt.ExpireTime())
			}
			if left(rt) < minValid || left(rt) < 0 {
				if rt, err = conn.Svc.GetRuntime(ctx, rt.Name); err != nil {
					return kit.Classify(err, conn.Creds)
				}
			}
			if rt.ConnectionInfo == nil || rt.ConnectionInfo.Token == "" {
				return &kit.ExitError{Code: kit.ExitAPI, Msg: termtext.Cut(rt.ID(), 63) + ": Colab sent no proxy token"}
			}
			tok := rt.ConnectionInfo.Token
			v.Red().AddExpiring(rt.ExpireTime(), tok) // every output but the one below redacts it
			if l := left(rt); l < minValid {
				return &kit.ExitError{Code: kit.ExitAPI, Msg: fmt.Sprintf("%s: the renewed proxy token has only %s left, less than --min-valid %s",
					termtext.Cut(rt.ID(), 63), state.FormatDuration(l), state.FormatDuration(minValid))}

			}
			if v.AsJSON {
				return v.WriteJSONRevealed(newConnectionReport(rt, time.Now(), true))
			}
			// The one output the token may reach, unredacted (on a terminal,
			// only through the sanitizer: it is server text).
			if s.OutTTY {
				tok = termtext.Line(tok)
			}
			_, err = io.WriteString(s.Revealed(), tok+"\n")
			return err
		},
	}
	f := cmd.Flags()
	kit.DurationVar(f, &minValid, "min-valid", config.DefaultSettings().RenewLead, false, "renew the token when less than this much of its life is left")
	f.BoolVar(&showTokens, "show-tokens", false, "print the token even when stdout is a terminal")
	v.JSONFlags(cmd, "print JSON with the token (schema: docs/scripting.md)")
	return cmd
}
