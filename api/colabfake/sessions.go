package colabfake

// The session tools (create_session, list_sessions, delete_session) and
// execute_code, whose code pyemu emulates, or a real kernel runs with
// Options.JupyterUpstream (upstreamkernel.go).

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake/pyemu"
	"github.com/google/uuid"

	"github.com/colabdash/colabdash/api/jsonnum"
)

// EmulatedPrefix starts every stdout line the emulator writes for code it
// cannot echo, so a user never mistakes emulated output for real output
// (pyemu.Prefix).
const EmulatedPrefix = pyemu.Prefix

// MaxEmulatedSleep caps the time.sleep of one emulated run (1 h): long
// enough to leave a run going and come back to it (pyemu.MaxSleep).
const MaxEmulatedSleep = pyemu.MaxSleep

// PurgeMarker is the first line of the code colabdash runs through
// execute_code to empty a runtime's trash (`rm --purge`). The emulator
// does not run Python (unless Options.JupyterUpstream, whose real kernel
// runs the real code): a program starting with this line empties the
// emulated trash and prints the bytes freed, as the real code does.
const PurgeMarker = "# colabdash: empty the Jupyter trash"

// LinkMarker is the first line of the code colabdash runs through
// execute_code before a recursive download to list the symbolic links
// below a directory: the emulator answers it from its file store
// (emulateLinks), as that code answers on a runtime (with
// Options.JupyterUpstream the real kernel runs the code itself).
const LinkMarker = "# colabdash: list symbolic links"

func (s *Server) createSession(ctx context.Context, in createSessionIn, _ bool) (any, *gErr) {
	if e := parseRuntimeName("parent", in.Parent); e != nil {
		return nil, e
	}
	id := in.SessionID
	if id == "" {
		id = in.LegacySessionID
	}
	if id != "" {
		if err := api.ValidateID(id); err != nil {
			return nil, newErr(api.InvalidArgument, "sessionId: %s", err.(*api.Error).Message)
		}
	} else {
		id = uuid.NewString()
	}
	s.mu.Lock()
	r := s.lookupRuntime(in.Parent)
	if r == nil {
		s.mu.Unlock()
		return nil, newErr(api.NotFound, "Runtime %s not found.", in.Parent)
	}
	name := in.Parent + "/sessions/" + id
	ss := r.findSession(name)
	if ss == nil {
		ss = newSession(s.ctx, name, s.now())
		r.sessions = append(r.sessions, ss)
	}
	s.mu.Unlock()
	if e := s.startKernel(ctx, ss); e != nil { // Options.JupyterUpstream: its real kernel
		return nil, e
	}
	return api.Session{Name: name}, nil
}

func (s *Server) listSessions(ctx context.Context, in parentIn, _ bool) (any, *gErr) {
	if e := parseRuntimeName("parent", in.Parent); e != nil {
		return nil, e
	}
	// One critical section: a runtime deleted between looking it up and
	// listing it must answer NOT_FOUND, not an empty list.
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.lookupRuntime(in.Parent)
	if r == nil {
		return nil, newErr(api.NotFound, "Runtime %s not found.", in.Parent)
	}
	out := make([]api.Session, 0, len(r.sessions))
	for _, ss := range r.sessions {
		out = append(out, api.Session{Name: ss.name})
	}
	return struct {
		Sessions []api.Session `json:"sessions,omitempty"`
	}{Sessions: out}, nil
}

func (s *Server) deleteSession(ctx context.Context, in nameIn, _ bool) (any, *gErr) {
	rname, _, e := parseSessionName("name", in.Name)
	if e != nil {
		return nil, e
	}
	s.mu.Lock()
	r := s.lookupRuntime(rname)
	if r == nil {
		s.mu.Unlock()
		return nil, newErr(api.NotFound, "Runtime %s not found.", rname)
	}
	for i, ss := range r.sessions {
		if ss.name == in.Name {
			ss.stop() // code running on it is aborted
			r.sessions = append(r.sessions[:i:i], r.sessions[i+1:]...)
			s.mu.Unlock()
			s.endKernel(ss) // Options.JupyterUpstream: its real kernel is shut down first
			return struct{}{}, nil
		}
	}
	s.mu.Unlock()
	return nil, newErr(api.NotFound, "Session %s not found.", in.Name)
}

