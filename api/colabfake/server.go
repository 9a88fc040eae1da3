package colabfake

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

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake/runtimeproxy"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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

	jobs jobTable // jobs running on the runtimes (jobs.go)

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
	// gpuRuns counts runs in flight whose code uses the GPU (usesGPU);
	// gpuEverUsed is set by the first one (api/colab/resources' everUsed).
	gpuRuns     int
	gpuEverUsed bool
	// earlier holds the tokens get_runtime replaced that have not expired
	// yet, newest last: each stays good until its own expireTime, as Colab
	// documents only a missing or expired token as refused, so that
	// clients renewing one runtime (a dashboard beside `jobs --watch`) do
	// not lock each other out however often they renew. keptTokens only
	// bounds the memory of a client renewing in a loop.
	earlier []api.ConnectionInfo
}

// keptTokens bounds runtimeState.earlier: a renewal every 5 s for the
// default hour-long token lifetime is 720.
const keptTokens = 4096

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
	// lastActivity is the kernel's last_activity: its start, then the
	// start and the end of every run (frozen while a run prints nothing,
	// as Jupyter's is).
	lastActivity time.Time
	// starting keeps the kernel in execution_state "starting" (a kernel
	// whose WebSocket never connected).
	starting bool
	// up is the real Jupyter session behind it with
	// Options.JupyterUpstream (upstreamkernel.go), nil until first used.
	up *upstreamKernel
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
	// gpu is set when the run's code uses the GPU (usesGPU).
	gpu bool
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
	if opts.StuckKernel {
		s.seedStuckKernel()
	}
	if opts.Tier != "" {
		s.tier = opts.Tier
	}
	s.startSeededJobs()
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
	mux.HandleFunc(ControlPrefix, s.ServeControl)
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

// issueToken gives r a fresh proxy token expiring TokenTTL from now; the
// one it replaces stays good until its own expiry (runtimeState.earlier).
// Call with s.mu held.
func (s *Server) issueToken(r *runtimeState, now time.Time) {
	if r.noConn {
		r.rt.ConnectionInfo = nil
		return
	}
	r.earlier = slices.DeleteFunc(r.earlier, func(ci api.ConnectionInfo) bool { return !now.Before(ci.ExpireTime) })
	if ci := r.rt.ConnectionInfo; ci != nil && ci.Token != "" && now.Before(ci.ExpireTime) {
		r.earlier = append(r.earlier, *ci)
		if len(r.earlier) > keptTokens {
			r.earlier = r.earlier[len(r.earlier)-keptTokens:]
		}
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

// newSession is a session whose runs end when it is deleted (stop) or the
// server closes (parent); its kernel started at now.
func newSession(parent context.Context, name string, now time.Time) *sessionState {
	ctx, stop := context.WithCancel(parent)
	return &sessionState{name: name, execs: map[string]*execRecord{}, ctx: ctx, stop: stop, lastActivity: now}
}

// --- seeds ---

func (s *Server) seedDemo() {
	now := s.now()
	s.tier = api.TierPro
	add := func(id string, key api.RuntimeSpecKey, ttl time.Duration, sessions ...string) {
		r := &runtimeState{rt: api.Runtime{Name: api.RuntimeName(id), RuntimeSpec: key}}
		r.rt.ConnectionInfo = &api.ConnectionInfo{URL: s.proxyURL(id), Token: randomToken(), ExpireTime: now.Add(ttl).UTC()}
		for _, sid := range sessions {
			r.sessions = append(r.sessions, newSession(s.ctx, r.rt.Name+"/sessions/"+sid, s.now()))
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
	s.seedDemoJobs(now)
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
			r.sessions = append(r.sessions, newSession(s.ctx, name+"/sessions/notebook-"+id[3:], s.now()))
		}
		s.addRuntimeState(r)
	}
}

// seedStuckKernel adds Options.StuckKernel's runtime.
func (s *Server) seedStuckKernel() {
	name := api.RuntimeName(StuckKernelRuntime)
	if s.byName[name] != nil {
		return
	}
	r := &runtimeState{rt: api.Runtime{Name: name, RuntimeSpec: spec(api.VariantCPU, api.AcceleratorNone, api.ShapeStandard)}}
	r.rt.ConnectionInfo = &api.ConnectionInfo{URL: s.proxyURL(StuckKernelRuntime), Token: randomToken(), ExpireTime: s.now().Add(s.opts.TokenTTL).UTC()}
	ss := newSession(s.ctx, name+"/sessions/notebook-stuck", s.now())
	ss.starting = true
	r.sessions = append(r.sessions, ss)
	s.addRuntimeState(r)
}
