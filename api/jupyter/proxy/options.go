package proxy

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/colabdash/colabdash/api"
)

// Header and query names of the Colab runtime proxy.
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
	// MaxIdlePerHost is how many idle connections to the runtime the
	// default transport keeps (Go's default is 2): as many as a recursive
	// copy may have in flight (cp -r --jobs up to 32).
	MaxIdlePerHost = 32
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
	// http.DefaultTransport keeping MaxIdlePerHost idle connections). The client adds its own redirect policy.
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

// withDefaults returns o with every zero field set to its default.
func (o Options) withDefaults() Options {
	if o.RenewLead <= 0 {
		o.RenewLead = DefaultRenewLead
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Transport == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		// A recursive copy keeps several requests in flight (cp -r
		// --jobs, 8 by default): their connections stay open for the
		// next file instead of being closed past Go's 2 idle per host.
		t.MaxIdleConnsPerHost = MaxIdlePerHost
		o.Transport = t
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
	return o
}
