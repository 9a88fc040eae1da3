// Package client is the typed Colab MCP client: it implements api.Service
// by calling the ten tools of the Colab MCP server
// (https://colaboratory.googleapis.com/mcp) over
// streamable HTTP with github.com/modelcontextprotocol/go-sdk.
//
// One MCP session is shared by all calls and opened lazily by the first
// call (or by Connect), so building a Client never touches the network.
// The session is re-opened by itself when the server drops it. Every
// failure is an *api.Error.
//
// Retries: the client re-sends the calls that are safe to repeat (reads,
// deletes, create-or-get) itself, with backoff. create_runtime and
// execute_code with an executionId are sent once per call: their re-sends
// belong to the caller alone, which decides them with state's
// CreateAnswered and ExecAnswered, so a lost reply is re-sent by exactly
// one layer. See Client for the details.
package client

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/safehttp"
)

// Default timeouts and retry knobs; see Options.
const (
	DefaultReadTimeout          = 30 * time.Second
	DefaultConnectTimeout       = 30 * time.Second
	DefaultCreateRuntimeTimeout = 5 * time.Minute
	DefaultExecuteCodeTimeout   = 620 * time.Second
	DefaultMaxAttempts          = 5
	DefaultBaseDelay            = 1 * time.Second
	DefaultMaxDelay             = 30 * time.Second
	DefaultMaxRetryDelay        = 5 * time.Minute
	// DefaultMaxReply bounds the body of one successful (2xx) reply to a
	// POST, JSON or SSE: 32 MiB. Error bodies are bounded separately
	// (64 KiB). Colab's largest replies (a list of runtimes, an
	// execute_code result, whose output the server truncates) are far
	// below it.
	DefaultMaxReply int64 = 32 << 20
)

// Options configures New. The zero value is usable (no auth, real
// endpoint); every zero field takes the default named in its comment.
type Options struct {
	// Endpoint is the MCP server URL. Default api.DefaultEndpoint.
	Endpoint string
	// HTTPClient sends the requests and is expected to add the auth headers
	// (Authorization, x-goog-user-project), e.g. oauth2.NewClient. It is
	// never mutated: the Client uses a copy whose Transport is wrapped and
	// whose Timeout is cleared (per-call timeouts below apply instead, and a
	// Client.Timeout would cut 10-minute execute_code calls). A nil
	// Transport (or a nil HTTPClient) gets a NewTransport of the Client's
	// own, whose idle connections Close closes; an auth transport should
	// sit on a NewTransport too (see there).
	HTTPClient *http.Client
	// OnUnauthenticated is called when a call gets HTTP 401, at most once
	// per call. Returning true (e.g. after a forced single-flight token
	// refresh) makes the client retry that call once; a second 401 is
	// returned as UNAUTHENTICATED.
	OnUnauthenticated func(ctx context.Context) bool
	// OnRetry, when set, is called before each automatic retry wait so the
	// UI can show "retrying 2/5 in 8s". It must not block.
	OnRetry func(RetryEvent)
	// Logger receives debug logs (tool, attempt, duration, code; raw error
	// bodies with tokens redacted). Tokens and auth headers are never
	// logged. Default: discard.
	Logger *slog.Logger
	// Redactor, shared with the rest of the process, learns every proxy
	// token (and any other secret-named field) in a reply before the reply
	// is used, and removes every known secret from whatever the server
	// sends back in an error (HTTP bodies, JSON-RPC errors, isError
	// results) before that text becomes an *api.Error, so no error string
	// of this package carries a secret. Default: a private one (patterns
	// and this client's proxy tokens only).
	Redactor *api.Redactor
	// Now is the clock used for RetryEvent.At. Default time.Now.
	Now func() time.Time
	// Sleep waits d or until ctx ends (then it returns ctx's error).
	// Tests inject a fake. Default: a timer.
	Sleep func(ctx context.Context, d time.Duration) error

	// ConnectTimeout bounds opening the MCP session (discover/initialize),
	// and separately the tools/list that follows in the background.
	// Default 30 s.
	ConnectTimeout time.Duration
	// ReadTimeout bounds one attempt of every tool but create_runtime and
	// execute_code. Default 30 s.
	ReadTimeout time.Duration
	// CreateRuntimeTimeout bounds one create_runtime attempt (the tool
	// waits until the runtime is ready). Default 5 min.
	CreateRuntimeTimeout time.Duration
	// ExecuteCodeTimeout bounds one execute_code attempt; the server cuts
	// off at 600 s. Default 620 s.
	ExecuteCodeTimeout time.Duration

	// MaxReply bounds, in bytes, the body of one successful reply to a
	// POST (default DefaultMaxReply). A larger reply is not read: the call
	// fails with OUT_OF_RANGE naming the limit (the call itself may have
	// taken effect), and is not retried.
	MaxReply int64

	// MaxAttempts is the number of attempts per call, first one included
	// (a reconnect after a dropped session and the retry after
	// OnUnauthenticated are extra). Default 5; 1 disables retries.
	MaxAttempts int
	// BaseDelay is the first backoff delay (doubling, ±50 % jitter).
	// Default 1 s.
	BaseDelay time.Duration
	// MaxDelay caps the backoff delay (not the server's RetryDelay).
	// Default 30 s.
	MaxDelay time.Duration
	// MaxRetryDelay: a server RetryDelay longer than this is not waited
	// for; the error is returned at once. Default 5 min.
	MaxRetryDelay time.Duration

	// ClientName and ClientVersion identify the client in the MCP
	// handshake and the User-Agent ("colabdash/dev" by default).
	ClientName    string
	ClientVersion string
	// ProtocolVersion pins the MCP protocol version (e.g. "2025-11-25"),
	// skipping server/discover. Default: discover 2026-07-28 and fall back
	// to the initialize handshake, unless StateDir remembers the answer.
	ProtocolVersion string
	// StateDir is where the client remembers which protocol each endpoint
	// answered with (ProtocolFile, no secrets), so that the next start
	// against a classic server skips the server/discover probe it knows
	// fails. The memory is trusted for ProtocolMemoryTTL and dropped on a
	// version error. "" remembers nothing.
	StateDir string
}

