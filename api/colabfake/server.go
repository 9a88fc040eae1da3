package colabfake

// Why this file is over 400 lines: the emulator's server: HTTP and MCP set-up, auth, Host/Origin checks, state and fault hooks, which share one lock.

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake/runtimeproxy"
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
	// documents (colab-api.md §0, §1.10).
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
	// ExecuteCutoff is how long (real time) one execute_code call waits
	// for its code; then the call fails with DEADLINE_EXCEEDED while the
	// code keeps running, and the identical call (same session and
	// executionId) reattaches to it, as Colab does at 600 s
	// (colab-api.md §1.10). A call without an executionId, or with a
	// runtime target, cannot be resumed; its error says so. Zero means
	// DefaultExecuteCutoff.
	ExecuteCutoff time.Duration
	// Latency is a real delay added before every JSON-RPC POST (handshake,
	// tools/list and tools/call alike, as a network round trip; it ends early
	// when the request's context does).
	Latency time.Duration
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
	// NoAllowMissing leaves "allowMissing" out of delete_runtime's input
	// schema (doc variant without it); a client sending it then fails input
	// validation.
	NoAllowMissing bool
	// OperationResults makes a successful create_runtime answer with a
	// finished Operation {"name","done":true,"response":Runtime} instead of
	// the bare Runtime (colab-api.md §5 rule 1).
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
	// generated as they are listed (runtimeproxy/synthetic.go; field case 70).
	ManyFiles int
	// XSSI puts Colab's anti-XSSI guard ")]}'" and a newline before every
	// JSON reply of the runtime proxy (field case 76).
	XSSI bool
	// JupyterUpstream, when set, is a real Jupyter server URL (its ?token=
	// is sent as "Authorization: token …") to which the runtime proxy
	// forwards every request that carries a valid proxy token, HTTP and
	// WebSocket alike, instead of serving the emulator's own file trees.
	// Every runtime then shares that server's files.
	JupyterUpstream string
	// StrictTokenPlacement makes the proxy accept the token only as the
	// X-Colab-Runtime-Proxy-Token header on plain HTTP and only as the
	// colab-runtime-proxy-token query parameter on WebSocket upgrades
	// (field case 55), instead of either on both.
	StrictTokenPlacement bool
	// TTYShell runs a real shell of this machine in a pty behind each
	// runtime's /colab/tty instead of the emulated one. Anyone holding a
	// proxy token then has a shell here: loopback only, off by default,
	// announced loudly by `colabdash emulator --tty-shell`.
	TTYShell bool
	// TTYCloseOnExpiry closes an open /colab/tty socket (1008) when the
	// proxy token that opened it expires; by default it stays open. Both
	// are possible on Colab until someone measures it
	// (monitor-and-shell.md §6).
	TTYCloseOnExpiry bool
	// OnProxyRequest, when set, is called with every runtime-proxy request
	// before its token is checked (tests use it to move the clock or
	// reclaim a runtime mid-transfer). It must not keep or log the token.
	OnProxyRequest func(*http.Request)
	// DeleteToTrash makes the emulator's Jupyter DELETE move files and
	// whole directories (non-empty ones too) to the runtime's
	// /root/.local/share/Trash, as a stock jupyter_server does with
	// FileContentsManager.delete_to_trash (its default): the runtime's
	// disk use does not drop (field case 62). See runtimeproxy/trash.go.
	DeleteToTrash bool
	// ProxyMaxBody, when > 0, makes the runtime proxy refuse a request
	// whose body is larger than this many bytes with an HTML 413 from a
	// front end (nginx's page), before Jupyter sees it (field case 68).
	ProxyMaxBody int64
}

// Server is the embedded Colab emulator: an MCP server (go-sdk) serving the
// ten Colab tools over streamable HTTP, with in-memory runtimes, sessions,
// proxy tokens, quotas and programmable faults. It is safe for concurrent
// use. Use New and Handler to mount it yourself, or Start to listen on
// loopback.
type Server struct {
	opts    Options
	mcp     *mcp.Server
	handler http.Handler

	ctx    context.Context // ends on Close; bounds background creations
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu          sync.Mutex
	now         func() time.Time
	tier        api.SubscriptionTier
	runtimes    []*runtimeState
	byName      map[string]*runtimeState // runtimes by name (list_sessions at 10,000 runtimes)
	pending     map[string]bool          // runtime ids being created
	creations   map[string]*creation     // by requestId
	createTimes []time.Time              // creations started, for the per-minute quota
	calls       map[string]int           // tools/call count by tool
	created     int                      // runtimes created through create_runtime
	faults      []*faultEntry

	interrupts map[string]int // kernel interrupts through the proxy, by kernel id

	// proxy is the runtime proxy (package runtimeproxy); it reads the
	// state above through proxyState.
	proxy *runtimeproxy.Server

	srv *http.Server
	ln  net.Listener
}

