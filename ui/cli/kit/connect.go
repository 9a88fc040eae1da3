package kit

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
	RetryAttempts       = 3
	maxClientRetryDelay = 5 * time.Second
)

// RetryBaseDelay is the wait before the second attempt of a transient
// failure (doubling after it): half a second. A variable only so that
// tests of the retry paths need not wait it out in real time.
var RetryBaseDelay = 500 * time.Millisecond

// demoCreateDelay is how long create_runtime takes in --demo, so the
// "creating… 0:02" row is visible.
const demoCreateDelay = 2 * time.Second

// Connection is a ready Service plus what the header shows about it.
type Connection struct {
	Svc      api.Service
	Endpoint string            // the MCP endpoint URL
	Account  string            // the account as the header shows it
	Creds    *auth.Credentials // nil in demo mode
	// MCP is the client under Svc (not logged), for what only it offers:
	// the server's tools and protocol (doctor).
	MCP   *client.Client
	Close func() // releases the service (and the demo emulator)
}

// Connect wires credentials and the MCP client, or, with --demo, an
// in-process emulator seeded with demo data. Connecting to the server is
// lazy (the first call does it), so this never blocks on the network.
func Connect(ctx context.Context, g Globals) (*Connection, error) {
	return ConnectProfile(ctx, g.Profile, g.Origin, g.Logs)
}

// ConnectProfile connects with one profile's credentials and endpoint;
// every API call is logged to lg.
// from says where the profile's files and quota project were set.
func ConnectProfile(ctx context.Context, p config.Profile, from AuthOrigin, lg Logs) (*Connection, error) {
	if lg.Log == nil {
		lg.Log = slog.New(slog.DiscardHandler)
	}
	if lg.Red == nil {
		lg.Red = &api.Redactor{}
	}
	// Every record of this connection names its profile, so calls after a
	// profile switch can be told apart in the log.
	lg.Log = lg.Log.With("profile", p.Name)
	if p.Credentials == config.CredentialsDemo {
		return ConnectDemo(ctx, lg)
	}
	// One redactor for the process: auth registers every token and file
	// secret when it learns it, the client every proxy token, and both
	// redact what servers echo; the log, stderr and the dashboard use it.
	creds, err := auth.New(ctx, auth.Options{
		CredentialsFile:  ExpandHome(p.CredentialsFile),
		AccessTokenFile:  ExpandHome(p.AccessTokenFile),
		QuotaProject:     p.QuotaProject,
		From:             from.creds,
		QuotaProjectFrom: from.quota,
		Redactor:         lg.Red,
	})
	if err != nil {
		return nil, err
	}
	c, err := client.New(ctx, client.Options{
		Endpoint:          p.Endpoint,
		HTTPClient:        &http.Client{Transport: creds.Transport(client.NewTransport())},
		OnUnauthenticated: creds.ForceRefresh,
		ClientVersion:     Version,
		Logger:            lg.Log,
		Redactor:          lg.Red,
		MaxAttempts:       RetryAttempts,
		BaseDelay:         RetryBaseDelay,
		MaxRetryDelay:     maxClientRetryDelay,
		StateDir:          StateDir(), // which protocol the endpoint speaks, no secrets
	})
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Msg: err.Error()}
	}
	return owned(&Connection{Svc: api.LoggingService(c, lg.Log, lg.Red), Endpoint: lg.Red.Redact(p.Endpoint), Account: creds.Describe(), Creds: creds, MCP: c, Close: func() { c.Close() }}), nil
}

// ConnectDemo starts the emulator on a loopback port and connects to it
// with a placeholder bearer token (the emulator accepts any). Its Jupyter
// servers keep a trash, as Colab's do (DeleteToTrash): rm -r of a
// non-empty directory moves it there whole, and rm --purge empties it.
//
// ctx bounds only the connecting, as for every profile: the emulator runs
// until the Connection's Close (the dashboard connects a profile in a
// command whose context ends as soon as it returns, and closes the Service
// when it switches away). Each call starts a fresh emulator, seeded anew.
func ConnectDemo(ctx context.Context, lg Logs) (*Connection, error) {
	srv, endpoint, err := colabfake.Start(context.WithoutCancel(ctx), "127.0.0.1:0", colabfake.Options{Seed: colabfake.SeedDemo, CreateDelay: demoCreateDelay, DeleteToTrash: true})
	if err != nil {
		return nil, &ExitError{Code: ExitFailure, Msg: "starting the demo emulator: " + err.Error()}
	}
	c, err := client.New(ctx, client.Options{Endpoint: endpoint, HTTPClient: demoHTTPClient(), ClientVersion: Version,
		Logger: lg.Log, Redactor: lg.Red})
	if err != nil {
		srv.Close()
		return nil, &ExitError{Code: ExitFailure, Msg: err.Error()}
	}
	return owned(&Connection{Svc: api.LoggingService(c, lg.Log, lg.Red), Endpoint: endpoint, Account: "embedded emulator", MCP: c, Close: func() { c.Close(); srv.Close() }}), nil
}

