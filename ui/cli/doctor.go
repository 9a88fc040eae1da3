package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api/auth"
	"github.com/colabdash/colabdash/api/client"
	"github.com/colabdash/colabdash/api/plural"
	"github.com/colabdash/colabdash/api/safefile"
	"github.com/colabdash/colabdash/api/safehttp"
	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/termtext"
)

// doctorTimeout bounds the whole of `colabdash doctor`.
const doctorTimeout = 2 * time.Minute

// DoctorReport is `colabdash doctor --json`: the envelope (ok only when
// every check passed), the endpoint, the MCP protocol version negotiated
// ("" when none), the runtime whose proxy routes were checked ("" when
// none) and every check in order (name, status: ok, warn, fail, skipped
// or "not offered"; detail; fix on warn and fail).
type DoctorReport struct {
	kit.Envelope
	Endpoint        string      `json:"endpoint"`
	ProtocolVersion string      `json:"protocolVersion"`
	Runtime         string      `json:"runtime"`
	Checks          []ops.Check `json:"checks"`
}

// doctorBugReport is the file --report writes: the findings and the
// server's tools/list as it came, redacted.
type doctorBugReport struct {
	DoctorReport
	Version   string            `json:"colabdashVersion"`
	ToolsList []json.RawMessage `json:"toolsList"`
}

func doctorCmd(g *kit.Globals, s *kit.Streams) *cobra.Command {
	v := kit.NewVerb(g, s, "doctor")
	var (
		reportFile string
		force      bool
	)
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check what a first contact with Colab depends on, one line per check",
		Long: "doctor checks, one line each, with a fix line under any that fails: where the credentials come\n" +
			"from, an access token (the Colab scope, its expiry), this machine's clock against the server's Date\n" +
			"header (a warning past 2 minutes), the endpoint answering MCP and the protocol version negotiated,\n" +
			"the tools it lists against the ten colabdash calls and the arguments it sends, one read call\n" +
			"(list_runtimes), the quota project, and for the first runtime listed which proxy routes answer\n" +
			"(/api/contents, /api/kernels, /api/terminals, /api/colab/resources, /colab/tty). A route that only\n" +
			"Colab offers is \"not offered\" behind a stock Jupyter server, which is no failure.\n" +
			"doctor changes nothing on the account. --report FILE writes the findings and the server's raw\n" +
			"tools/list, secrets redacted, to attach to a bug report: a new file, or with -f in place of what is\n" +
			"at FILE (a link there is replaced, not followed).\n" +
			"Exit 0 when every check passed, 1 when one failed or warned (the lines say which), 2 for bad flags.\n" +
			kit.JSONHelp + "\n" + kit.ExitCodesHelp,
		Example: "  colabdash doctor\n  colabdash doctor --demo\n  colabdash doctor --report colabdash-doctor.json\n" +
			"  colabdash doctor --jq '.checks[] | select(.status == \"fail\") | .fix'",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if reportFile != "" && !force {
				if _, err := os.Lstat(kit.ExpandHome(reportFile)); err == nil {
					return &kit.ExitError{Code: kit.ExitUsage, Msg: "--report " + reportFile + " exists; nothing checked or written (-f/--force replaces it)"}
				}
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), doctorTimeout)
			defer cancel()
			in, closeConn, err := doctorInput(ctx, g)
			if err != nil {
				return err
			}
			defer closeConn()
			f := ops.Doctor(ctx, in)
			doc := DoctorReport{Envelope: kit.Envelope{OK: f.Passed()}, Endpoint: in.Endpoint,
				ProtocolVersion: f.Protocol, Runtime: f.Runtime, Checks: f.Checks}
			if doc.Checks == nil {
				doc.Checks = []ops.Check{}
			}
			verdict := doctorVerdict(f)
			if verdict != nil {
				doc.Envelope = kit.Failure(verdict, g.Logs.Red)
			}
			if reportFile != "" {
				if err := writeDoctorReport(kit.ExpandHome(reportFile), force, doc, f, g); err != nil {
					return err
				}
			}
			if v.AsJSON {
				if err := v.WriteJSON(doc); err != nil {
					var ee *kit.ExitError
					if errors.As(err, &ee) {
						return ee
					}
					return &kit.ExitError{Code: kit.ExitFailure, Msg: err.Error()}
				}
			} else {
				sayChecks(v, f.Checks)
			}
			if verdict != nil {
				return verdict
			}
			return nil
		},
	}
	v.JSONFlags(cmd, "print the checks as JSON (shape in docs/scripting.md)")
	cmd.Flags().StringVar(&reportFile, "report", "", "also write the findings and the server's raw tools/list, secrets redacted, to FILE (for a bug report)")
	cmd.Flags().BoolVarP(&force, "force", "f", false, "let --report replace what is at FILE")
	return cmd
}

