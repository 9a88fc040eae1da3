// Package client is the typed Colab MCP client: it implements api.Service
// by calling the ten tools of the Colab MCP server
// (https://colaboratory.googleapis.com/mcp, colab-api.md §1) over
// streamable HTTP with github.com/modelcontextprotocol/go-sdk.
//
// One MCP session is shared by all calls and opened lazily by the first
// call (or by Connect), so building a Client never touches the network.
// The session is re-opened by itself when the server drops it. Every
// failure is an *api.Error; see Client for the retry rules.
package client

// Why this file is over 400 lines: the connection lifecycle (lazy connect, protocol memory, reconnect, retries) whose invariants span these functions.

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"sort"
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
// Retry rules: bounded exponential backoff with jitter (Options.MaxAttempts)
// for UNAVAILABLE, INTERNAL, HTTP 5xx and rate-limit RESOURCE_EXHAUSTED,
// never sooner than the server's RetryDelay; never for FAILED_PRECONDITION,
// auth or quota failures, or an isError result with another code.
// create_runtime and execute_code (with an executionId) also re-send the
// identical call on DEADLINE_EXCEEDED. A call that cannot be repeated
// safely and whose reply was lost after sending returns an error with
// OutcomeUnknown set instead of being retried.
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

// conn is one open MCP session and the tools it listed.
type conn struct {
	cs   *mcp.ClientSession
	info ServerInfo
	// tools/list runs in the background, started by the first call that
	// needs a live schema (or Tools, Connect): calls whose arguments do not
	// depend on it (get_subscription, the list tools, get_runtime) never
	// wait for it, and a `colabdash status` never sends it. tools, list
	// and toolsErr are written before toolsDone is closed and only read
	// after.
	toolsOnce sync.Once
	toolsDone chan struct{}
	tools     map[string]*toolSchema
	list      []ToolInfo
	toolsErr  *failure
	// initDone is closed when the initialized notification of a classic
	// handshake has been answered (at once for a stateless session): the
	// notification is sent in the background, and a call sent before it
	// was answered that a strict server refused is sent again after it.
	initDone chan struct{}
}

// waitTools starts tools/list on cn if need be and waits for it; it
// returns the failure of tools/list, or of ctx ending first.
func (c *Client) waitTools(ctx context.Context, cn *conn) *failure {
	c.startTools(cn)
	return cn.waitTools(ctx)
}

// listed reports whether tools/list on cn has finished.
func (cn *conn) listed() bool {
	select {
	case <-cn.toolsDone:
		return true
	default:
		return false
	}
}

func (cn *conn) waitTools(ctx context.Context) *failure {
	select {
	case <-cn.toolsDone:
		return cn.toolsErr
	case <-ctx.Done():
		return &failure{err: ctxError(ctx.Err())}
	}
}

type connectFlight struct {
	done chan struct{}
	c    *conn
	err  *api.Error
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
	c.mc.AddSendingMiddleware(c.initializedInBackground)
	return c, nil
}

// initNote is the initialized notification of one connect, sent in the
// background; done is closed when its HTTP reply has arrived.
type initNote struct {
	done chan struct{}
	used bool
}

type initKey struct{}

// initializedInBackground takes the classic handshake's last round trip
// off the critical path. go-sdk's Connect waits for the HTTP reply (202)
// to notifications/initialized before it returns, one full round trip in
// which nothing else is sent. MCP only requires that the notification is
// sent after the initialize result and before normal operation; nothing
// requires its empty reply to be awaited, and a streamable HTTP client may
// have several POSTs in flight. So this sending middleware (go-sdk's
// public extension point, no fork) starts the POST and returns at once.
// The connect's own context is replaced by one that Close cancels. A call
// that a strict server refuses because it overtook the notification is
// sent again once the notification is answered (see Client.do).
func (c *Client) initializedInBackground(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		n, _ := ctx.Value(initKey{}).(*initNote)
		if method != "notifications/initialized" || n == nil {
			return next(ctx, method, req)
		}
		c.mu.Lock()
		select {
		case <-c.closed:
			c.mu.Unlock()
			return next(ctx, method, req)
		default:
			c.bg.Add(1) // under mu, so never after Close started waiting
		}
		c.mu.Unlock()
		n.used = true
		bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.opts.ConnectTimeout)
		stop := context.AfterFunc(c.life, cancel)
		go func() {
			defer c.bg.Done()
			defer close(n.done)
			defer stop()
			defer cancel()
			start := time.Now()
			if _, err := next(bctx, method, req); err != nil {
				c.log.Debug("mcp initialized notification failed", "error", c.red(err.Error()), "duration", time.Since(start))
			}
		}()
		return nil, nil
	}
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

