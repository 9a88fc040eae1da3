package files

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// forwardCmd is `colabdash forward`: the runtime's Jupyter server on a
// local port, behind a local token, its proxy token renewed.
func forwardCmd(g *kit.Globals, s *kit.Streams) *cobra.Command {
	v := newVerb(g, s, "forward")
	var (
		port    int
		address string
	)
	cmd := &cobra.Command{
		Use:   "forward RUNTIME",
		Short: "Serve a runtime's Jupyter server on localhost, renewing the proxy token",
		Long: "forward serves the runtime's Jupyter server on 127.0.0.1:PORT for a local Jupyter client or\n" +
			"editor (RUNTIME: its id, runtimes/ID or a unique prefix), forwarding HTTP and WebSocket (kernel)\n" +
			"traffic with the current proxy token and renewing it before it expires, so the connection lasts\n" +
			"as long as the runtime does.\n\n" +
			"The first line printed is the URL to open, with a random local token (256 bits). Requests without\n" +
			"that token (in the URL, an \"Authorization: token …\" header, or the cookie the URL sets), with a\n" +
			"Host other than 127.0.0.1:PORT, localhost:PORT or [::1]:PORT, or WebSocket upgrades from another\n" +
			"Origin are refused before they reach the runtime. The proxy token itself never reaches a local\n" +
			"client. Listening beyond loopback (--address) needs saying so, prints a warning, and still\n" +
			"requires the token.\n\n" +
			"forward runs until ctrl+c (exit 130), SIGTERM (143) or SIGHUP (129) ends it; a busy --port exits 1.\n" + kit.ExitCodesHelp,
		Example: "  colabdash forward rt-abc                # http://127.0.0.1:8888/?token=…\n" +
			"  colabdash forward rt-abc --port 0       # any free port\n" +
			"  jupyter console --existing …            # or point VS Code / JupyterLab at the printed URL",
		Args: cobra.ExactArgs(1),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return v.CompleteRuntimes(cmd, args, toComplete)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if port < 0 || port > 65535 {
				return &kit.ExitError{Code: kit.ExitUsage, Msg: fmt.Sprintf("--port %d is not a port", port)}
			}
			ip := net.ParseIP(address)
			if address == "localhost" {
				ip = net.IPv4(127, 0, 0, 1)
			}
			if ip == nil {
				return &kit.ExitError{Code: kit.ExitUsage, Msg: fmt.Sprintf("--address %q is not an IP address (127.0.0.1, ::1, 0.0.0.0…)", address)}
			}
			wide := !ip.IsLoopback()
			listen := v.S.Listen
			if listen == nil {
				listen = net.Listen
			}
			ln, err := listen("tcp", net.JoinHostPort(ip.String(), strconv.Itoa(port)))
			if err != nil {
				if errors.Is(err, syscall.EADDRINUSE) {
					return &kit.ExitError{Code: kit.ExitFailure, Msg: fmt.Sprintf("port %d on %s is already in use (choose another with --port, or --port 0 for any free one)", port, ip)}
				}
				return &kit.ExitError{Code: kit.ExitFailure, Msg: "listening: " + err.Error()}
			}
			defer ln.Close()
			actual := ln.Addr().(*net.TCPAddr).Port
			ctx := cmd.Context()
			rf, err := v.openRuntime(ctx, args[0], "")
			if err != nil {
				return err
			}
			defer rf.conn.Close()
			id := rf.id()
			f, err := jupyter.NewForwarder(rf.jc, jupyter.ForwardOptions{Port: actual, Wide: wide, Logger: g.Logs.Log})
			if err != nil {
				return &kit.ExitError{Code: kit.ExitFailure, Msg: err.Error()}
			}
			// The printed URL names an address that listens: the one asked
			// for, or loopback when it was "any" (0.0.0.0, ::).
			host := ip.String()
			if ip.IsUnspecified() {
				host = "127.0.0.1"
			}
			if wide {
				fmt.Fprintf(v.S.Err, "colabdash: WARNING: listening on %s, beyond this machine: anyone who can reach port %d and learns the token\n"+
					"can run code on runtime %s and read its files (and a mounted Drive). Prefer the default 127.0.0.1.\n", ip, actual, id)
			}
			fmt.Fprintln(v.S.Revealed(), f.URL(host)) // holds the local token: the one output it may reach
			fmt.Fprintf(v.S.Err, "Forwarding runtime %s's Jupyter server on %s:%d; the proxy token is renewed before it expires. Ctrl+C stops.\n", id, ip, actual)
			go f.KeepFresh(ctx, 30*time.Second)
			srv := &http.Server{Handler: f, ReadHeaderTimeout: 10 * time.Second}
			served := make(chan error, 1)
			go func() { served <- srv.Serve(ln) }()
			select {
			case <-ctx.Done():
				// Only a signal (or the caller's context) ends a forward:
				// exit 130 (128 + the signal), as --help says.
				_ = srv.Close()
				return &kit.ExitError{Code: kit.ExitInterrupted, Msg: ""}
			case err := <-served: // the listener failed: say so instead of waiting for ctrl+c
				_ = srv.Close()
				return &kit.ExitError{Code: kit.ExitFailure, Msg: "forward stopped: " + err.Error()}
			}
		},
	}
	cmd.Flags().IntVar(&port, "port", 8888, "local port (0: any free port)")
	cmd.Flags().StringVar(&address, "address", "127.0.0.1", "address to listen on; anything but loopback exposes the runtime to the network (a warning is printed)")
	return cmd
}