func (s *Server) executeCode(ctx context.Context, in executeCodeIn, deadline bool) (any, *gErr) {
	if (in.Session == "") == (in.Runtime == "") {
		return nil, newErr(api.InvalidArgument, "set exactly one of session and runtime")
	}
	var rname, sname string
	if in.Runtime != "" {
		if e := parseRuntimeName("runtime", in.Runtime); e != nil {
			return nil, e
		}
		rname, sname = in.Runtime, in.Runtime+"/sessions/"+uuid.NewString()
	} else {
		r, id, e := parseSessionName("session", in.Session)
		if e != nil {
			return nil, e
		}
		if err := api.ValidateID(id); err != nil && uuid.Validate(id) != nil {
			return nil, newErr(api.InvalidArgument, "session: %s", err.(*api.Error).Message)
		}
		rname, sname = r, in.Session
	}
	s.mu.Lock()
	r := s.lookupRuntime(rname)
	if r == nil {
		s.mu.Unlock()
		return nil, newErr(api.NotFound, "Runtime %s not found.", rname)
	}
	ss := r.findSession(sname)
	if ss == nil {
		ss = newSession(s.ctx, sname, s.now())
		r.sessions = append(r.sessions, ss)
	}
	reattach := in.ExecutionID != "" && in.Session != ""
	rec := ss.execs[in.ExecutionID]
	if !reattach || rec == nil || rec.returned {
		// A new run (a returned executionId runs again). It goes on when
		// the call is cut off, so an identical call can wait for it, and
		// ends when its session is deleted.
		ss.count++
		rec = &execRecord{done: make(chan struct{})}
		if reattach {
			ss.execs[in.ExecutionID] = rec
		}
		res := api.ExecuteCodeResult{ExecutionID: in.ExecutionID, Session: sname, ExecutionCount: jsonnum.Int(ss.count)}
		rctx, interrupt := context.WithCancel(ss.ctx)
		rec.interrupt = interrupt
		if ss.running == nil {
			ss.running = map[*execRecord]struct{}{}
		}
		ss.running[rec] = struct{}{}
		ss.runs++
		// The kernel's busy status is activity; then last_activity stands
		// still until the run ends.
		ss.lastActivity = s.now()
		if usesGPU(in.Code) {
			rec.gpu = true
			r.gpuRuns++
			r.gpuEverUsed = true
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer interrupt()
			out, err := s.runCode(rctx, rname, ss, in.Code)
			out.ExecutionID, out.Session, out.ExecutionCount = res.ExecutionID, res.Session, res.ExecutionCount
			if s.opts.Seed == SeedHostile {
				hostileExec(&out)
			}
			// The session's kernel's other clients (a channels socket, the
			// dashboard's log viewer) see the cell, as Jupyter forwards a
			// kernel's output to every socket.
			s.mu.Lock()
			kid := ss.kernel
			s.mu.Unlock()
			if kid != "" {
				s.proxy.Publish(kid, int(res.ExecutionCount), in.Code, out.Stdout, out.Stderr)
			}
			s.mu.Lock()
			ss.runs--
			ss.lastActivity = s.now()
			if rec.gpu {
				r.gpuRuns--
			}
			rec.result = out
			switch {
			case err != nil && rec.interrupted:
				// A kernel interrupt: Python raises KeyboardInterrupt.
				rec.result.ExecutionError = &api.ExecuteError{Name: "KeyboardInterrupt", Traceback: []string{"KeyboardInterrupt"}}
			case err != nil:
				rec.err = runFailure(ss, sname, err)
			}
			rec.interrupt = nil
			delete(ss.running, rec)
			s.mu.Unlock()
			close(rec.done)
		}()
	}
	s.mu.Unlock()
	cut := time.NewTimer(s.opts.ExecuteCutoff)
	defer cut.Stop()
	select {
	case <-rec.done:
	case <-ctx.Done():
		return nil, newErr(api.Cancelled, "The call was cancelled; the code keeps running (repeat the identical call to wait for it).")
	case <-cut.C:
		// Colab's cut-off: the call ends, the code goes on.
		if reattach {
			return nil, newErr(api.DeadlineExceeded, "The call was cut off after %s; the code keeps running: repeat the identical call (same session and executionId) to reattach.", cutoffText(s.opts.ExecuteCutoff))
		}
		return nil, newErr(api.DeadlineExceeded, "The call was cut off after %s; the code keeps running in %s, but a call without an executionId or with a runtime target cannot be resumed.", cutoffText(s.opts.ExecuteCutoff), sname)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !deadline {
		rec.returned = true
	}
	if rec.err != nil {
		return nil, rec.err
	}
	return rec.result, nil
}

// cutoffText writes a cut-off as Colab's docs do ("600 s"), or as a Go
// duration when it is not whole seconds (tests' short cut-offs).
func cutoffText(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10) + " s"
	}
	return d.String()
}