type runtimeState struct {
	rt       api.Runtime
	noConn   bool // keep connectionInfo absent, even on get_runtime
	sessions []*sessionState
}

type sessionState struct {
	name   string
	count  int                    // executionCount of the last execution
	execs  map[string]*execRecord // by executionId
	ctx    context.Context        // ends when the session is deleted: its runs stop
	stop   context.CancelFunc
	runs   int    // execute_code runs in flight
	kernel string // Jupyter kernel id behind the session (lazy)
	// running holds the runs in flight, for kernel interrupts.
	running map[*execRecord]struct{}
}

// execRecord is one run of execute_code: done closes when it finished;
// returned is set once a call handed its result back.
type execRecord struct {
	done     chan struct{}
	result   api.ExecuteCodeResult
	err      *gErr
	returned bool
	// interrupt stops the run as a kernel interrupt does (through the
	// runtime proxy); interrupted records that it did.
	interrupt   context.CancelFunc
	interrupted bool
}

type creation struct {
	fingerprint string
	done        chan struct{}
	name        string
	rt          api.Runtime
	err         *gErr
}

// New builds an emulator with opts. It panics on an unknown Options.Seed
// or an unusable Options.JupyterUpstream (programming errors; Start
// returns an error instead).
func New(opts Options) *Server {
	if err := checkSeed(opts.Seed); err != nil {
		panic(err)
	}
	if err := runtimeproxy.CheckUpstream(opts.JupyterUpstream); err != nil {
		panic(err)
	}
	if opts.TokenTTL <= 0 {
		opts.TokenTTL = DefaultTokenTTL
	}
	if opts.RuntimeLimit == 0 {
		opts.RuntimeLimit = DefaultRuntimeLimit
	}
	if opts.CreatesPerMinute == 0 {
		opts.CreatesPerMinute = DefaultCreatesPerMinute
	}
	if opts.ExecuteCutoff <= 0 {
		opts.ExecuteCutoff = DefaultExecuteCutoff
	}
	s := &Server{
		opts:      opts,
		now:       opts.Now,
		tier:      api.TierFree,
		pending:   map[string]bool{},
		creations: map[string]*creation{},
		calls:     map[string]int{},
		byName:    map[string]*runtimeState{},
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	var err error
	if s.proxy, err = s.newProxy(); err != nil {
		panic(err) // checked above
	}
	switch opts.Seed {
	case SeedDemo:
		s.seedDemo()
	case SeedHostile:
		s.seedHostile()
	}
	s.seedLoad(opts.Runtimes)
	if opts.Tier != "" {
		s.tier = opts.Tier
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "colabdash-colab-emulator", Title: "Colab (emulated by colabdash)", Version: "1"}, nil)
	s.addTools()
	mh := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		// The front door checks Host and Origin first with the client's
		// own loopback rule; go-sdk's narrower check (lower-case
		// "localhost" only) would refuse names the client accepts.
		&mcp.StreamableHTTPOptions{Stateless: opts.Stateless, JSONResponse: opts.JSONResponse, DisableLocalhostProtection: true})
	s.handler = &frontDoor{s: s, next: mh}
	return s
}

func checkSeed(seed string) error {
	switch seed {
	case "", SeedEmpty, SeedDemo, SeedHostile:
		return nil
	}
	return fmt.Errorf("colabfake: unknown seed %q (want %q, %q or %q)", seed, SeedEmpty, SeedDemo, SeedHostile)
}

// Handler returns the MCP endpoint handler, wrapped with the loopback
// Host/Origin checks (403), the bearer check (401) and fault injection.
// Mount it at any path; Start mounts it at /mcp.
func (s *Server) Handler() http.Handler { return s.handler }

