package jupyter

// Why this file is over 400 lines: the proxy client's request layer: headers, token renewal, redirects, bounded reads and error mapping for every call.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/safehttp"
)

// Header and query names of the Colab runtime proxy (colab-api.md §4).
const (
	// TokenHeader carries the proxy token on every HTTP request.
	TokenHeader = "X-Colab-Runtime-Proxy-Token"
	// AgentHeader names the client; Colab's proxy WebSocket needs it.
	AgentHeader = "X-Colab-Client-Agent"
	// Agent is the value colabdash sends in AgentHeader.
	Agent = "colabdash"
	// TokenQuery carries the proxy token on WebSocket upgrades.
	TokenQuery = "colab-runtime-proxy-token"
)

// Defaults applied by New for zero Options fields.
const (
	// DefaultRenewLead: the token is renewed before a request when it has
	// less than this left (5 min, as colab-vscode does).
	DefaultRenewLead = 5 * time.Minute
	// DefaultChunkSize is the raw bytes per upload request: 36,000,000 is a
	// multiple of 3 whose base64 (48,000,000 bytes) plus the JSON around it
	// stays under Colab's 50 MB per request.
	DefaultChunkSize = 36_000_000
	// MaxChunkSize is the largest ChunkSize accepted (larger values are
	// lowered to it): its base64 plus JSON stays under 50 MB.
	MaxChunkSize = 37_000_000
	// DefaultCallTimeout bounds each JSON call (list, stat, mkdir…): 60 s.
	DefaultCallTimeout = 60 * time.Second
	// DefaultIdleTimeout: a transfer that moves no byte for this long is
	// dropped and resumed (30 s).
	DefaultIdleTimeout = 30 * time.Second
	// DefaultMaxReply bounds each JSON reply (a directory listing): 32 MiB.
	DefaultMaxReply = 32 << 20
	// DefaultMaxUnknownSize bounds a download whose size the runtime did
	// not report (its model has no size): 8 GiB. Past it the download
	// stops with ErrTooLarge and its part file is removed, so a reply
	// that never ends cannot fill the disk.
	DefaultMaxUnknownSize = 8 << 30
	// DefaultMaxRetries is how many times in a row a transfer step may fail
	// without progress before the transfer gives up (5).
	DefaultMaxRetries = 5
)

// Options configure New. Info.URL is required; Renew is needed for
// anything that outlives the token.
type Options struct {
	// Runtime is "runtimes/{id}" (or the bare id), used in messages.
	Runtime string
	// Info is the runtime's current connectionInfo (url, token,
	// expireTime) as list_runtimes or get_runtime returned it.
	Info api.ConnectionInfo
	// Renew returns a fresh connectionInfo, normally by calling
	// get_runtime. An error wrapping an *api.Error with code NOT_FOUND
	// means the runtime is gone. nil: the token is never renewed.
	Renew func(ctx context.Context) (api.ConnectionInfo, error)
	// RenewLead: renew before a request when less than this is left
	// (default DefaultRenewLead).
	RenewLead time.Duration
	// Now is the clock compared with expireTime (default time.Now).
	Now func() time.Time
	// Transport sends the requests (default: a clone of
	// http.DefaultTransport). The client adds its own redirect policy.
	Transport http.RoundTripper
	// Redactor learns every proxy token and cleans every error text
	// (default: a private one, so a token echoed in an error is still
	// hidden; pass the process's own to share what it knows).
	Redactor *api.Redactor
	// Logger gets one debug record per request (method, path, status,
	// duration; never the token). nil discards.
	Logger *slog.Logger
	// ChunkSize is the raw bytes per upload request (default
	// DefaultChunkSize; rounded down to a multiple of 3, at most
	// MaxChunkSize).
	ChunkSize int64
	// CallTimeout bounds each JSON call (default DefaultCallTimeout).
	CallTimeout time.Duration
	// IdleTimeout drops a transfer that makes no progress for this long
	// (default DefaultIdleTimeout).
	IdleTimeout time.Duration
	// MaxReply bounds each JSON reply in bytes (default DefaultMaxReply),
	// except a directory listing's, which is bounded by MaxEntries and
	// ListTimeout instead (ListEach).
	MaxReply int64
	// MaxEntries bounds one directory listing's entries (default
	// DefaultMaxEntries).
	MaxEntries int
	// ListTimeout bounds one directory listing from its request to its
	// last entry (default DefaultListTimeout).
	ListTimeout time.Duration
	// MaxUnknownSize bounds, in bytes, a download whose size the runtime
	// did not report (default DefaultMaxUnknownSize); a download of known
	// size is bounded by that size.
	MaxUnknownSize int64
	// MaxRetries is how many consecutive failed attempts a transfer
	// makes before giving up (default DefaultMaxRetries).
	MaxRetries int
	// RetryDelay is the first pause between transfer attempts, doubling
	// up to 5 s (default 200 ms).
	RetryDelay time.Duration
}

