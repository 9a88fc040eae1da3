package colabfake

import (
	"net/http"
	"time"

	"github.com/colabdash/colabdash/api"
)

// Seed names accepted by Options.Seed.
const (
	// SeedEmpty starts with no runtimes and the Free tier.
	SeedEmpty = "empty"
	// SeedDemo starts on the Pro tier with three runtimes (GPU T4, CPU,
	// TPU V6E1) whose proxy tokens expire in 52 min, in 3 min and 30 s ago,
	// and user notebook sessions the client did not open.
	SeedDemo = "demo"
)

// Defaults applied by New for zero Options fields.
const (
	// DefaultTokenTTL is the proxy-token lifetime, as documented for Colab
	// ("about an hour after it's issued").
	DefaultTokenTTL = time.Hour
	// DefaultRuntimeLimit is how many runtimes may be active (ready or
	// being created) before create_runtime fails with
	// TOO_MANY_ACTIVE_RUNTIMES.
	DefaultRuntimeLimit = 5
	// DefaultCreatesPerMinute is the create_runtime rate quota per minute
	// of the emulator's clock.
	DefaultCreatesPerMinute = 10
	// DefaultExecuteCutoff is how long one execute_code call waits for its
	// code before it is cut off with DEADLINE_EXCEEDED: 600 s, as Colab
	// documents.
	DefaultExecuteCutoff = 600 * time.Second
)

