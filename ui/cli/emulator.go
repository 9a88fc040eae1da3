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

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/safehttp"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

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
		addr     string
		resFault string
		o        colabfake.Options
	)
	cmd := &cobra.Command{
		Use:   "emulator",
		Short: "Serve the embedded Colab MCP emulator on loopback",
		Long: "emulator serves a Colab MCP server (all ten tools, proxy tokens that expire, quotas) on a\n" +
			"loopback address until interrupted. It accepts any non-empty bearer token (with --no-auth, none at all).\n" +
			"Each runtime's connectionInfo.url is the emulator's own runtime proxy (/proxy/RUNTIME/), which checks\n" +
			"the proxy token and serves a small Jupyter server (files, contents, sessions, kernel interrupt, and\n" +
			"Colab's /colab/tty terminal with an emulated shell; --tty-shell for a real one) from a\n" +
			"per-runtime file tree, or forwards to a real one with --jupyter-upstream.\n\n" +
			"The monitor's routes (colabdash top, the dashboard's RAM/GPU columns): each runtime's\n" +
			"api/colab/resources answers deterministic figures per spec (RAM, the `kernel` disk, the spec's GPU,\n" +
			"busy while emulated code that mentions cuda or gpu runs), or this machine's with\n" +
			"--resources-from-host; api/kernels follows emulated executions. --stock-jupyter answers Colab's\n" +
			"routes as a stock Jupyter server does (HTML 404), --stuck-kernel adds a kernel stuck \"starting\",\n" +
			"and --resources-fault MODE makes every api/colab/resources fail: html-404 (a stock server's page,\n" +
			"that route only), 500, slow (10 s late), partial ({\"disks\":[{}]}), empty ({}: no disks) or\n" +
			"not-json.\n\n" +
			"Control routes (POST, the same bearer as /mcp; 204 on success) make the failures a tool must survive\n" +
			"happen when a script says: /emulator/reclaim?runtime=ID removes a runtime as Colab reclaims one,\n" +
			"/emulator/expire-token?runtime=ID&in=30s moves its proxy token's expireTime (negative: expired), and\n" +
			"/emulator/fail?tool=get_runtime&code=UNAVAILABLE (or &status=503; &times=N, -1 for ever) fails a tool's\n" +
			"next calls; /emulator/clear drops the failures still queued. A busy --addr port exits 1.\n" + kit.ExitCodesHelp,
		Example: "  colabdash emulator --addr 127.0.0.1:8089 --token-ttl 2m\n" +
			"  colabdash emulator --stuck-kernel --resources-fault 500 --proxy-latency 50ms\n" +
			"  colabdash emulator --jupyter-upstream 'http://127.0.0.1:8888/?token=abc'\n" +
			"  echo fake > token.txt; colabdash status --endpoint http://127.0.0.1:8089/mcp --access-token-file token.txt\n" +
			"  curl -X POST -H 'Authorization: Bearer fake' 'http://127.0.0.1:8089/emulator/reclaim?runtime=rt-cpudemo4qx'",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Seed != colabfake.SeedDemo && o.Seed != colabfake.SeedEmpty && o.Seed != colabfake.SeedHostile {
				return &kit.ExitError{Code: kit.ExitUsage, Msg: fmt.Sprintf("--seed must be %q, %q or %q, not %q", colabfake.SeedDemo, colabfake.SeedEmpty, colabfake.SeedHostile, o.Seed)}
			}
			if o.Runtimes < 0 || o.Runtimes > 99999 {
				return &kit.ExitError{Code: kit.ExitUsage, Msg: fmt.Sprintf("--runtimes must be between 0 and 99999, not %d", o.Runtimes)}
			}
			if o.ManyFiles < 0 || o.ManyFiles > 10_000_000 {
				return &kit.ExitError{Code: kit.ExitUsage, Msg: fmt.Sprintf("--many-files must be between 0 and 10000000, not %d", o.ManyFiles)}
			}
			if o.Seed == colabfake.SeedDemo && !cmd.Flags().Changed("delete-to-trash") {
				o.DeleteToTrash = true // the demo behaves as Colab's Jupyter server, which keeps a trash
			}
			if err := checkUpstream(o.JupyterUpstream); err != nil {
				return err
			}
			fault, err := resourcesFault(resFault)
			if err != nil {
				return err
			}
			srv, endpoint, err := colabfake.Start(cmd.Context(), addr, o)
			if err != nil {
				return emulatorStartError(addr, err)
			}
			defer srv.Close()
			if fault != nil {
				srv.InjectProxy(*fault)
			}
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
	kit.DurationVar(f, &o.TokenTTL, "token-ttl", colabfake.DefaultTokenTTL, true, "proxy-token lifetime")
	kit.DurationVar(f, &o.CreateDelay, "create-delay", 3*time.Second, false, "how long create_runtime takes")
	kit.DurationVar(f, &o.Latency, "latency", 0, false, "delay added to every MCP request (handshake, tools/list, tools/call)")
	f.StringVar(&o.Seed, "seed", colabfake.SeedDemo, "starting data: demo, empty, or hostile (strings carrying terminal control sequences, to check that none gets through)")
	kit.IntVar(f, &o.Runtimes, "runtimes", 0, "a whole number of runtimes", "add N runtimes after the seed's (tokens expiring spread over --token-ttl), for load tests")
	f.BoolVar(&o.Stateless, "stateless", false, "serve stateless MCP (protocol 2026-07-28, no Mcp-Session-Id)")
	f.BoolVar(&o.JSONResponse, "json-response", false, "answer with application/json instead of SSE streams")
	f.BoolVar(&o.NoAuth, "no-auth", false, "also serve requests without a bearer token (for MCP conformance suites only)")
	f.BoolVar(&o.DeleteToTrash, "delete-to-trash", false, "Jupyter DELETE moves files (a non-empty directory whole) to the runtime's /root/.local/share/Trash, as Colab's jupyter_server does (disk use does not drop until rm --purge); on by default with --seed demo (--delete-to-trash=false turns it off)")
	kit.Int64Var(f, &o.ProxyMaxBody, "proxy-max-body", 0, "a whole number of bytes", "refuse runtime-proxy requests with a body over this many bytes with an nginx-style HTML 413 (0: no limit)")
	kit.IntVar(f, &o.ManyFiles, "many-files", 0, "a whole number of files", "make /content/many on every runtime a read-only directory of N empty files, generated as they are listed (large-listing tests)")
	f.BoolVar(&o.XSSI, "xssi", false, "put Colab's anti-XSSI guard )]}' before every JSON reply of the runtime proxy")
	f.BoolVar(&o.TTYShell, "tty-shell", false, "serve a REAL shell of this machine (a pty) behind each runtime's /colab/tty instead of the emulated one (loopback only; anyone with a proxy token gets it)")
	f.BoolVar(&o.TTYCloseOnExpiry, "tty-close-on-expiry", false, "close an open /colab/tty socket (1008) when the proxy token that opened it expires (default: it stays open)")
	kit.DurationVar(f, &o.ProxyLatency, "proxy-latency", 0, false, "delay added to every runtime-proxy request (files, contents, kernels, resources; a WebSocket's upgrade, not its frames), as a network round trip to a runtime")
	f.BoolVar(&o.ResourcesFromHost, "resources-from-host", false, "api/colab/resources reports this machine (/proc/meminfo, statfs of /, nvidia-smi's GPUs when installed) instead of the deterministic figures per runtime spec")
	f.BoolVar(&o.ResourcesNoXSSI, "resources-no-xssi", false, "leave Colab's XSSI guard )]}' out of api/colab/resources' reply (it carries one by default)")
	f.BoolVar(&o.GPUFiguresOmitted, "gpu-figures-omitted", false, "each GPU of api/colab/resources' reply carries its name alone: memory, utilizations and everUsed left out (unknown), as a server that does not measure them")
	f.BoolVar(&o.NoColabExtensions, "stock-jupyter", false, "answer Colab's own routes (api/colab/resources, colab/tty) as a stock jupyter_server does: an HTML 404")
	f.BoolVar(&o.StuckKernel, "stuck-kernel", false, "add a CPU runtime "+colabfake.StuckKernelRuntime+" whose notebook kernel stays \"starting\" with no connection (a blocked kernel WebSocket)")
	f.StringVar(&resFault, "resources-fault", "", "make every runtime's api/colab/resources fail: "+strings.Join(resourcesFaultModes, ", ")+" (see --help)")
	f.StringVar(&o.JupyterUpstream, "jupyter-upstream", "", "forward each runtime's proxy (connectionInfo.url, behind its token) to this real Jupyter server URL instead of the emulator's own file trees (https, or http to loopback only)")
	return cmd
}