// Client is a Jupyter client for one runtime, through the Colab runtime
// proxy. It is safe for concurrent use.
type Client struct {
	o  Options
	hc *http.Client
	id string // runtime id, for messages

	mu       sync.Mutex
	info     api.ConnectionInfo
	base     *url.URL
	renewing chan struct{} // closed when the renewal in flight ends
	renewErr error         // outcome of the last renewal
	renewals int

	// wrapPart, when set (tests), wraps the download's part file so a
	// test can make its writes fail (a full disk).
	wrapPart func(partFile) partFile
	// learned is the upload piece size a proxy's 413 taught (0: none).
	learned atomic.Int64
}

// New returns a Client for the runtime described by o. Errors: a missing
// or unparseable Info.URL, or a scheme other than http/https.
func New(o Options) (*Client, error) {
	if o.RenewLead <= 0 {
		o.RenewLead = DefaultRenewLead
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Transport == nil {
		o.Transport = http.DefaultTransport.(*http.Transport).Clone()
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Redactor == nil {
		o.Redactor = &api.Redactor{}
	}
	if o.ChunkSize <= 0 {
		o.ChunkSize = DefaultChunkSize
	}
	if o.ChunkSize > MaxChunkSize {
		o.ChunkSize = MaxChunkSize
	}
	if o.ChunkSize >= 3 {
		o.ChunkSize -= o.ChunkSize % 3
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.MaxReply <= 0 {
		o.MaxReply = DefaultMaxReply
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = DefaultMaxEntries
	}
	if o.ListTimeout <= 0 {
		o.ListTimeout = DefaultListTimeout
	}
	if o.MaxUnknownSize <= 0 {
		o.MaxUnknownSize = DefaultMaxUnknownSize
	}
	if o.MaxRetries <= 0 {
		o.MaxRetries = DefaultMaxRetries
	}
	if o.RetryDelay <= 0 {
		o.RetryDelay = 200 * time.Millisecond
	}
	c := &Client{o: o, id: api.LastSegment(o.Runtime)}
	if err := c.setInfo(o.Info); err != nil {
		return nil, err
	}
	// Redirects only within the runtime's origin: Go forwards custom
	// headers (the proxy token) on redirects, to any host.
	c.o.Transport = safehttp.Transport(o.Transport)
	c.hc = safehttp.Client(&http.Client{Transport: c.o.Transport})
	return c, nil
}

func (c *Client) setInfo(ci api.ConnectionInfo) error {
	if ci.URL == "" {
		return &Error{Op: "connect", Runtime: c.id, Kind: ErrNoConnection, Message: "the runtime has no connectionInfo.url"}
	}
	u, err := url.Parse(ci.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &Error{Op: "connect", Runtime: c.id, Kind: ErrNoConnection, Message: "connectionInfo.url is not an http(s) URL"}
	}
	if err := safehttp.CheckCredentialURL(u); err != nil {
		// The proxy token goes with every request: never in clear.
		return &Error{Op: "connect", Runtime: c.id, Kind: ErrNoConnection, Message: "connectionInfo.url " + safehttp.Redact(u) + ": " + err.Error()}
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	u.RawQuery, u.Fragment, u.RawPath = "", "", ""
	c.o.Redactor.Add(ci.Token)
	c.mu.Lock()
	c.info, c.base = ci, u
	c.mu.Unlock()
	return nil
}

// Info returns the connectionInfo in use (its token is a secret).
func (c *Client) Info() api.ConnectionInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.info
}

// Renewals returns how many times the token was renewed.
func (c *Client) Renewals() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.renewals
}

// Runtime returns the runtime id the client talks to.
func (c *Client) Runtime() string { return c.id }

// Fresh returns the connectionInfo to use now, renewing it first when
// less than RenewLead is left. A failed renewal is an error only when the
// current token has already expired (ErrRuntimeGone when the runtime no
// longer exists).
func (c *Client) Fresh(ctx context.Context) (api.ConnectionInfo, error) {
	ci := c.Info()
	if c.o.Renew == nil || ci.ExpireTime.IsZero() || c.o.Now().Before(ci.ExpireTime.Add(-c.o.RenewLead)) {
		return ci, nil
	}
	if err := c.renew(ctx, ci.Token); err != nil {
		var je *Error
		if (errors.As(err, &je) && errors.Is(je.Kind, ErrRuntimeGone)) || !c.o.Now().Before(ci.ExpireTime) {
			return ci, err
		}
		c.o.Logger.Warn("proxy token renewal failed; using the current token until it expires", "runtime", c.id, "error", err)
	}
	return c.Info(), nil
}

// Renew gets a fresh token now (get_runtime), whatever is left of the
// current one.
func (c *Client) Renew(ctx context.Context) error { return c.renew(ctx, c.Info().Token) }

// renew renews the token unless it changed since used was read (another
// request already renewed it); concurrent callers share one renewal.
func (c *Client) renew(ctx context.Context, used string) error {
	if c.o.Renew == nil {
		return &Error{Op: "renew", Runtime: c.id, Kind: ErrRefused, Message: "the proxy token cannot be renewed"}
	}
	c.mu.Lock()
	if c.info.Token != used {
		c.mu.Unlock()
		return nil
	}
	if ch := c.renewing; ch != nil {
		c.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
		c.mu.Lock()
		err := c.renewErr
		c.mu.Unlock()
		return err
	}
	ch := make(chan struct{})
	c.renewing = ch
	c.mu.Unlock()

	ci, err := c.o.Renew(ctx)
	if err == nil {
		ci.URL = strings.TrimSpace(ci.URL)
		if ci.Token == "" {
			err = &Error{Op: "renew", Runtime: c.id, Kind: ErrNoConnection, Message: "get_runtime returned no proxy token"}
		} else {
			err = c.setInfo(ci)
		}
	} else {
		var ae *api.Error
		if errors.As(err, &ae) && ae.Code == api.NotFound {
			err = &Error{Op: "renew", Runtime: c.id, Kind: ErrRuntimeGone}
		} else if ctx.Err() == nil {
			err = &Error{Op: "renew", Runtime: c.id, Kind: ErrRefused, Message: "renewing the proxy token: " + api.OneLine(c.o.Redactor.Redact(err.Error()), 200)}
		}
	}
	c.mu.Lock()
	c.renewErr = err
	c.renewing = nil
	if err == nil {
		c.renewals++
	}
	c.mu.Unlock()
	close(ch)
	if err == nil {
		c.o.Logger.Debug("proxy token renewed", "runtime", c.id)
	}
	return err
}

// EscapePath percent-encodes each segment of a remote path ("content/a
// #1.txt" → "content/a%20%231.txt"); a leading slash is dropped and "%"
// is encoded, so a name is never decoded twice.
func EscapePath(p string) string {
	segs := strings.Split(CleanRemote(p), "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// CleanRemote writes a remote path as Colab documents it: no leading or
// trailing slash, no empty segments ("/content//a/" → "content/a"). It
// does not resolve "." or ".."; those are passed to the server as names.
func CleanRemote(p string) string {
	parts := strings.Split(p, "/")
	out := parts[:0]
	for _, s := range parts {
		if s != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, "/")
}

// request is one HTTP exchange through the proxy.
type request struct {
	op, method, path string // path: URL path below connectionInfo.url, already escaped
	query            url.Values
	header           http.Header
	body             func() (io.Reader, int64) // nil: no body; called again on a retry
	// retry404 retries once, after renewing the token, when the answer is
	// a 404 that did not come from Jupyter. Only for requests that can be
	// repeated safely.
	retry404 bool
	remote   string // the remote path, for errors
}

// send sends r once with the current token and returns the response and
// the token it used.
func (c *Client) send(ctx context.Context, r *request) (*http.Response, string, error) {
	if _, err := c.Fresh(ctx); err != nil {
		return nil, "", err
	}
	// Token and URL from one snapshot: a renewal in between must not
	// pair one info's token with another's host.
	c.mu.Lock()
	ci, raw := c.info, c.base.String()+r.path
	c.mu.Unlock()
	if q := r.query.Encode(); q != "" {
		raw += "?" + q
	}
	var body io.Reader
	var n int64
	if r.body != nil {
		body, n = r.body()
	}
	req, err := http.NewRequestWithContext(ctx, r.method, raw, body)
	if err != nil {
		return nil, "", &Error{Op: r.op, Runtime: c.id, Path: r.remote, Kind: ErrTransport, Message: err.Error()}
	}
	if r.body != nil {
		req.ContentLength = n
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range r.header {
		req.Header[k] = v
	}
	req.Header.Set(TokenHeader, ci.Token)
	req.Header.Set(AgentHeader, Agent)
	start := time.Now()
	resp, err := c.hc.Do(req)
	if err != nil {
		c.o.Logger.Debug("jupyter request failed", "op", r.op, "method", r.method, "runtime", c.id, "error", c.o.Redactor.Redact(err.Error()))
		if ctx.Err() != nil {
			return nil, ci.Token, context.Cause(ctx)
		}
		kind := ErrTransport
		if safehttp.IsRedirect(err) {
			kind = ErrRedirect
		}
		return nil, ci.Token, &Error{Op: r.op, Runtime: c.id, Path: r.remote, Kind: kind, Message: c.o.Redactor.Redact(stripURL(err))}
	}
	c.o.Logger.Debug("jupyter request", "op", r.op, "method", r.method, "runtime", c.id, "status", resp.StatusCode, "duration", time.Since(start))
	return resp, ci.Token, nil
}

// stripURL drops the URL part of a *url.Error (it names the proxy host and
// path, and the message stays one line).
func stripURL(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return api.OneLine(ue.Err.Error(), 200)
	}
	return api.OneLine(err.Error(), 200)
}

// do sends r, renewing the token and retrying once after a proxy 404 when
// r.retry404. Any status >= 400 becomes an *Error (the body is read up to
// 64 KiB for its message); the caller closes the body of a success.
func (c *Client) do(ctx context.Context, r *request) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		resp, used, err := c.send(ctx, r)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode < 400 {
			return resp, nil
		}
		rep := readErrorBody(resp)
		if resp.StatusCode == http.StatusNotFound && !rep.jupyter {
			// The proxy's own 404: an expired or missing token, or a
			// runtime that is gone. Renew (which tells the two apart)
			// and try once more.
			if rerr := c.renew(ctx, used); rerr != nil {
				return nil, withOp(rerr, r.op, r.remote)
			}
			if r.retry404 && attempt == 0 {
				continue
			}
		}
		return nil, c.statusError(r.op, r.remote, resp.StatusCode, rep)
	}
}

func withOp(err error, op, path string) error {
	var je *Error
	if errors.As(err, &je) {
		e := *je
		e.Op, e.Path = op, path
		return &e
	}
	return err
}

// hidden reports whether a path has a segment starting with "." (Jupyter
// neither lists nor serves those, field case 52).
func hidden(p string) bool {
	for _, s := range strings.Split(CleanRemote(p), "/") {
		if strings.HasPrefix(s, ".") {
			return true
		}
	}
	return false
}

// callJSON runs a JSON call bounded by CallTimeout and decodes the reply
// (up to MaxReply bytes) into out (nil: discard).
func (c *Client) callJSON(ctx context.Context, r *request, out any) error {
	ctx, cancel := context.WithTimeout(ctx, c.o.CallTimeout)
	defer cancel()
	resp, err := c.do(ctx, r)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return &Error{Op: r.op, Runtime: c.id, Path: r.remote, Kind: ErrTransport, Message: fmt.Sprintf("no answer within %s", c.o.CallTimeout)}
		}
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, c.o.MaxReply+1))
	if err != nil {
		return &Error{Op: r.op, Runtime: c.id, Path: r.remote, Kind: ErrTransport, Message: stripURL(err)}
	}
	if int64(len(b)) > c.o.MaxReply {
		return &Error{Op: r.op, Runtime: c.id, Path: r.remote, Kind: ErrServer, Message: fmt.Sprintf("reply larger than %d bytes", c.o.MaxReply)}
	}
	b = trimXSSI(b)
	if out == nil || len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return &Error{Op: r.op, Runtime: c.id, Path: r.remote, Kind: ErrServer, Message: "reply is not the expected JSON"}
	}
	return nil
}

func jsonBody(v any) func() (io.Reader, int64) {
	b, _ := json.Marshal(v)
	return func() (io.Reader, int64) { return bytes.NewReader(b), int64(len(b)) }
}