// doctorInput connects as every command does (kit.Connect). A credentials
// failure is the first finding, not the command's failure; any other
// (a refused --endpoint) is. closeConn releases the connection.
func doctorInput(ctx context.Context, g *kit.Globals) (ops.DoctorInput, func(), error) {
	in := ops.DoctorInput{
		Endpoint: g.Profile.Endpoint,
		Demo:     g.Profile.Credentials == config.CredentialsDemo,
		Probe:    safehttp.Client(&http.Client{Timeout: 10 * time.Second, Transport: client.NewTransport()}),
		Jupyter:  ops.JupyterOptions{Redactor: g.Logs.Red, Logger: g.Logs.Log},
	}
	conn, err := kit.Connect(ctx, *g)
	if err != nil {
		var ae *auth.Error
		if !errors.As(err, &ae) {
			return in, nil, kit.Classify(err, nil)
		}
		in.CredsErr = err
		return in, func() {}, nil
	}
	if in.Demo {
		in.Endpoint = conn.Endpoint // the embedded emulator's own
	}
	in.Creds, in.MCP, in.Svc = conn.Creds, conn.MCP, conn.Svc
	return in, conn.Close, nil
}

// doctorVerdict is the command's failure when a check failed or warned
// (exit 1, naming them), nil when all passed.
func doctorVerdict(f ops.Findings) *kit.ExitError {
	var bad []string
	for _, c := range f.Checks {
		if c.Status == ops.CheckFail || c.Status == ops.CheckWarn {
			bad = append(bad, c.Name)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return &kit.ExitError{Code: kit.ExitFailure, Msg: "doctor: " + plural.Count(len(bad), "check") + " did not pass: " + strings.Join(bad, ", ")}
}

// doctorWords are the status column's words: the failures stand out in
// capitals.
var doctorWords = map[ops.CheckStatus]string{ops.CheckOK: "ok", ops.CheckWarn: "WARN", ops.CheckFail: "FAIL",
	ops.CheckSkipped: "skip", ops.CheckNotOffered: "n/a"}

// sayChecks prints one line per check, "WORD  NAME  DETAIL", and an
// indented "fix: …" line under a warning or failure, each through the
// one output path (termtext, the redactor).
func sayChecks(v *kit.Verb, checks []ops.Check) {
	w := 0
	for _, c := range checks {
		w = max(w, termtext.Width(c.Name))
	}
	for _, c := range checks {
		v.Say(fmt.Sprintf("%-4s  %-*s  %s", doctorWords[c.Status], w, c.Name, c.Detail))
		if c.Fix != "" {
			v.Say(strings.Repeat(" ", 6+w+2) + "fix: " + c.Fix)
		}
	}
}

// writeDoctorReport writes doc and the server's tools/list to path as
// indented JSON, every registered secret redacted, mode 0600: a new file
// (anything found at path by then, a link included, is left as it is and
// refused), or with replace through safefile.WriteAtomic (a link at path
// is replaced, never followed). A failure is exit 1 naming the file.
func writeDoctorReport(path string, replace bool, doc DoctorReport, f ops.Findings, g *kit.Globals) error {
	rep := doctorBugReport{DoctorReport: doc, Version: kit.VersionString(), ToolsList: f.Tools}
	if rep.ToolsList == nil {
		rep.ToolsList = []json.RawMessage{}
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return &kit.ExitError{Code: kit.ExitFailure, Msg: "--report: " + err.Error()}
	}
	b = termtext.JSON([]byte(g.Logs.Red.Redact(string(b))))
	b = append(b, '\n')
	if replace {
		if err := safefile.WriteAtomic(path, b, 0o600); err != nil {
			return &kit.ExitError{Code: kit.ExitFailure, Msg: "--report " + path + ": " + err.Error()}
		}
		return nil
	}
	// O_EXCL: nothing at path, not even a link, is opened or replaced.
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return &kit.ExitError{Code: kit.ExitFailure, Msg: "--report " + path + " appeared while doctor ran; not replaced (-f/--force replaces it)"}
		}
		return &kit.ExitError{Code: kit.ExitFailure, Msg: "--report " + path + ": " + err.Error()}
	}
	if _, err = out.Write(b); err == nil {
		err = out.Close()
	} else {
		_ = out.Close()
	}
	if err != nil {
		_ = os.Remove(path)
		return &kit.ExitError{Code: kit.ExitFailure, Msg: "--report " + path + ": " + err.Error()}
	}
	return nil
}