var errClosed = &api.Error{Code: api.FailedPrecondition, Message: "the Colab client is closed"}

// getConn returns the open session, opening it (single-flight) if needed.
func (c *Client) getConn(ctx context.Context) (*conn, *api.Error) {
	for {
		c.mu.Lock()
		select {
		case <-c.closed:
			c.mu.Unlock()
			return nil, errClosed
		default:
		}
		if c.cur != nil {
			cn := c.cur
			c.mu.Unlock()
			return cn, nil
		}
		f := c.flight
		leader := f == nil
		if leader {
			f = &connectFlight{done: make(chan struct{})}
			c.flight = f
		}
		c.mu.Unlock()

		if leader {
			f.c, f.err = c.connect(ctx)
			c.mu.Lock()
			c.flight = nil
			select {
			case <-c.closed:
				if f.c != nil {
					_ = f.c.cs.Close()
					f.c, f.err = nil, errClosed
				}
			default:
				if f.c != nil {
					c.cur = f.c
				}
			}
			c.mu.Unlock()
			close(f.done)
			return f.c, f.err
		}
		select {
		case <-f.done:
		case <-ctx.Done():
			return nil, ctxError(ctx.Err())
		}
		if f.err != nil && (f.err.Code == api.Cancelled || f.err.Code == api.DeadlineExceeded) && ctx.Err() == nil {
			continue // the leader's own context ended; try ourselves
		}
		if f.err != nil {
			return nil, f.err
		}
		return f.c, nil
	}
}

// invalidate forgets cn (if it is still current) and closes it in the
// background.
func (c *Client) isClosed() bool {
	select {
	case <-c.closed:
		return true
	default:
		return false
	}
}

func (c *Client) invalidate(cn *conn) {
	c.mu.Lock()
	if c.cur == cn {
		c.cur = nil
	}
	closed := false
	select {
	case <-c.closed:
		closed = true
	default:
		c.bg.Add(1) // under mu, so never after Close started waiting
	}
	c.mu.Unlock()
	if closed {
		_ = cn.cs.Close()
		return
	}
	go func() {
		defer c.bg.Done()
		_ = cn.cs.Close()
	}()
}

func (c *Client) connect(ctx context.Context) (*conn, *api.Error) {
	note := &initNote{done: make(chan struct{})}
	cctx, cancel := context.WithTimeout(context.WithValue(withConnectTrace(ctx, &connectTrace{}), initKey{}, note), c.opts.ConnectTimeout)
	defer cancel()
	defer context.AfterFunc(c.life, cancel)()
	start := time.Now()
	// A classic server remembered (less than a day ago) is asked with its
	// version pinned, which skips the server/discover probe known to fail.
	pin, remembered := c.opts.ProtocolVersion, false
	if pin == "" {
		if v, ok := c.mem.lookup(c.opts.Endpoint); ok && v < statelessProtocol {
			pin, remembered = v, true
		}
	}
	cs, err := c.mc.Connect(cctx, c.transport(), sessionOptions(pin))
	if err != nil && remembered && isVersionError(err) {
		// The server changed: forget, and probe.
		c.log.Debug("mcp remembered protocol refused; probing", "protocol", pin, "error", c.red(err.Error()))
		c.mem.forget(c.opts.Endpoint)
		pin, remembered = "", false
		note = &initNote{done: make(chan struct{})}
		cctx2, cancel2 := context.WithTimeout(context.WithValue(withConnectTrace(ctx, &connectTrace{}), initKey{}, note), c.opts.ConnectTimeout)
		defer cancel2()
		defer context.AfterFunc(c.life, cancel2)()
		cctx = cctx2
		cs, err = c.mc.Connect(cctx, c.transport(), nil)
	}
	if err != nil {
		f := c.classify(ctx, cctx, "", c.opts.ConnectTimeout, nil, err)
		c.logFailure("mcp connect failed", "", 0, time.Since(start), f)
		return nil, f.err
	}
	cn := &conn{cs: cs, tools: map[string]*toolSchema{}, toolsDone: make(chan struct{}), initDone: note.done}
	if !note.used {
		close(note.done) // stateless: no initialized notification
	}
	if ir := cs.InitializeResult(); ir != nil {
		cn.info.ProtocolVersion = ir.ProtocolVersion
		if ir.ServerInfo != nil {
			cn.info.Name, cn.info.Version = ir.ServerInfo.Name, ir.ServerInfo.Version
		}
	}
	cn.info.Stateful = cs.ID() != ""
	c.log.Debug("mcp connected", "server", cn.info.Name, "serverVersion", cn.info.Version,
		"protocol", cn.info.ProtocolVersion, "stateful", cn.info.Stateful, "remembered", remembered,
		"duration", time.Since(start))
	if !remembered && c.opts.ProtocolVersion == "" && c.mem != nil && cn.info.ProtocolVersion != "" {
		c.mu.Lock()
		c.bg.Add(1) // under mu, so never after Close started waiting
		c.mu.Unlock()
		go func() {
			defer c.bg.Done()
			c.mem.remember(c.opts.Endpoint, cn.info.ProtocolVersion, cn.info.Stateful)
		}()
	}
	return cn, nil
}