// RetryEvent describes an automatic retry about to happen.
//
// Attempt is the 1-based number of the attempt that failed, MaxAttempts
// the limit; Wait is how long the client waits before the next attempt (at
// least the server's RetryDelay), At when that wait ends (Options.Now +
// Wait); Err is the failure being retried.
type RetryEvent struct {
	Tool        string
	Attempt     int
	MaxAttempts int
	Wait        time.Duration
	At          time.Time
	Err         *api.Error
}

// ToolInfo is what tools/list said about one tool.
//
// Properties are the top-level inputSchema property names (sorted);
// Required the required ones; ReadOnly and Destructive are the tool
// annotations' hints (false when absent).
type ToolInfo struct {
	Name        string
	Description string
	Properties  []string
	Required    []string
	ReadOnly    bool
	Destructive bool
}

// ServerInfo describes the connected MCP server.
//
// ProtocolVersion is the negotiated MCP version ("2026-07-28" stateless or
// "2025-11-25" with an initialize handshake); Stateful reports whether the
// server assigned an Mcp-Session-Id.
type ServerInfo struct {
	Name            string
	Version         string
	ProtocolVersion string
	Stateful        bool
}

// Client implements api.Service over the Colab MCP server. It is safe for
// concurrent use: calls share one MCP session and hold no lock while they
// run.
//
// Retry rules: one layer owns the retries of each call.
//
// The client owns them for the reads, the deletes and the create-or-get
// calls (list_*, get_*, delete_*, create_session with an id): bounded
// exponential backoff with jitter (Options.MaxAttempts) for UNAVAILABLE,
// INTERNAL, HTTP 5xx, rate-limit RESOURCE_EXHAUSTED and lost replies,
// never sooner than the server's RetryDelay; never for
// FAILED_PRECONDITION, auth or quota failures, or an isError result with
// another code.
//
// The caller owns them for create_runtime and for execute_code with an
// executionId: the client sends such a call once and returns whatever
// came back, and the caller's rule (state.CreateAnswered,
// state.ExecAnswered, applied by the dashboard and by ui/ops) decides
// whether the identical call goes again. The client still repeats a call
// the server cannot have acted on: after HTTP 401 with a refreshed token,
// on a fresh session when the old one was gone before the call was sent,
// and after a refusal of a call sent before the handshake or the
// tools/list it needed.
//
// A call that cannot be repeated blindly (create_runtime, execute_code,
// create_session without an id) and whose reply was lost after sending
// returns an error with OutcomeUnknown set.
type Client struct {
	opts   Options
	hc     *http.Client
	mc     *mcp.Client
	log    *slog.Logger
	closed chan struct{}
	// own is the transport New made when the caller gave none.
	own *http.Transport
	// life ends when Close starts; every attempt and connect is cancelled
	// with it so Close never waits for a 10-minute execute_code.
	life     context.Context
	stopLife context.CancelFunc

	mem *protocolMemory

	mu     sync.Mutex
	cur    *conn
	flight *connectFlight
	bg     sync.WaitGroup
}