// Options configures the emulator. The zero value is a stateful, SSE,
// empty-seed emulator on the Free tier with the defaults above.
type Options struct {
	// TokenTTL is the proxy-token lifetime; every token issued (at creation
	// and by get_runtime) expires TokenTTL after the emulator's Now.
	// Zero means DefaultTokenTTL.
	TokenTTL time.Duration
	// CreateDelay is how long create_runtime takes before the runtime is
	// ready (a real sleep that ends early when the emulator closes; the
	// creation goes on even if the caller gives up). Zero is instant.
	CreateDelay time.Duration
	// CreateHold, when non-nil, keeps every creation going until it is
	// closed (after CreateDelay), so a test decides when a runtime is
	// ready instead of racing a real delay.
	CreateHold <-chan struct{}
	// CreateDeadline, when positive, is how long one create_runtime call
	// waits (real time) for its creation before failing with
	// DEADLINE_EXCEEDED; the creation goes on and repeating the identical
	// call (same requestId) waits for it again, as Colab documents.
	CreateDeadline time.Duration
	// ExecuteCutoff is how long (real time) one execute_code call waits for
	// its code; then the call fails with DEADLINE_EXCEEDED while the code
	// keeps running, and the identical call (same session and executionId)
	// reattaches to it, as Colab does at 600 s. A call without an executionId,
	// or with a runtime target, cannot be resumed; its error says so. Zero
	// means DefaultExecuteCutoff.
	ExecuteCutoff time.Duration
	// Latency is a real delay added before every JSON-RPC POST (handshake,
	// tools/list and tools/call alike, as a network round trip; it ends early
	// when the request's context does). The runtime proxy's requests have
	// ProxyLatency instead.
	Latency time.Duration
	// ProxyLatency is a real delay added before every request to the
	// runtime proxy (files, contents, sessions, kernels; a WebSocket's
	// upgrade but not its frames), before its token is checked, as a
	// network round trip to a runtime; it ends early, answering nothing,
	// when the request's context or the emulator ends. Benchmarks compute
	// the sequential floor of a transfer from it.
	ProxyLatency time.Duration
	// Seed is the starting state: SeedEmpty ("" too), SeedDemo or
	// SeedHostile.
	Seed string
	// Runtimes adds that many ready runtimes after the Seed's (the
	// emulator's --runtimes N), for load and idle-cost tests: ids
	// rt-load00001…, specs cycling through CPU, T4, L4 and TPU, proxy
	// tokens expiring evenly spread over TokenTTL from Now (as on an
	// account whose runtimes were created at different times), and one
	// notebook session on every third runtime.
	Runtimes int
	// Tier overrides the seed's subscription tier when non-empty. Unknown
	// tiers are served as they are and get Free eligibility.
	Tier api.SubscriptionTier
	// Stateless serves with go-sdk's StreamableHTTPOptions.Stateless (no
	// Mcp-Session-Id, protocol 2026-07-28 through server/discover).
	Stateless bool
	// JSONResponse answers POSTs with application/json instead of an SSE
	// stream (go-sdk's StreamableHTTPOptions.JSONResponse).
	JSONResponse bool
	// Now is the emulator's clock for every expireTime and quota window;
	// nil means time.Now. Token logic never sleeps; pass a Clock's Now to
	// control time in tests.
	Now func() time.Time
	// RuntimeLimit is the number of active runtimes allowed; zero means
	// DefaultRuntimeLimit, negative means unlimited.
	RuntimeLimit int
	// CreatesPerMinute is the create_runtime rate quota (creations started
	// in the last minute of Now); zero means DefaultCreatesPerMinute,
	// negative means unlimited. Past it, create_runtime fails with
	// RESOURCE_EXHAUSTED carrying a RetryInfo retryDelay.
	CreatesPerMinute int
	// LegacySessionIDSchema publishes create_session's optional id as
	// "session_id" (the older doc text) instead of "sessionId".
	LegacySessionIDSchema bool
	// OmitTools leaves these tools (api.Tool… names) out of tools/list,
	// as a server that does not offer them; calling one is then the
	// go-sdk's "unknown tool" error.
	OmitTools []string
	// RenamedInputs renames top-level input-schema properties, keyed
	// "tool.property" with the new name as value (e.g.
	// {"get_runtime.name": "runtimeName"}): the schema declares, and
	// requires when the old one was required, the new name only, and a
	// call sending the old name fails input validation, as a server whose
	// schema changed under the client would answer; a call sending the new
	// name is read as the old one (a server that names the field so).
	RenamedInputs map[string]string
	// DateSkew moves the Date header of every MCP endpoint reply this far
	// from the emulator's clock (a server whose clock, or this machine's,
	// is wrong); zero leaves net/http's own Date.
	DateSkew time.Duration
	// NoAllowMissing leaves "allowMissing" out of delete_runtime's input
	// schema (doc variant without it); a client sending it then fails input
	// validation.
	NoAllowMissing bool
	// OperationResults makes a successful create_runtime answer with a
	// finished Operation {"name","done":true,"response":Runtime} instead of
	// the bare Runtime: snapshots of Colab's documentation show both
	// replies, and the client must accept either.
	OperationResults bool
	// NoAuth serves requests without an Authorization header too (the
	// Host/Origin checks stay). It exists for MCP conformance suites, whose
	// clients send no bearer token; never use it otherwise.
	NoAuth bool
	// OnRequest, when set, is called with every HTTP request that passed the
	// Host/Origin/bearer checks, before it is handled (for tests that check
	// headers). It must not keep or log the Authorization header.
	OnRequest func(*http.Request)

	// ProxyBase is where ProxyHandler is served, e.g.
	// "http://127.0.0.1:8089/proxy/": each runtime's connectionInfo.url is
	// ProxyBase + "{runtime id}/". Start sets it to its own listener; when
	// empty (New without Start) the url is a fake Colab host that no
	// request reaches.
	ProxyBase string
	// FilesDir holds the runtimes' file trees (a directory per runtime id).
	// Empty: a temporary directory, created on first use and removed on
	// Close.
	FilesDir string
	// ManyFiles, when positive, makes every runtime's SyntheticDir
	// (/content/many) a read-only directory of that many empty files,
	// generated as they are listed (runtimeproxy/synthetic.go).
	ManyFiles int
	// XSSI puts Colab's anti-XSSI guard ")]}'" and a newline before every
	// JSON reply of the runtime proxy.
	XSSI bool
	// JupyterUpstream, when set, is a real Jupyter server URL (its ?token=
	// is sent as "Authorization: token …") to which the runtime proxy
	// forwards every request that carries a valid proxy token, HTTP and
	// WebSocket alike, instead of serving the emulator's own file trees.
	// Every runtime then shares that server's files and kernels, and
	// execute_code runs on a real kernel of that server, one per session
	// (its python3 kernelspec; see upstreamkernel.go).
	JupyterUpstream string
	// StrictTokenPlacement makes the proxy accept the token only as the
	// X-Colab-Runtime-Proxy-Token header on plain HTTP and only as the
	// colab-runtime-proxy-token query parameter on WebSocket upgrades,
	// instead of either on both.
	StrictTokenPlacement bool
	// TTYShell runs a real shell of this machine in a pty behind each
	// runtime's /colab/tty instead of the emulated one. Anyone holding a
	// proxy token then has a shell here: loopback only, off by default,
	// announced loudly by `colabdash emulator --tty-shell`.
	TTYShell bool
	// TTYCloseOnExpiry closes an open /colab/tty socket (1008) when the
	// proxy token that opened it expires; by default it stays open. Both
	// are possible on Colab until someone measures it.
	TTYCloseOnExpiry bool
	// OnProxyRequest, when set, is called with every runtime-proxy request
	// before its token is checked (tests use it to move the clock or
	// reclaim a runtime mid-transfer). It must not keep or log the token.
	OnProxyRequest func(*http.Request)
	// DeleteToTrash makes the emulator's Jupyter DELETE move files and
	// whole directories (non-empty ones too) to the runtime's
	// /root/.local/share/Trash, as a stock jupyter_server does with
	// FileContentsManager.delete_to_trash (its default): the runtime's
	// disk use does not drop. See runtimeproxy/trash.go.
	DeleteToTrash bool
	// ProxyMaxBody, when > 0, makes the runtime proxy refuse a request
	// whose body is larger than this many bytes with an HTML 413 from a
	// front end (nginx's page), before Jupyter sees it.
	ProxyMaxBody int64
	// ResourcesFromHost makes api/colab/resources report this machine
	// (/proc/meminfo's MemTotal and MemAvailable, statfs of "/" as the
	// `kernel` disk, nvidia-smi's GPUs when installed) instead of the
	// emulated figures, which are deterministic per runtime spec
	// (runtimeproxy/resources.go: RAM, the `kernel` disk growing with the
	// runtime's files, the spec's GPU with utilization and everUsed
	// following emulated code that mentions cuda or gpu).
	ResourcesFromHost bool
	// ResourcesNoXSSI leaves Colab's XSSI guard ")]}'\n" out of
	// api/colab/resources' reply, which carries it by default as
	// Colab's does.
	ResourcesNoXSSI bool
	// GPUFiguresOmitted makes each GPU of api/colab/resources' reply carry
	// its name alone, as a server that does not measure them: memory,
	// utilizations and everUsed are left out (unknown), never sent as 0.
	GPUFiguresOmitted bool
	// NoColabExtensions makes the runtime proxy answer Colab's own routes
	// (api/colab/resources, colab/tty) as a stock jupyter_server does: an
	// HTML 404 with Tornado's headers.
	NoColabExtensions bool
	// StuckKernel adds, after the seed, a CPU runtime StuckKernelRuntime
	// with one notebook session whose kernel stays "starting" with no
	// connections, as when its WebSocket is blocked.
	StuckKernel bool
}

// StuckKernelRuntime is the id of Options.StuckKernel's runtime; its
// session is "runtimes/" + StuckKernelRuntime + "/sessions/notebook-stuck".
const StuckKernelRuntime = "rt-stuckkernel"