// usesGPU reports whether emulated code "uses" the GPU (it mentions cuda
// or gpu, as torch.cuda, .to("cuda") or tf.config's GPU list do): while
// it runs the runtime's GPUs are busy, and everUsed turns true.
func usesGPU(code string) bool {
	lc := strings.ToLower(code)
	return strings.Contains(lc, "cuda") || strings.Contains(lc, "gpu")
}

// emulateCode runs execute_code's code on runtime rname: colabdash's
// purge program (PurgeMarker) empties the runtime's trash and prints the
// bytes freed; anything else is pyemu.Run's.
func (s *Server) emulateCode(ctx context.Context, rname, code string) (api.ExecuteCodeResult, error) {
	first, _, _ := strings.Cut(strings.TrimLeft(code, "\n"), "\n")
	switch strings.TrimSpace(first) {
	case PurgeMarker:
		return api.ExecuteCodeResult{Stdout: fmt.Sprintf("%d\n", s.proxy.PurgeTrash(api.LastSegment(rname)))}, nil
	case LinkMarker:
		return s.emulateLinks(rname, code), nil
	case jobLauncherMarker:
		return s.launchJob(rname, code), nil
	}
	return pyemu.Run(ctx, code, sleepCtx)
}

// emulateLinks answers colabdash's link check (LinkMarker) for runtime
// rname from the emulator's file store: the root is the JSON string in
// the call on the code's "    _colabdash_links(" line, and the answer
// the one line the real code prints.
func (s *Server) emulateLinks(rname, code string) api.ExecuteCodeResult {
	out := struct {
		RootLink  bool     `json:"root_link"`
		Links     []string `json:"links"`
		Truncated bool     `json:"truncated"`
		Error     string   `json:"error"`
		Hidden    int      `json:"hidden"`
	}{Links: []string{}}
	var root string
	for _, line := range strings.Split(code, "\n") {
		if rest, ok := strings.CutPrefix(line, "    _colabdash_links("); ok {
			if i := strings.LastIndex(rest, ", "); i > 0 {
				_ = json.Unmarshal([]byte(rest[:i]), &root)
			}
		}
	}
	if root == "" {
		out.Error = "no root"
	} else {
		var err error
		out.RootLink, out.Links, err = s.proxy.ListLinks(api.LastSegment(rname), strings.TrimPrefix(root, "/"))
		if err == nil && !out.RootLink {
			out.Hidden = s.proxy.CountHidden(api.LastSegment(rname), strings.TrimPrefix(root, "/"))
		}
		if err != nil {
			out.Error = err.Error()
		}
		if out.Links == nil {
			out.Links = []string{}
		}
	}
	b, _ := json.Marshal(out)
	return api.ExecuteCodeResult{Stdout: "colabdash-links " + string(b) + "\n"}
}