// New builds a Client. It does not connect: the MCP session is opened by
// the first call (or Connect), so a dashboard can draw its first frame
// without the network; ctx is therefore unused. It returns an
// INVALID_ARGUMENT *api.Error only for an unusable Endpoint.
//
// Requests follow a redirect only within the endpoint's scheme, host and
// port (safehttp): a redirect elsewhere is a FAILED_PRECONDITION error
// naming both URLs, and the other host receives nothing.
func New(ctx context.Context, opts Options) (*Client, error) {
	_ = ctx
	if opts.Endpoint == "" {
		opts.Endpoint = api.DefaultEndpoint
	}
	if req, err := http.NewRequest(http.MethodPost, opts.Endpoint, nil); err != nil || req.URL.Host == "" {
		return nil, &api.Error{Code: api.InvalidArgument, Message: "invalid MCP endpoint " + api.OneLine(opts.Endpoint, 80)}
	}
	if opts.ClientName == "" {
		opts.ClientName = "colabdash"
	}
	if opts.ClientVersion == "" {
		opts.ClientVersion = "dev"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Sleep == nil {
		opts.Sleep = sleep
	}
	setDur := func(d *time.Duration, def time.Duration) {
		if *d <= 0 {
			*d = def
		}
	}
	setDur(&opts.ConnectTimeout, DefaultConnectTimeout)
	setDur(&opts.ReadTimeout, DefaultReadTimeout)
	setDur(&opts.CreateRuntimeTimeout, DefaultCreateRuntimeTimeout)
	setDur(&opts.ExecuteCodeTimeout, DefaultExecuteCodeTimeout)
	setDur(&opts.BaseDelay, DefaultBaseDelay)
	setDur(&opts.MaxDelay, DefaultMaxDelay)
	setDur(&opts.MaxRetryDelay, DefaultMaxRetryDelay)
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = DefaultMaxAttempts
	}
	if opts.MaxReply <= 0 {
		opts.MaxReply = DefaultMaxReply
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.Redactor == nil {
		opts.Redactor = &api.Redactor{}
	}
	// No transport: one of the Client's own, keeping api.FanOut idle
	// connections (NewTransport), whose idle connections Close closes.
	base := opts.HTTPClient
	if base == nil {
		base = &http.Client{}
	}
	var own *http.Transport
	if base.Transport == nil {
		own = NewTransport()
		cp := *base
		cp.Transport = own
		base = &cp
	}
	// A copy (never mutate the caller's client) that refuses redirects to
	// another origin, before the caller's transport adds credentials.
	hc := safehttp.Client(base)
	hc.Transport = &statusTransport{base: hc.Transport, userAgent: opts.ClientName + "/" + opts.ClientVersion,
		redact: opts.Redactor.Redact, maxReply: opts.MaxReply}
	hc.Timeout = 0
	life, stopLife := context.WithCancel(context.Background())
	c := &Client{
		life:     life,
		stopLife: stopLife,
		opts:     opts,
		hc:       hc,
		own:      own,
		log:      log,
		closed:   make(chan struct{}),
		mc: mcp.NewClient(&mcp.Implementation{Name: opts.ClientName, Version: opts.ClientVersion},
			// No capabilities: colabdash offers the server no roots,
			// sampling or elicitation. (go-sdk's default advertises roots;
			// under 2026-07-28 the capabilities ride in every request's
			// _meta and are decoded on both sides each time.)
			&mcp.ClientOptions{Logger: log, Capabilities: &mcp.ClientCapabilities{}}),
		mem: newProtocolMemory(opts.StateDir, opts.Now),
	}
	c.mc.AddSendingMiddleware(c.initializedInBackground, c.discoverFromMemory)
	return c, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Connect opens the MCP session now (it is otherwise opened by the first
// call) and lists the tools. It returns the same *api.Error kinds as a
// tool call, with Tool empty.
func (c *Client) Connect(ctx context.Context) error {
	cn, err := c.getConn(ctx)
	if err != nil {
		return err
	}
	if f := c.waitTools(ctx, cn); f != nil {
		return f.err
	}
	return nil
}

// Tools returns the tools the server listed, sorted by name, connecting
// first if needed.
func (c *Client) Tools(ctx context.Context) ([]ToolInfo, error) {
	cn, err := c.getConn(ctx)
	if err != nil {
		return nil, err
	}
	if f := c.waitTools(ctx, cn); f != nil {
		return nil, f.err
	}
	return append([]ToolInfo(nil), cn.list...), nil
}

// ToolsJSON returns the tools of the server's tools/list as JSON objects
// (name, description, inputSchema, annotations…, as the MCP SDK decoded
// them), in the server's order, connecting first if needed. It is for a
// bug report: descriptions and schemas are the server's text, untrusted.
func (c *Client) ToolsJSON(ctx context.Context) ([]json.RawMessage, error) {
	cn, err := c.getConn(ctx)
	if err != nil {
		return nil, err
	}
	if f := c.waitTools(ctx, cn); f != nil {
		return nil, f.err
	}
	return append([]json.RawMessage(nil), cn.raw...), nil
}

// ServerInfo returns what the server said about itself, connecting first if
// needed.
func (c *Client) ServerInfo(ctx context.Context) (ServerInfo, error) {
	cn, err := c.getConn(ctx)
	if err != nil {
		return ServerInfo{}, err
	}
	return cn.info, nil
}

// Close closes the MCP session (a DELETE for stateful servers). Calls made
// after Close fail with FAILED_PRECONDITION. It is safe to call twice.
func (c *Client) Close() error {
	c.mu.Lock()
	select {
	case <-c.closed:
		c.mu.Unlock()
		return nil
	default:
	}
	close(c.closed)
	c.stopLife()
	cur := c.cur
	c.cur = nil
	c.mu.Unlock()
	if cur != nil {
		_ = cur.cs.Close()
	}
	c.bg.Wait()
	if c.own != nil {
		c.own.CloseIdleConnections()
	}
	return nil
}

func (c *Client) logFailure(msg, tool string, attempt int, d time.Duration, f failure) {
	if !c.log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	attrs := []any{"tool", tool, "attempt", attempt, "duration", d, "code", string(f.err.Code),
		"httpStatus", f.err.HTTPStatus, "reason", f.err.Reason, "message", f.err.Message,
		"lost", f.lost, "dropped", f.dropped}
	if f.err.Err != nil {
		attrs = append(attrs, "cause", api.OneLine(c.red(f.err.Err.Error()), 2000))
	}
	if f.err.Raw != "" {
		attrs = append(attrs, "raw", api.OneLine(c.red(f.err.Raw), 2000))
	}
	c.log.Debug(msg, attrs...)
}