// Start builds an emulator with opts and serves it on addr, which must be
// a loopback address ("127.0.0.1:0", "localhost:8080", "[::1]:0"; "" means
// "127.0.0.1:0"). It returns the server and its endpoint, e.g.
// "http://127.0.0.1:41234/mcp". The emulator closes when ctx ends or on
// Close. Errors: a non-loopback addr, an unknown seed, a listen failure.
func Start(ctx context.Context, addr string, opts Options) (*Server, string, error) {
	if err := checkSeed(opts.Seed); err != nil {
		return nil, "", err
	}
	if err := runtimeproxy.CheckUpstream(opts.JupyterUpstream); err != nil {
		return nil, "", err
	}
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, "", fmt.Errorf("colabfake: bad listen address %q: %w", addr, err)
	}
	switch host {
	case "localhost", "127.0.0.1":
		host = "127.0.0.1"
	case "::1":
	default:
		return nil, "", fmt.Errorf("colabfake: refusing to listen on non-loopback address %q", addr)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, "", fmt.Errorf("colabfake: %w", err)
	}
	if opts.ProxyBase == "" {
		opts.ProxyBase = "http://" + ln.Addr().String() + "/proxy/"
	}
	s := New(opts)
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.handler)
	mux.Handle(runtimeproxy.Prefix, s.ProxyHandler())
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	s.ln = ln
	go func() { _ = s.srv.Serve(ln) }()
	if ctx != nil {
		go func() {
			select {
			case <-ctx.Done():
				_ = s.Close()
			case <-s.ctx.Done():
			}
		}()
	}
	return s, "http://" + ln.Addr().String() + "/mcp", nil
}

// Close stops serving (when started with Start), ends background
// creations and closes MCP sessions. It is safe to call more than once.
func (s *Server) Close() error {
	s.cancel()
	var err error
	if s.srv != nil {
		// Close, not Shutdown: Shutdown waits up to seconds for connections
		// a client opened but has not used yet, which made quitting the
		// demo dashboard (and every test) slow. An emulator has no work in
		// flight worth waiting for.
		err = s.srv.Close()
	}
	for ss := range s.mcp.Sessions() {
		_ = ss.Close()
	}
	s.wg.Wait()
	s.proxy.Close()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// --- time, ids, tokens ---

func (s *Server) clock() time.Time {
	s.mu.Lock()
	now := s.now
	s.mu.Unlock()
	return now()
}

// SetNow replaces the emulator's clock (nil restores time.Now).
func (s *Server) SetNow(now func() time.Time) {
	if now == nil {
		now = time.Now
	}
	s.mu.Lock()
	s.now = now
	s.mu.Unlock()
}

func randomToken() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

const idAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

// randomRuntimeID returns a server-style runtime id: RFC 1034 and, like
// Colab's, not a UUID ("rt-" and 10 random letters/digits).
func randomRuntimeID() string {
	b := make([]byte, 10)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = idAlphabet[int(b[i])%len(idAlphabet)]
	}
	return "rt-" + string(b)
}

// issueToken gives r a fresh proxy token expiring TokenTTL from now.
// Call with s.mu held.
func (s *Server) issueToken(r *runtimeState, now time.Time) {
	if r.noConn {
		r.rt.ConnectionInfo = nil
		return
	}
	r.rt.ConnectionInfo = &api.ConnectionInfo{
		URL:        s.proxyURL(r.rt.ID()),
		Token:      randomToken(),
		ExpireTime: now.Add(s.opts.TokenTTL).UTC(),
	}
}

// --- lookups (call with s.mu held) ---

func (s *Server) findRuntime(name string) (int, *runtimeState) {
	r := s.byName[name]
	if r == nil {
		return -1, nil
	}
	return slices.Index(s.runtimes, r), r
}

// lookupRuntime is findRuntime without the index (O(1)).
func (s *Server) lookupRuntime(name string) *runtimeState { return s.byName[name] }

// addRuntimeState appends r to the runtimes. Call with s.mu held.
func (s *Server) addRuntimeState(r *runtimeState) {
	s.runtimes = append(s.runtimes, r)
	s.byName[r.rt.Name] = r
}

// removeRuntimeState removes the runtime at index i. Call with s.mu held.
func (s *Server) removeRuntimeState(i int) {
	delete(s.byName, s.runtimes[i].rt.Name)
	s.runtimes = slices.Delete(s.runtimes, i, i+1)
}

