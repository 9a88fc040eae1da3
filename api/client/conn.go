package client

import (
	"context"
	"encoding/json"
	"net/http/httptrace"
	"sort"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/colabdash/colabdash/api"
)

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
	raw       []json.RawMessage // each tool as listed, in the server's order
	toolsErr  *failure
	// initDone is closed when the initialized notification of a classic
	// handshake has been answered (at once for a stateless session): the
	// notification is sent in the background, and a call sent before it
	// was answered that a strict server refused is sent again after it.
	initDone chan struct{}
	// fromMemory: the session was opened with the protocol remembered in
	// ProtocolFile (for a stateless server, without any request).
	fromMemory bool
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

var errClosed = &api.Error{Code: api.FailedPrecondition, Message: "the Colab client is closed"}

// isClosed reports whether Close has started.
func (c *Client) isClosed() bool {
	select {
	case <-c.closed:
		return true
	default:
		return false
	}
}

// invalidate forgets cn (if it is still current) and closes it in the
// background.
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
	start := time.Now()
	// A server remembered (less than a day ago) is asked with its version
	// pinned: a classic one skips the server/discover probe known to fail,
	// a stateless one server/discover itself (its remembered answer stands
	// in for it, see discoverFromMemory), so the first call is the first
	// request.
	pin, remembered, wasStateful := c.opts.ProtocolVersion, false, false
	var known *mcp.DiscoverResult
	if pin == "" {
		if rec, ok := c.mem.lookup(c.opts.Endpoint); ok {
			pin, remembered, wasStateful = rec.ProtocolVersion, true, rec.Stateful
			if rec.stateless() {
				known = rec.discoverResult()
			}
		}
	}
	cctx, cancel := c.connectContext(ctx, note, known)
	defer cancel()
	cs, err := c.mc.Connect(cctx, c.transport(), sessionOptions(pin))
	if err != nil && remembered && isVersionError(err) {
		// The server changed: forget, and probe.
		c.log.Debug("mcp remembered protocol refused; probing", "protocol", pin, "error", c.red(err.Error()))
		c.mem.forget(c.opts.Endpoint)
		pin, remembered = "", false
		note = &initNote{done: make(chan struct{})}
		cctx2, cancel2 := c.connectContext(ctx, note, nil)
		defer cancel2()
		cctx = cctx2
		cs, err = c.mc.Connect(cctx, c.transport(), nil)
	}
	if err != nil {
		f := c.classify(ctx, cctx, "", c.opts.ConnectTimeout, nil, err)
		c.logFailure("mcp connect failed", "", 0, time.Since(start), f)
		return nil, f.err
	}
	cn := &conn{cs: cs, tools: map[string]*toolSchema{}, toolsDone: make(chan struct{}), initDone: note.done, fromMemory: remembered}
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
	switch {
	case !remembered && c.opts.ProtocolVersion == "" && c.mem != nil && cn.info.ProtocolVersion != "":
		rec := protocolRecord{ProtocolVersion: cn.info.ProtocolVersion, Stateful: cn.info.Stateful}
		if rec.stateless() {
			rec = rec.withServerInfo(cn.info.Name, cn.info.Version)
		}
		c.inBackground(func() { c.mem.remember(c.opts.Endpoint, rec) })
	case remembered && wasStateful && !cn.info.Stateful:
		// A classic server remembered with a session now answers the
		// handshake without one: a stateless server that still takes the
		// classic handshake has taken its place. This session goes on;
		// the next start probes, and learns to skip the handshake.
		c.log.Debug("mcp remembered classic server is now sessionless; forgetting", "protocol", pin)
		c.inBackground(func() { c.mem.forget(c.opts.Endpoint) })
	}
	return cn, nil
}

// inBackground runs f in a goroutine that Close waits for.
func (c *Client) inBackground(f func()) {
	c.mu.Lock()
	c.bg.Add(1) // under mu, so never after Close started waiting
	c.mu.Unlock()
	go func() {
		defer c.bg.Done()
		f()
	}()
}

// connectContext is the context of one Connect: bounded by
// ConnectTimeout and Close, carrying the connect's initialized
// notification and, for a remembered stateless server, the server/discover
// answer that stands in for asking.
func (c *Client) connectContext(ctx context.Context, note *initNote, known *mcp.DiscoverResult) (context.Context, context.CancelFunc) {
	ctx = context.WithValue(withConnectTrace(ctx, &connectTrace{}), initKey{}, note)
	if known != nil {
		ctx = context.WithValue(ctx, discoverKey{}, known)
	}
	cctx, cancel := context.WithTimeout(ctx, c.opts.ConnectTimeout)
	stop := context.AfterFunc(c.life, cancel)
	return cctx, func() { stop(); cancel() }
}

type discoverKey struct{}

// discoverFromMemory answers go-sdk's server/discover with what the
// server answered last time (ProtocolFile), without sending it: go-sdk's
// Connect always sends server/discover for a 2026-07-28 session, one full
// round trip before the first call, though a stateless server's answer
// (its protocol version, its name and version) is the same every time. This
// sending middleware (go-sdk's public extension point) is used only by a
// connect whose context carries a remembered answer. When the server has
// changed since, the first call is refused with a version error: the
// memory is forgotten and the call sent again after a real probe (see
// attempt), one round trip more than asking would have cost.
func (c *Client) discoverFromMemory(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "server/discover" {
			if known, ok := ctx.Value(discoverKey{}).(*mcp.DiscoverResult); ok {
				return known, nil
			}
		}
		return next(ctx, method, req)
	}
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
// public extension point, no fork) starts the POST and returns once the
// request is written to its connection (or its send ended), not when it
// is answered: the notification is on the wire before any call is sent,
// as MCP orders them. (Returning at once let a call on a busy machine
// leave first, and a strict server refuse it: one round trip more.) The
// connect's own context is replaced by one that Close cancels. A call
// that a strict server still refuses because it overtook the
// notification is sent again once the notification is answered (see
// Client.do).
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
		written := make(chan struct{})
		var once sync.Once
		bctx = httptrace.WithClientTrace(bctx, &httptrace.ClientTrace{
			WroteRequest: func(httptrace.WroteRequestInfo) { once.Do(func() { close(written) }) },
		})
		defer func() {
			select {
			case <-written:
			case <-n.done:
			}
		}()
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

type toolsEarlyKey struct{}

// ListToolsEarly returns ctx marked so that the first call made under it
// on a session whose tools are not listed yet starts tools/list at once,
// in the background, beside the call itself. A command that makes a call
// needing no schema first and calls needing the live schema after it
// (exec: list_runtimes, then create_session and execute_code) so gets the
// schema one round trip sooner. Calls without the mark send tools/list
// only when they need a schema, so `colabdash status` never sends it.
func ListToolsEarly(ctx context.Context) context.Context {
	return context.WithValue(ctx, toolsEarlyKey{}, true)
}

// toolsEarly reports whether ctx carries ListToolsEarly's mark.
func toolsEarly(ctx context.Context) bool {
	early, _ := ctx.Value(toolsEarlyKey{}).(bool)
	return early
}

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

// listTools fills cn's tool schemas from tools/list: each tool's
// arguments are named after its live inputSchema, not hard-coded, since
// snapshots of Colab's documentation spell them differently.
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
		if b, err := json.Marshal(t); err == nil {
			cn.raw = append(cn.raw, b)
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
