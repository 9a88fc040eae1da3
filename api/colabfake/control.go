package colabfake

// What tests (and the demo) use to inspect and steer the emulator's
// state.

import (
	"strings"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/google/uuid"
)

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
	r.sessions = append(r.sessions, newSession(s.ctx, sname, s.now()))
	return api.Session{Name: sname}, nil
}

// Reclaim removes runtime, its sessions and its files as if Colab took it
// back (idle or maximum-duration reclaim): it vanishes from
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

// SetNow replaces the emulator's clock (nil restores time.Now).
func (s *Server) SetNow(now func() time.Time) {
	if now == nil {
		now = time.Now
	}
	s.mu.Lock()
	s.now = now
	s.mu.Unlock()
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

// RunningCode returns how many execute_code runs are in flight on session
// ("runtimes/{id}/sessions/{sid}"), so a test can act while code runs.
func (s *Server) RunningCode(session string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.runtimes {
		if ss := r.findSession(session); ss != nil {
			return ss.runs
		}
	}
	return 0
}

// SetKernelStarting keeps the kernel of session ("runtimes/r/sessions/s")
// in execution_state "starting" (starting true), as a kernel whose
// WebSocket never connected, or lets it report its runs
// again (false). Errors: NOT_FOUND when the session is not open.
func (s *Server) SetKernelStarting(session string, starting bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	rname := session
	if i := strings.Index(session, "/sessions/"); i >= 0 {
		rname = session[:i]
	}
	if r := s.lookupRuntime(api.RuntimeName(rname)); r != nil {
		if ss := r.findSession(session); ss != nil {
			ss.starting = starting
			return nil
		}
	}
	return &api.Error{Code: api.NotFound, Message: session + " not open"}
}
