package cli

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/auth"
	"github.com/colabdash/colabdash/api/client"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/ui"
)

// Retries of transient failures (UNAVAILABLE, 5xx, rate limits): three
// attempts from half a second apart, so a dead endpoint is reported in
// about two seconds instead of a quarter of a minute.
//
// A server retry delay longer than maxClientRetryDelay is not waited out
// silently inside the client: the error reaches the dashboard, which shows
// the countdown (e.g. "rate limited, retrying 2/5 in 0:53") with a cancel
// key and re-sends the identical create_runtime itself.
const (
	retryAttempts       = 3
	retryBaseDelay      = 500 * time.Millisecond
	maxClientRetryDelay = 5 * time.Second
)

// demoCreateDelay is how long create_runtime takes in --demo, so the
// "creating… 0:02" row is visible.
const demoCreateDelay = 2 * time.Second

// connection is a ready Service plus what the header shows about it.
type connection struct {
	svc      api.Service
	endpoint string
	account  string
	creds    *auth.Credentials // nil in demo mode
	close    func()
}

// connect wires credentials and the MCP client, or, with --demo, an
// in-process emulator seeded with demo data. Connecting to the server is
// lazy (the first call does it), so this never blocks on the network.
func connect(ctx context.Context, g globalFlags) (*connection, error) {
	return connectProfile(ctx, g.profile, g.origin, g.logs)
}

// connectProfile connects with one profile's credentials and endpoint;
// every API call is logged to lg.
// from says where the profile's files and quota project were set.
func connectProfile(ctx context.Context, p config.Profile, from authOrigin, lg logs) (*connection, error) {
	if lg.log == nil {
		lg = logs{log: slog.New(slog.DiscardHandler), red: &api.Redactor{}}
	}
	// Every record of this connection names its profile, so calls after a
	// profile switch can be told apart in the log.
	lg.log = lg.log.With("profile", p.Name)
	if p.Credentials == config.CredentialsDemo {
		return connectDemo(ctx, lg)
	}
	// One redactor for the process: auth registers every token and file
	// secret when it learns it, the client every proxy token, and both
	// redact what servers echo; the log, stderr and the dashboard use it.
	creds, err := auth.New(ctx, auth.Options{
		CredentialsFile:  expandHome(p.CredentialsFile),
		AccessTokenFile:  expandHome(p.AccessTokenFile),
		QuotaProject:     p.QuotaProject,
		From:             from.creds,
		QuotaProjectFrom: from.quota,
		Redactor:         lg.red,
	})
	if err != nil {
		return nil, err
	}
	c, err := client.New(ctx, client.Options{
		Endpoint:          p.Endpoint,
		HTTPClient:        &http.Client{Transport: creds.Transport(client.NewTransport())},
		OnUnauthenticated: creds.ForceRefresh,
		ClientVersion:     version,
		Logger:            lg.log,
		Redactor:          lg.red,
		MaxAttempts:       retryAttempts,
		BaseDelay:         retryBaseDelay,
		MaxRetryDelay:     maxClientRetryDelay,
		StateDir:          ui.DefaultStateDir(), // which protocol the endpoint speaks, no secrets
	})
	if err != nil {
		return nil, &exitError{exitUsage, err.Error()}
	}
	return owned(&connection{svc: api.LoggingService(c, lg.log, lg.red), endpoint: lg.red.Redact(p.Endpoint), account: creds.Describe(), creds: creds, close: func() { c.Close() }}), nil
}

// connectDemo starts the emulator on a loopback port and connects to it
// with a placeholder bearer token (the emulator accepts any).
func connectDemo(ctx context.Context, lg logs) (*connection, error) {
	srv, endpoint, err := colabfake.Start(ctx, "127.0.0.1:0", colabfake.Options{Seed: colabfake.SeedDemo, CreateDelay: demoCreateDelay})
	if err != nil {
		return nil, &exitError{exitFailure, "starting the demo emulator: " + err.Error()}
	}
	c, err := client.New(ctx, client.Options{Endpoint: endpoint, HTTPClient: demoHTTPClient(), ClientVersion: version,
		Logger: lg.log, Redactor: lg.red})
	if err != nil {
		srv.Close()
		return nil, &exitError{exitFailure, err.Error()}
	}
	return owned(&connection{svc: api.LoggingService(c, lg.log, lg.red), endpoint: endpoint, account: "embedded emulator", close: func() { c.Close(); srv.Close() }}), nil
}

// demoHTTPClient sends the fixed bearer token the emulator expects
// (any non-empty token).
func demoHTTPClient() *http.Client {
	return &http.Client{Transport: &oauth2.Transport{Source: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "demo"}), Base: client.NewTransport()}}
}

// classify turns a failure into the command's exit code and one line:
// 3 for credentials or permission, 5 for a quota, rate limit or runtime
// limit, 130 when interrupted, 4 for any other API or network failure.
func classify(err error, creds *auth.Credentials) *exitError {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee
	}
	if headline, fix := auth.Explain(err, creds); headline != "" {
		if fix != "" {
			headline += "; fix: " + fix
		}
		return &exitError{exitCredential, api.OneLine(headline, 0)}
	}
	var ae *api.Error
	if errors.As(err, &ae) && ae.IsAuth() {
		return &exitError{exitCredential, ae.Error()}
	}
	if ae != nil && quotaOrIneligible(ae) {
		return &exitError{exitQuota, ae.Error()}
	}
	if errors.Is(err, context.Canceled) {
		return &exitError{exitInterrupted, "interrupted"}
	}
	return &exitError{exitAPI, api.OneLine(err.Error(), 300)}
}

// ownedService is a connection's Service whose Close also releases what
// the connection owns (the demo emulator), once, whoever calls it first:
// the dashboard when it switches profile, or main on exit.
type ownedService struct {
	api.Service
	once  sync.Once
	close func()
}

// Close releases the connection once.
func (o *ownedService) Close() error {
	o.once.Do(o.close)
	return nil
}

func owned(c *connection) *connection {
	o := &ownedService{Service: c.svc, close: c.close}
	c.svc, c.close = o, func() { o.Close() }
	return c
}

// openLog opens --log-file (appending, mode 0600) with a JSON handler
// behind api.RedactingHandler: info level, debug with --debug.
func openLog(g *globalFlags, command string) error {
	g.logs = logs{log: slog.New(slog.DiscardHandler), red: &api.Redactor{}}
	if g.logFile == "" {
		if g.debug {
			msg := "--debug needs --log-file FILE"
			if command == "colabdash" {
				msg += " (the dashboard owns the terminal)"
			}
			return &exitError{exitUsage, msg}
		}
		return nil
	}
	f, err := os.OpenFile(expandHome(g.logFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return &exitError{exitUsage, "--log-file: " + err.Error()}
	}
	level := slog.LevelInfo
	if g.debug {
		level = slog.LevelDebug
	}
	g.logs.log = slog.New(api.NewLogHandler(f, &slog.HandlerOptions{Level: level}, g.logs.red))
	g.logs.close = func() { f.Close() }
	g.logs.log.Info("start", "command", command, "version", versionString(), "profile", g.profile.Name,
		"endpoint", g.profile.Endpoint, "config", g.settings.Source)
	return nil
}