func (c *Client) transport() *mcp.StreamableClientTransport {
	return &mcp.StreamableClientTransport{
		Endpoint:             c.opts.Endpoint,
		HTTPClient:           c.hc,
		MaxRetries:           -1,
		DisableStandaloneSSE: true,
	}
}

func sessionOptions(pin string) *mcp.ClientSessionOptions {
	if pin == "" {
		return nil
	}
	return &mcp.ClientSessionOptions{ProtocolVersion: pin}
}

// forgetProtocol drops the remembered protocol of the endpoint after a
// version error, so the next connect probes.
func (c *Client) forgetProtocol() { c.mem.forget(c.opts.Endpoint) }

// startTools starts tools/list on cn in the background, once.
func (c *Client) startTools(cn *conn) {
	cn.toolsOnce.Do(func() {
		c.mu.Lock()
		select {
		case <-c.closed:
			c.mu.Unlock()
			cn.toolsErr = &failure{err: errClosed}
			close(cn.toolsDone)
			return
		default:
			c.bg.Add(1) // under mu, so never after Close started waiting
		}
		c.mu.Unlock()
		go func() {
			defer c.bg.Done()
			defer close(cn.toolsDone)
			lctx, cancel := context.WithTimeout(c.life, c.opts.ConnectTimeout)
			defer cancel()
			// c.life, not the first caller's ctx: that caller may give up,
			// and its cancellation must not become every later call's error.
			if f := c.listTools(lctx, cn); f != nil {
				cn.toolsErr = f
			}
		}()
	})
}

// toolSchema is the part of a tool's inputSchema the client reads.
type toolSchema struct {
	Properties map[string]*toolSchema `json:"properties"`
	Required   []string               `json:"required"`
}

func parseSchema(v any) *toolSchema {
	s := &toolSchema{}
	if v == nil {
		return s
	}
	b, err := json.Marshal(v)
	if err == nil {
		_ = json.Unmarshal(b, s)
	}
	return s
}

func (s *toolSchema) names() []string {
	if s == nil {
		return nil
	}
	out := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// key returns the first of the candidate property names the schema has.
// When the schema lists no properties at all (unknown shape) it returns the
// first candidate; when it lists others but none of these, "".
func (s *toolSchema) key(candidates ...string) string {
	if s == nil || len(s.Properties) == 0 {
		return candidates[0]
	}
	for _, k := range candidates {
		if _, ok := s.Properties[k]; ok {
			return k
		}
	}
	return ""
}

// child returns the schema of property name (an empty schema if absent).
func (s *toolSchema) child(name string) *toolSchema {
	if s == nil || s.Properties[name] == nil {
		return &toolSchema{}
	}
	return s.Properties[name]
}

func (s *toolSchema) requires(name string) bool {
	if s == nil {
		return false
	}
	for _, r := range s.Required {
		if r == name {
			return true
		}
	}
	return false
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

// listTools fills cn's tool schemas from tools/list (colab-api.md §5 rule 6).
func (c *Client) listTools(ctx context.Context, cn *conn) *failure {
	start := time.Now()
	for t, err := range cn.cs.Tools(ctx, nil) {
		if err != nil {
			f := c.classify(ctx, ctx, "", c.opts.ConnectTimeout, nil, err)
			f.err.Message = "tools/list: " + f.err.Message
			c.logFailure("mcp tools/list failed", "", 0, time.Since(start), f)
			return &f
		}
		if t == nil {
			continue
		}
		s := parseSchema(t.InputSchema)
		cn.tools[t.Name] = s
		ti := ToolInfo{Name: t.Name, Description: t.Description, Properties: s.names(), Required: s.Required}
		if t.Annotations != nil {
			ti.ReadOnly = t.Annotations.ReadOnlyHint
			ti.Destructive = t.Annotations.DestructiveHint != nil && *t.Annotations.DestructiveHint
		}
		cn.list = append(cn.list, ti)
	}
	sort.Slice(cn.list, func(i, j int) bool { return cn.list[i].Name < cn.list[j].Name })
	c.log.Debug("mcp tools listed", "tools", len(cn.list), "duration", time.Since(start))
	return nil
}