// resourcesFaultModes are --resources-fault's modes, as listed in the
// command's help.
var resourcesFaultModes = []string{"html-404", "500", "slow", "partial", "empty", "not-json"}

// resourcesFault is the runtime-proxy fault --resources-fault mode puts on
// every runtime's api/colab/resources, for good (nil for ""): html-404 a
// stock jupyter_server's HTML 404 (Server: TornadoServer), 500 an HTTP
// 500, slow a reply 10 s late (past the 5 s colabdash waits), partial a
// body with one disk and no figures ({"disks":[{}]}), empty a body
// without the required disks ({}), not-json a body that is not JSON. An
// unknown mode is a usage error (exit code 2).
func resourcesFault(mode string) (*colabfake.ProxyFault, error) {
	f := colabfake.ProxyFault{PathPrefix: "api/colab/resources", Times: -1}
	body := func(b string) {
		f.Kind, f.Status, f.ContentType, f.Body = colabfake.ProxyStatus, 200, "application/json", ")]}'\n"+b
	}
	switch mode {
	case "":
		return nil, nil
	case "html-404":
		f.Kind = colabfake.ProxyStockNotFound
	case "500":
		f.Kind, f.Status, f.ContentType, f.Body = colabfake.ProxyStatus, 500, "text/plain", "Internal Server Error"
	case "slow":
		f.Kind, f.Delay = colabfake.ProxyDelay, 10*time.Second
	case "partial":
		body(`{"disks":[{}]}`)
	case "empty":
		body(`{}`)
	case "not-json":
		body("<html><body>not JSON</body></html>")
	default:
		return nil, &kit.ExitError{Code: kit.ExitUsage, Msg: fmt.Sprintf("--resources-fault must be one of %s, not %q", strings.Join(resourcesFaultModes, ", "), mode)}
	}
	return &f, nil
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
		return &kit.ExitError{Code: kit.ExitUsage, Msg: "--jupyter-upstream is not an http or https URL (e.g. https://jupyter.example.com/?token=…)"}
	}
	if err := safehttp.CheckCredentialURL(u); err != nil {
		return &kit.ExitError{Code: kit.ExitUsage, Msg: fmt.Sprintf("--jupyter-upstream %s: %v", safehttp.Redact(u), err)}
	}
	return nil
}

// emulatorStartError says why the emulator could not listen on addr: a
// busy port is a failure (exit 1) with what to do, a bad address a usage
// error (exit 2).
func emulatorStartError(addr string, err error) *kit.ExitError {
	if errors.Is(err, syscall.EADDRINUSE) {
		return &kit.ExitError{Code: kit.ExitFailure, Msg: "--addr " + addr + ": the port is busy (another program listens on it); " +
			"stop that program, choose another port, or use --addr 127.0.0.1:0 for a free one"}

	}
	return &kit.ExitError{Code: kit.ExitUsage, Msg: "--addr " + addr + ": " + strings.TrimPrefix(err.Error(), "colabfake: ")}
}

// ttyShellWarning is what `colabdash emulator --tty-shell` says at start,
// on stderr: the emulator accepts any bearer token, so its loopback and
// Host checks are all that guard a real shell.
const ttyShellWarning = "WARNING: --tty-shell: each runtime's /colab/tty is a REAL shell on this machine, as this user.\n" +
	"The emulator accepts any bearer token: anything on this machine that can reach its loopback port can get\n" +
	"a proxy token and run commands here. Use it only for trying the shell by hand; tests use the emulated shell."
