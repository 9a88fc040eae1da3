package cli

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/safehttp"
	"github.com/colabdash/colabdash/ui"
)

func statusCmd(g *globalFlags, s *streams) *cobra.Command {
	stdout := s.out
	var asJSON, showTokens bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Print the tier, runtimes, sessions and token time left, then exit",
		Long: "status calls get_subscription, list_runtimes and list_sessions for every runtime (concurrently)\n" +
			"and prints a table, or JSON with --json. Proxy tokens are printed only with --show-tokens.\n" +
			"Exit codes: 0 ok, 2 usage, 3 credentials or permission, 4 any other API or network failure,\n" +
			"5 a quota or rate limit, 130 interrupted.",
		Example: "  colabdash status --demo\n  colabdash status --json | jq '.runtimes[].tokenExpiresInSeconds'\n" +
			"  colabdash status --endpoint http://127.0.0.1:8089/mcp --access-token-file token.txt",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			conn, err := connect(cmd.Context(), *g)
			if err != nil {
				return classify(err, nil)
			}
			defer conn.close()
			ov, err := api.LoadOverview(cmd.Context(), conn.svc)
			if err != nil {
				return classify(err, conn.creds)
			}
			// A session error may quote a secret (a proxy token in the
			// server's message): redact it whole before the table cuts it
			// to one line, which would leave a piece the redactor cannot
			// recognise.
			for name, serr := range ov.SessionErrors {
				if serr != nil {
					ov.SessionErrors[name] = redactedError{serr, g.logs.red.Redact(serr.Error())}
				}
			}
			now := time.Now()
			if asJSON {
				err = ui.WriteStatusJSON(stdout, ui.NewStatusReport(ov, now, showTokens))
			} else {
				err = ui.WriteStatusTableFor(stdout, ov, now, showTokens, g.commandOr("colabdash"))
			}
			if err != nil {
				return &exitError{exitFailure, err.Error()}
			}
			noteLeftovers(newVerb(g, s, "status"), conn, ov.Runtimes)
			for _, rt := range ov.Runtimes { // in listed order, not map order
				if serr := ov.SessionErrors[rt.Name]; serr != nil {
					return classify(fmt.Errorf("list_sessions %s: %w", rt.Name, serr), conn.creds)
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON (shape documented in README)")
	cmd.Flags().BoolVar(&showTokens, "show-tokens", false, "include the proxy tokens (secrets!) in the output")
	return cmd
}

// emulatorBanner is the line `colabdash emulator` prints after the
// endpoint: where it serves and what token it wants (none with --no-auth).
func emulatorBanner(endpoint string, noAuth bool) string {
	if noAuth {
		return "Colab emulator serving on " + endpoint + " (--no-auth: no token is needed; requests with or without a bearer token are served; Ctrl+C stops it)"
	}
	return "Colab emulator serving on " + endpoint + " (any non-empty bearer token is accepted; Ctrl+C stops it)"
}

func emulatorCmd(stdout io.Writer) *cobra.Command {
	var (
		addr string
		o    colabfake.Options
	)
	cmd := &cobra.Command{
		Use:   "emulator",
		Short: "Serve the embedded Colab MCP emulator on loopback",
		Long: "emulator serves a Colab MCP server (all ten tools, proxy tokens that expire, quotas) on a\n" +
			"loopback address until interrupted. It accepts any non-empty bearer token (with --no-auth, none at all).\n" +
			"Each runtime's connectionInfo.url is the emulator's own runtime proxy (/proxy/RUNTIME/), which checks\n" +
			"the proxy token and serves a small Jupyter server (files, contents, sessions, kernel interrupt, and\n" +
			"Colab's /colab/tty terminal with an emulated shell; --tty-shell for a real one) from a\n" +
			"per-runtime file tree, or forwards to a real one with --jupyter-upstream.",
		Example: "  colabdash emulator --addr 127.0.0.1:8089 --token-ttl 2m\n" +
			"  colabdash emulator --jupyter-upstream 'http://127.0.0.1:8888/?token=abc'\n" +
			"  echo fake > token.txt; colabdash status --endpoint http://127.0.0.1:8089/mcp --access-token-file token.txt",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Seed != colabfake.SeedDemo && o.Seed != colabfake.SeedEmpty && o.Seed != colabfake.SeedHostile {
				return &exitError{exitUsage, fmt.Sprintf("--seed must be %q, %q or %q, not %q", colabfake.SeedDemo, colabfake.SeedEmpty, colabfake.SeedHostile, o.Seed)}
			}
			if o.Runtimes < 0 || o.Runtimes > 99999 {
				return &exitError{exitUsage, fmt.Sprintf("--runtimes must be between 0 and 99999, not %d", o.Runtimes)}
			}
			if o.ManyFiles < 0 || o.ManyFiles > 10_000_000 {
				return &exitError{exitUsage, fmt.Sprintf("--many-files must be between 0 and 10000000, not %d", o.ManyFiles)}
			}
			if err := checkUpstream(o.JupyterUpstream); err != nil {
				return err
			}
			srv, endpoint, err := colabfake.Start(cmd.Context(), addr, o)
			if err != nil {
				return emulatorStartError(addr, err)
			}
			defer srv.Close()
			fmt.Fprintln(stdout, endpoint)
			fmt.Fprintln(stdout, emulatorBanner(endpoint, o.NoAuth))
			if o.TTYShell {
				fmt.Fprintln(cmd.ErrOrStderr(), ttyShellWarning)
			}
			<-cmd.Context().Done()
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8089", "loopback address to listen on (port 0 picks a free one)")
	durationVar(f, &o.TokenTTL, "token-ttl", colabfake.DefaultTokenTTL, true, "proxy-token lifetime")
	durationVar(f, &o.CreateDelay, "create-delay", 3*time.Second, false, "how long create_runtime takes")
	durationVar(f, &o.Latency, "latency", 0, false, "delay added to every MCP request (handshake, tools/list, tools/call)")
	f.StringVar(&o.Seed, "seed", colabfake.SeedDemo, "starting data: demo, empty, or hostile (strings carrying terminal control sequences, to check that none gets through)")
	f.IntVar(&o.Runtimes, "runtimes", 0, "add N runtimes after the seed's (tokens expiring spread over --token-ttl), for load tests")
	f.BoolVar(&o.Stateless, "stateless", false, "serve stateless MCP (protocol 2026-07-28, no Mcp-Session-Id)")
	f.BoolVar(&o.JSONResponse, "json-response", false, "answer with application/json instead of SSE streams")
	f.BoolVar(&o.NoAuth, "no-auth", false, "also serve requests without a bearer token (for MCP conformance suites only)")
	f.BoolVar(&o.DeleteToTrash, "delete-to-trash", false, "Jupyter DELETE moves files to the runtime's /root/.local/share/Trash, as a stock jupyter_server does (disk use does not drop until rm --purge)")
	f.Int64Var(&o.ProxyMaxBody, "proxy-max-body", 0, "refuse runtime-proxy requests with a body over this many bytes with an nginx-style HTML 413 (0: no limit)")
	f.IntVar(&o.ManyFiles, "many-files", 0, "make /content/many on every runtime a read-only directory of N empty files, generated as they are listed (large-listing tests)")
	f.BoolVar(&o.XSSI, "xssi", false, "put Colab's anti-XSSI guard )]}' before every JSON reply of the runtime proxy")
	f.BoolVar(&o.TTYShell, "tty-shell", false, "serve a REAL shell of this machine (a pty) behind each runtime's /colab/tty instead of the emulated one (loopback only; anyone with a proxy token gets it)")
	f.BoolVar(&o.TTYCloseOnExpiry, "tty-close-on-expiry", false, "close an open /colab/tty socket (1008) when the proxy token that opened it expires (default: it stays open)")
	f.StringVar(&o.JupyterUpstream, "jupyter-upstream", "", "forward each runtime's proxy (connectionInfo.url, behind its token) to this real Jupyter server URL instead of the emulator's own file trees (https, or http to loopback only)")
	return cmd
}

// checkUpstream refuses a --jupyter-upstream the emulator could not use
// (not an http or https URL) or would send the upstream's Jupyter token
// to in clear (plain http to a host that is not loopback,
// safehttp.CheckCredentialURL), as a usage error (exit code 2).
func checkUpstream(raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &exitError{exitUsage, "--jupyter-upstream is not an http or https URL (e.g. https://jupyter.example.com/?token=…)"}
	}
	if err := safehttp.CheckCredentialURL(u); err != nil {
		return &exitError{exitUsage, fmt.Sprintf("--jupyter-upstream %s: %v", safehttp.Redact(u), err)}
	}
	return nil
}

// emulatorStartError says why the emulator could not listen on addr: a
// busy port is a failure (exit 1) with what to do, a bad address a usage
// error (exit 2).
func emulatorStartError(addr string, err error) *exitError {
	if errors.Is(err, syscall.EADDRINUSE) {
		return &exitError{exitFailure, "--addr " + addr + ": the port is busy (another program listens on it); " +
			"stop that program, choose another port, or use --addr 127.0.0.1:0 for a free one"}
	}
	return &exitError{exitUsage, "--addr " + addr + ": " + strings.TrimPrefix(err.Error(), "colabfake: ")}
}

// redactedError is err with its text redacted; errors.Is and errors.As
// still see err.
type redactedError struct {
	err  error
	text string
}

func (e redactedError) Error() string { return e.text }
func (e redactedError) Unwrap() error { return e.err }