func (r *runtimeState) findSession(name string) *sessionState {
	for _, ss := range r.sessions {
		if ss.name == name {
			return ss
		}
	}
	return nil
}

func snapshot(r *runtimeState) api.Runtime {
	rt := r.rt
	if rt.ConnectionInfo != nil {
		ci := *rt.ConnectionInfo
		rt.ConnectionInfo = &ci
	}
	return rt
}

// --- seeds ---

func (s *Server) seedDemo() {
	now := s.now()
	s.tier = api.TierPro
	add := func(id string, key api.RuntimeSpecKey, ttl time.Duration, sessions ...string) {
		r := &runtimeState{rt: api.Runtime{Name: api.RuntimeName(id), RuntimeSpec: key}}
		r.rt.ConnectionInfo = &api.ConnectionInfo{URL: s.proxyURL(id), Token: randomToken(), ExpireTime: now.Add(ttl).UTC()}
		for _, sid := range sessions {
			r.sessions = append(r.sessions, newSession(s.ctx, r.rt.Name+"/sessions/"+sid))
		}
		s.addRuntimeState(r)
	}
	// Expiries are fractions of the token lifetime (52 and 3 minutes of the
	// default hour), so a short --token-ttl shortens the seeded tokens too.
	ttl := s.opts.TokenTTL
	add("rt-t4demo7k2p", spec(api.VariantGPU, "T4", api.ShapeStandard), ttl*52/60,
		"notebook-ab12cd34", "notebook-train-9f3e")
	add("rt-cpudemo4qx", spec(api.VariantCPU, api.AcceleratorNone, api.ShapeStandard), ttl*3/60,
		"notebook-5e6f7a8b")
	add("rt-v6edemo2mw", spec(api.VariantTPU, "V6E1", api.ShapeStandard), -30*time.Second)
}

// seedLoad adds Options.Runtimes runtimes (see there).
func (s *Server) seedLoad(n int) {
	now := s.now()
	specs := []api.RuntimeSpecKey{
		spec(api.VariantCPU, api.AcceleratorNone, api.ShapeStandard),
		spec(api.VariantGPU, "T4", api.ShapeStandard),
		spec(api.VariantGPU, "L4", api.ShapeHighMem),
		spec(api.VariantTPU, "V6E1", api.ShapeStandard),
	}
	ttl := s.opts.TokenTTL
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("rt-load%05d", i)
		name := api.RuntimeName(id)
		if s.byName[name] != nil {
			continue
		}
		r := &runtimeState{rt: api.Runtime{Name: name, RuntimeSpec: specs[i%len(specs)]}}
		// Expiries spread over (0, TTL]: the i-th of n has i/n of a lifetime left.
		left := ttl * time.Duration(i) / time.Duration(n)
		r.rt.ConnectionInfo = &api.ConnectionInfo{URL: s.proxyURL(id), Token: randomToken(), ExpireTime: now.Add(left).UTC()}
		if i%3 == 0 {
			r.sessions = append(r.sessions, newSession(s.ctx, name+"/sessions/notebook-"+id[3:]))
		}
		s.addRuntimeState(r)
	}
}

// --- inspection and control for tests ---

// Runtimes returns a copy of every ready runtime, in creation order, with
// its current proxy token.
func (s *Server) Runtimes() []api.Runtime {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]api.Runtime, 0, len(s.runtimes))
	for _, r := range s.runtimes {
		out = append(out, snapshot(r))
	}
	return out
}

// Sessions returns the sessions open on runtime ("runtimes/{id}" or the
// bare id), in opening order; nil when the runtime does not exist.
func (s *Server) Sessions(runtime string) []api.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.lookupRuntime(api.RuntimeName(runtime))
	if r == nil {
		return nil
	}
	out := make([]api.Session, 0, len(r.sessions))
	for _, ss := range r.sessions {
		out = append(out, api.Session{Name: ss.name})
	}
	return out
}