// demoHTTPClient sends the fixed bearer token the emulator expects
// (any non-empty token).
func demoHTTPClient() *http.Client {
	return &http.Client{Transport: &oauth2.Transport{Source: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "demo"}), Base: client.NewTransport()}}
}

// Classify turns a failure into the command's exit code and one line:
// 3 for credentials or permission, 5 for a quota, rate limit or runtime
// limit, 130 when interrupted, 4 for any other API or network failure (a
// network failure with NetworkFix as its fix line).
func Classify(err error, creds *auth.Credentials) *ExitError {
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee
	}
	if headline, fix := auth.Explain(err, creds); headline != "" {
		if fix != "" {
			headline += "; fix: " + fix
		}
		return &ExitError{Code: ExitCredential, Msg: api.OneLine(headline, 0)}
	}
	var ae *api.Error
	if errors.As(err, &ae) && ae.IsAuth() {
		return &ExitError{Code: ExitCredential, Msg: ae.Error()}
	}
	if ae != nil && QuotaOrIneligible(ae) {
		return &ExitError{Code: ExitQuota, Msg: ae.Error()}
	}
	if errors.Is(err, context.Canceled) {
		return &ExitError{Code: ExitInterrupted, Msg: "interrupted"}
	}
	if ae != nil && ae.Code == api.NotFound && ae.HTTPStatus != 404 {
		// The runtime or session went away between listing and acting (a
		// tool's NOT_FOUND; an HTTP 404 is a wrong endpoint, exit 4).
		return &ExitError{Code: ExitNotFound, Msg: api.OneLine(err.Error(), 300)}
	}
	ee = &ExitError{Code: ExitAPI, Msg: api.OneLine(err.Error(), 300)}
	if api.IsNetworkError(err) {
		ee.Fix = NetworkFix
	}
	return ee
}

// NetworkFix is the fix line of a failure to reach the endpoint (or a
// runtime) over the network: a refused dial, a name that did not resolve.
const NetworkFix = "check the network (DNS, a proxy in HTTPS_PROXY) and --endpoint; colabdash doctor checks each step"

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

func owned(c *Connection) *Connection {
	o := &ownedService{Service: c.Svc, close: c.Close}
	c.Svc, c.Close = o, func() { o.Close() }
	return c
}

// OpenLog opens --log-file (appending, mode 0600) with a JSON handler
// behind api.RedactingHandler: info level, debug with --debug.
func OpenLog(g *Globals, command string) error {
	red := g.Logs.Red // the streams' own (runStreamsContext), when set
	if red == nil {
		red = &api.Redactor{}
	}
	g.Logs = Logs{Log: slog.New(slog.DiscardHandler), Red: red}
	if g.LogFile == "" {
		if g.Debug {
			msg := "--debug needs --log-file FILE"
			if command == "colabdash" {
				msg += " (the dashboard owns the terminal)"
			}
			return &ExitError{Code: ExitUsage, Msg: msg}
		}
		return nil
	}
	f, err := os.OpenFile(ExpandHome(g.LogFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return &ExitError{Code: ExitUsage, Msg: "--log-file: " + err.Error()}
	}
	level := slog.LevelInfo
	if g.Debug {
		level = slog.LevelDebug
	}
	g.Logs.Log = slog.New(api.NewLogHandler(f, &slog.HandlerOptions{Level: level}, g.Logs.Red))
	g.Logs.Close = func() { f.Close() }
	g.Logs.Log.Info("start", "command", command, "version", VersionString(), "profile", g.Profile.Name,
		"endpoint", g.Profile.Endpoint, "config", g.Settings.Source)
	return nil
}
