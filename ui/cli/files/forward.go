package files

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
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
		Long: "forward serves the runtime's Jupyter server on localhost:PORT for a local Jupyter client or\n" +
			"editor (RUNTIME: its id, runtimes/ID or a unique prefix), forwarding HTTP and WebSocket (kernel)\n" +
			"traffic with the current proxy token and renewing it before it expires, so the connection lasts\n" +
			"as long as the runtime does.\n\n" +
			"The first line printed is the URL to open, with a random local token (256 bits). Requests without\n" +
			"that token (in the URL, an \"Authorization: token …\" header, or the cookie the URL sets), with a\n" +
			"Host other than 127.0.0.1:PORT, localhost:PORT or [::1]:PORT, or WebSocket upgrades from another\n" +
			"Origin are refused before they reach the runtime. The proxy token itself never reaches a local\n" +
			"client. Listening beyond loopback (--address) needs saying so, prints a warning, and still\n" +
			"requires the token.\n\n" +
			"The default address, localhost, listens on both 127.0.0.1 and ::1 (where the machine has IPv6\n" +
			"loopback), so a client that resolves localhost to ::1 first reaches it too; an IP address listens\n" +
			"there only.\n\n" +
			"forward runs until ctrl+c (exit 130), SIGTERM (143) or SIGHUP (129) ends it, or until the runtime\n" +
			"is found gone (deleted or reclaimed: a renewal of its proxy token says so; exit 6, one line); a\n" +
			"busy --port exits 1.\n" + kit.ExitCodesHelp,
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
			ip, both := net.ParseIP(address), address == "localhost"
			if both {
				ip = net.IPv4(127, 0, 0, 1)
			}
			if ip == nil {
				return &kit.ExitError{Code: kit.ExitUsage, Msg: fmt.Sprintf("--address %q is not an IP address or localhost (127.0.0.1, ::1, 0.0.0.0…)", address)}
			}
			wide := !ip.IsLoopback()
			lns, err := listenForward(v.S.Listen, ip, port, both, g.Logs.Log)
			if err != nil {
				return err
			}
			defer closeAll(lns)
			ln := lns[0]
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
					"can run code on runtime %s and read its files (and a mounted Drive). Prefer the default, localhost.\n", ip, actual, id)
			}
			fmt.Fprintln(v.S.Revealed(), f.URL(host)) // holds the local token: the one output it may reach
			where := net.JoinHostPort(ip.String(), strconv.Itoa(actual))
			if both {
				where = "localhost:" + strconv.Itoa(actual)
			}
			fmt.Fprintf(v.S.Err, "Forwarding runtime %s's Jupyter server on %s; the proxy token is renewed before it expires. Ctrl+C stops.\n", id, where)
			fctx, stopFresh := context.WithCancel(ctx)
			defer stopFresh()
			go f.KeepFresh(fctx, 30*time.Second)
			srv := &http.Server{Handler: f, ReadHeaderTimeout: 10 * time.Second}
			served := make(chan error, len(lns))
			for _, l := range lns {
				go func() { served <- srv.Serve(l) }()
			}
			select {
			case <-ctx.Done():
				// A signal (or the caller's context): exit 130 (128 + the
				// signal), as --help says.
				_ = srv.Close()
				return &kit.ExitError{Code: kit.ExitInterrupted, Msg: ""}
			case <-f.Gone():
				// The runtime cannot come back under its id: stop, and let
				// the request that found out have its 502 first.
				sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
				defer cancel()
				_ = srv.Shutdown(sctx)
				return &kit.ExitError{Code: kit.ExitNotFound, Msg: "runtime " + id + " is gone (deleted or reclaimed); forward stops"}
			case err := <-served: // a listener failed: say so instead of waiting for ctrl+c
				_ = srv.Close()
				return &kit.ExitError{Code: kit.ExitFailure, Msg: "forward stopped: " + err.Error()}
			}
		},
	}
	kit.IntVar(cmd.Flags(), &port, "port", 8888, "a port number (0 to 65535)", "local port (0: any free port)")
	cmd.Flags().StringVar(&address, "address", "localhost", "address to listen on (localhost: 127.0.0.1 and ::1); anything but loopback exposes the runtime to the network (a warning is printed)")
	return cmd
}

// listenForward opens forward's listeners on ip:port (listen: nil is
// net.Listen). With both (the address "localhost"), ip is 127.0.0.1 and
// [::1] on the same port is opened too, as kubectl's port-forward does,
// so a client that resolves localhost to ::1 first and does not fall back
// reaches the forward; a machine without IPv6 loopback keeps the IPv4
// listener alone, said in the debug log. That port taken on ::1 by
// another program is refused (such a client would hand it the URL and its
// token), or, for --port 0, another free port is tried. The first listener
// is ip's. Errors are the verb's: a busy port exits 1.
func listenForward(listen func(network, address string) (net.Listener, error), ip net.IP, port int, both bool, log *slog.Logger) ([]net.Listener, error) {
	if listen == nil {
		listen = net.Listen
	}
	for tries := 0; ; tries++ {
		ln, err := listen("tcp", net.JoinHostPort(ip.String(), strconv.Itoa(port)))
		if err != nil {
			if errors.Is(err, syscall.EADDRINUSE) {
				return nil, &kit.ExitError{Code: kit.ExitFailure, Msg: fmt.Sprintf("port %d on %s is already in use (choose another with --port, or --port 0 for any free one)", port, ip)}
			}
			return nil, &kit.ExitError{Code: kit.ExitFailure, Msg: "listening: " + err.Error()}
		}
		if !both {
			return []net.Listener{ln}, nil
		}
		actual := ln.Addr().(*net.TCPAddr).Port
		ln6, err := listen("tcp6", net.JoinHostPort("::1", strconv.Itoa(actual)))
		switch {
		case err == nil:
			return []net.Listener{ln, ln6}, nil
		case !errors.Is(err, syscall.EADDRINUSE):
			if log != nil {
				log.Debug("forward: not listening on ::1 (127.0.0.1 only)", "error", err)
			}
			return []net.Listener{ln}, nil
		}
		_ = ln.Close()
		if port != 0 || tries == 4 {
			return nil, &kit.ExitError{Code: kit.ExitFailure, Msg: fmt.Sprintf("port %d is in use on ::1 by another program, "+
				"which a client resolving localhost to ::1 would reach instead of this forward (choose another --port, or --address 127.0.0.1)", actual)}
		}
	}
}

// closeAll closes every listener of lns.
func closeAll(lns []net.Listener) {
	for _, l := range lns {
		_ = l.Close()
	}
}