// AddRuntime adds a ready runtime as if created elsewhere (e.g. in the
// Colab web UI). rt.Name may be "runtimes/{id}" or empty (a random id).
// rt.RuntimeSpec is kept as given, unknown enum values included. When
// rt.ConnectionInfo is nil the runtime never gets one, not even from
// get_runtime (to test clients against absent fields); otherwise a missing
// URL, Token or ExpireTime is filled in. It returns the runtime as stored;
// ALREADY_EXISTS (*api.Error) when the name is taken.
func (s *Server) AddRuntime(rt api.Runtime) (api.Runtime, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rt.Name == "" {
		rt.Name = api.RuntimeName(randomRuntimeID())
	}
	rt.Name = api.RuntimeName(rt.Name)
	if r := s.lookupRuntime(rt.Name); r != nil || s.pending[rt.ID()] {
		return api.Runtime{}, &api.Error{Code: api.AlreadyExists, Message: rt.Name + " already exists"}
	}
	r := &runtimeState{rt: rt, noConn: rt.ConnectionInfo == nil}
	if ci := rt.ConnectionInfo; ci != nil {
		c := *ci
		if c.URL == "" {
			c.URL = s.proxyURL(rt.ID())
		}
		if c.Token == "" {
			c.Token = randomToken()
		}
		if c.ExpireTime.IsZero() {
			c.ExpireTime = s.now().Add(s.opts.TokenTTL).UTC()
		}
		r.rt.ConnectionInfo = &c
	}
	s.addRuntimeState(r)
	return snapshot(r), nil
}

// AddNotebookSession opens a session on runtime that the client did not
// open (like a user's notebook in the Colab web UI); it shows up in
// list_sessions. sessionID "" means a random UUID. It returns the session;
// NOT_FOUND when the runtime does not exist, ALREADY_EXISTS when the
// session is already open.
func (s *Server) AddNotebookSession(runtime, sessionID string) (api.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	name := api.RuntimeName(runtime)
	r := s.lookupRuntime(name)
	if r == nil {
		return api.Session{}, &api.Error{Code: api.NotFound, Message: name + " not found"}
	}
	if sessionID == "" {
		sessionID = uuid.NewString()
	}
	sname := name + "/sessions/" + sessionID
	if r.findSession(sname) != nil {
		return api.Session{}, &api.Error{Code: api.AlreadyExists, Message: sname + " already open"}
	}
	r.sessions = append(r.sessions, newSession(s.ctx, sname))
	return api.Session{Name: sname}, nil
}

// Reclaim removes runtime, its sessions and its files as if Colab took it
// back (idle or maximum-duration reclaim, field case 7): it vanishes from
// list_runtimes, get_runtime answers NOT_FOUND and its proxy answers 404.
// It reports whether the runtime existed.
func (s *Server) Reclaim(runtime string) bool {
	s.mu.Lock()
	i, r := s.findRuntime(api.RuntimeName(runtime))
	if r == nil {
		s.mu.Unlock()
		return false
	}
	for _, ss := range r.sessions {
		ss.stop() // code running on it ends with the runtime
	}
	s.removeRuntimeState(i)
	s.mu.Unlock()
	s.proxy.RemoveRuntime(r.rt.ID())
	return true
}

// ExpireToken sets runtime's proxy-token expireTime to at (to put a token
// at a chosen distance from now). It reports whether the runtime exists
// and has connectionInfo.
func (s *Server) ExpireToken(runtime string, at time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.lookupRuntime(api.RuntimeName(runtime))
	if r == nil || r.rt.ConnectionInfo == nil {
		return false
	}
	r.rt.ConnectionInfo.ExpireTime = at.UTC()
	return true
}

// SetTier changes the subscription tier get_subscription reports and
// list_runtime_specs/create_runtime use for eligibility.
func (s *Server) SetTier(t api.SubscriptionTier) {
	s.mu.Lock()
	s.tier = t
	s.mu.Unlock()
}

// Tier returns the current subscription tier.
func (s *Server) Tier() api.SubscriptionTier {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tier
}

// CallCount returns how many tools/call requests reached tool (e.g.
// "create_runtime"), faulted or not; "" counts all tools.
func (s *Server) CallCount(tool string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if tool == "" {
		n := 0
		for _, c := range s.calls {
			n += c
		}
		return n
	}
	return s.calls[tool]
}

// CreateCalls returns how many create_runtime calls reached the emulator.
func (s *Server) CreateCalls() int { return s.CallCount(api.ToolCreateRuntime) }

// RuntimesCreated returns how many runtimes create_runtime has created
// (idempotent replays of one requestId count once).
func (s *Server) RuntimesCreated() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.created
}
