package client

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/google/uuid"

	"github.com/colabdash/colabdash/api"
)

var _ api.Service = (*Client)(nil)

func invalid(tool, msg string) *api.Error {
	return &api.Error{Code: api.InvalidArgument, Tool: tool, Message: msg}
}

func noArgs(tool string) func(*toolSchema) (map[string]any, *api.Error) {
	return func(s *toolSchema) (map[string]any, *api.Error) { return map[string]any{}, nil }
}

func (c *Client) read(tool string, args func(*toolSchema) (map[string]any, *api.Error)) callSpec {
	return callSpec{tool: tool, timeout: c.opts.ReadTimeout, replay: replaySafe, args: args}
}

// readDocumented is read for a tool whose arguments are all documented
// and required (or absent), so it need not wait for tools/list.
func (c *Client) readDocumented(tool string, args func(*toolSchema) (map[string]any, *api.Error)) callSpec {
	spec := c.read(tool, args)
	spec.schemaFree = true
	return spec
}

// GetSubscription calls get_subscription and returns the
// user's tier. It sends {} (or {"name":"subscription"} when the live schema
// requires a name) without waiting for tools/list; a {} refused as invalid
// before the schema was known is sent again with it. Errors: *api.Error.
func (c *Client) GetSubscription(ctx context.Context) (api.Subscription, error) {
	res, err := c.do(ctx, c.readDocumented(api.ToolGetSubscription, func(s *toolSchema) (map[string]any, *api.Error) {
		m := map[string]any{}
		if s.requires("name") {
			m["name"] = "subscription"
		}
		return m, nil
	}))
	if err != nil {
		return api.Subscription{}, err
	}
	var out api.Subscription
	if e := decode(api.ToolGetSubscription, res, &out); e != nil {
		return api.Subscription{}, e
	}
	return out, nil
}

// ListRuntimeSpecs calls list_runtime_specs: every
// runtimeSpec and whether the user is eligible for it. An absent list is
// empty. Errors: *api.Error.
func (c *Client) ListRuntimeSpecs(ctx context.Context) ([]api.RuntimeSpec, error) {
	res, err := c.do(ctx, c.readDocumented(api.ToolListRuntimeSpecs, noArgs(api.ToolListRuntimeSpecs)))
	if err != nil {
		return nil, err
	}
	var out struct {
		RuntimeSpecs []api.RuntimeSpec `json:"runtimeSpecs"`
	}
	if e := decode(api.ToolListRuntimeSpecs, res, &out); e != nil {
		return nil, e
	}
	if out.RuntimeSpecs == nil {
		out.RuntimeSpecs = []api.RuntimeSpec{}
	}
	return out.RuntimeSpecs, nil
}

// ListRuntimes calls list_runtimes. Entries without a
// name are dropped; entries without connectionInfo are kept (their
// ExpireTime is unknown). An absent list is empty. Errors: *api.Error.
func (c *Client) ListRuntimes(ctx context.Context) ([]api.Runtime, error) {
	res, err := c.do(ctx, c.readDocumented(api.ToolListRuntimes, noArgs(api.ToolListRuntimes)))
	if err != nil {
		return nil, err
	}
	var out struct {
		Runtimes []api.Runtime `json:"runtimes"`
	}
	if e := decode(api.ToolListRuntimes, res, &out); e != nil {
		return nil, e
	}
	rts := make([]api.Runtime, 0, len(out.Runtimes))
	for _, r := range out.Runtimes {
		if r.Name != "" {
			rts = append(rts, r)
		}
	}
	return rts, nil
}

// runtimeName normalises "r-abc" or "runtimes/r-abc" to "runtimes/r-abc".
func runtimeName(tool, name string) (string, *api.Error) {
	name = strings.TrimSpace(name)
	if name == "" || name == "runtimes/" {
		return "", invalid(tool, "runtime name is empty")
	}
	return api.RuntimeName(name), nil
}

// GetRuntime calls get_runtime for name ("r-abc" or
// "runtimes/r-abc"); the reply carries a fresh proxy token. NOT_FOUND when
// the runtime is gone. Errors: *api.Error.
func (c *Client) GetRuntime(ctx context.Context, name string) (api.Runtime, error) {
	n, aerr := runtimeName(api.ToolGetRuntime, name)
	if aerr != nil {
		return api.Runtime{}, aerr
	}
	res, err := c.do(ctx, c.readDocumented(api.ToolGetRuntime, func(s *toolSchema) (map[string]any, *api.Error) {
		m := map[string]any{}
		put(m, s, true, n, "name")
		return m, nil
	}))
	if err != nil {
		return api.Runtime{}, err
	}
	var out api.Runtime
	if e := decode(api.ToolGetRuntime, res, &out); e != nil {
		return api.Runtime{}, e
	}
	if out.Name == "" {
		return api.Runtime{}, malformed(api.ToolGetRuntime, "the runtime has no name", "")
	}
	return out, nil
}

// CreateRuntime calls create_runtime, which waits until
// the runtime is ready (one attempt may take CreateRuntimeTimeout).
//
// An empty Accelerator is sent as "NONE" and an empty Shape as
// SHAPE_STANDARD (as Google's own client does). RequestID is filled with a
// UUID4 when empty. The call is sent once (see Client): a re-send with
// the same RequestID waits for the same creation instead of making a
// second runtime, and whether to make one is the caller's rule
// (state.CreateAnswered). The reply may be a Runtime or a finished
// Operation (its error becomes the *api.Error, reason kept).
//
// Errors: INVALID_ARGUMENT for a bad RuntimeID or a missing variant;
// FAILED_PRECONDITION (no capacity, quota, TOO_MANY_ACTIVE_RUNTIMES …);
// DEADLINE_EXCEEDED (still being created), RESOURCE_EXHAUSTED, UNAVAILABLE
// as the server said them; an error with OutcomeUnknown set
// (Code UNKNOWN, Metadata["requestId"]) when the connection was lost after
// the request was sent — list runtimes before trying again.
func (c *Client) CreateRuntime(ctx context.Context, req api.CreateRuntimeRequest) (api.Runtime, error) {
	const tool = api.ToolCreateRuntime
	if req.Spec.Variant == "" {
		return api.Runtime{}, invalid(tool, "runtimeSpec.variant is required")
	}
	if req.RuntimeID != "" {
		if err := api.ValidateID(req.RuntimeID); err != nil {
			e := *err.(*api.Error)
			e.Tool = tool
			e.Message = "runtimeId: " + e.Message
			return api.Runtime{}, &e
		}
	}
	if req.RequestID == "" {
		req.RequestID = uuid.NewString()
	}
	spec := req.Spec
	if spec.Accelerator == "" {
		spec.Accelerator = api.AcceleratorNone
	}
	if spec.Shape == "" {
		spec.Shape = api.ShapeStandard
	}
	specMap := map[string]any{"variant": string(spec.Variant), "accelerator": spec.Accelerator, "shape": string(spec.Shape)}
	res, err := c.do(ctx, callSpec{
		tool: tool, timeout: c.opts.CreateRuntimeTimeout, replay: replayCreate, requestID: req.RequestID,
		args: func(s *toolSchema) (map[string]any, *api.Error) {
			m := map[string]any{}
			if k := s.key("runtime"); k != "" {
				rs := s.child(k)
				rt := map[string]any{}
				put(rt, rs, true, specMap, "runtimeSpec")
				if req.Version != "" {
					put(rt, rs, false, req.Version, "version")
				}
				m[k] = rt
			} else { // a flattened schema: runtimeSpec at the top
				put(m, s, true, specMap, "runtimeSpec")
				if req.Version != "" {
					put(m, s, false, req.Version, "version")
				}
			}
			put(m, s, false, req.RequestID, "requestId")
			if req.RuntimeID != "" {
				put(m, s, true, req.RuntimeID, "runtimeId")
			}
			return m, nil
		},
	})
	if err != nil {
		return api.Runtime{}, err
	}
	var probe struct {
		api.Runtime
		Done     *bool           `json:"done"`
		Error    *api.Status     `json:"error"`
		Response json.RawMessage `json:"response"`
	}
	if e := decode(tool, res, &probe); e != nil {
		return api.Runtime{}, e
	}
	if probe.Done != nil || probe.Error != nil || len(probe.Response) > 0 {
		// A google.longrunning.Operation.
		if probe.Error != nil {
			e := api.ErrorFromStatus(*probe.Error, 0)
			e.Tool = tool
			return api.Runtime{}, e
		}
		if len(probe.Response) == 0 || string(probe.Response) == "null" {
			return api.Runtime{}, &api.Error{Code: api.DeadlineExceeded, Tool: tool,
				Message: "create_runtime returned an unfinished operation; the runtime is still being created"}
		}
		var rt api.Runtime
		if err := json.Unmarshal(probe.Response, &rt); err != nil {
			return api.Runtime{}, malformed(tool, "operation response: "+jsonProblem(err), string(probe.Response))
		}
		probe.Runtime = rt
	}
	if probe.Runtime.Name == "" {
		return api.Runtime{}, malformed(tool, "the runtime has no name", "")
	}
	return probe.Runtime, nil
}

// DeleteRuntime calls delete_runtime for name ("r-abc"
// or "runtimes/r-abc"). allowMissing is sent only when the live schema has
// it; a runtime already gone (NOT_FOUND) counts as deleted either way.
// Errors: *api.Error.
func (c *Client) DeleteRuntime(ctx context.Context, name string) error {
	n, aerr := runtimeName(api.ToolDeleteRuntime, name)
	if aerr != nil {
		return aerr
	}
	spec := c.read(api.ToolDeleteRuntime, func(s *toolSchema) (map[string]any, *api.Error) {
		m := map[string]any{}
		put(m, s, true, n, "name")
		if len(s.Properties) > 0 {
			put(m, s, false, true, "allowMissing")
		}
		return m, nil
	})
	spec.notFoundOK = true
	_, err := c.do(ctx, spec)
	return err
}

// CreateSession calls create_session on parent
// ("r-abc" or "runtimes/r-abc"). sessionID is optional; when set it must
// pass api.ValidateID and makes the call create-or-get (safe to retry). It
// is sent as sessionId, or session_id when the live schema only has that.
// Without a sessionID a reply lost after sending gives OutcomeUnknown.
// Errors: *api.Error.
func (c *Client) CreateSession(ctx context.Context, parent, sessionID string) (api.Session, error) {
	const tool = api.ToolCreateSession
	p, aerr := runtimeName(tool, parent)
	if aerr != nil {
		return api.Session{}, aerr
	}
	if sessionID != "" {
		if err := api.ValidateID(sessionID); err != nil {
			e := *err.(*api.Error)
			e.Tool = tool
			e.Message = "sessionId: " + e.Message
			return api.Session{}, &e
		}
	}
	rp := replaySafe
	if sessionID == "" {
		rp = replayUnsafe
	}
	res, err := c.do(ctx, callSpec{tool: tool, timeout: c.opts.ReadTimeout, replay: rp,
		args: func(s *toolSchema) (map[string]any, *api.Error) {
			m := map[string]any{}
			put(m, s, true, p, "parent")
			if sessionID != "" {
				put(m, s, true, sessionID, "sessionId")
			}
			return m, nil
		}})
	if err != nil {
		return api.Session{}, err
	}
	var out struct {
		Name    string       `json:"name"`
		Session *api.Session `json:"session"`
	}
	if e := decode(tool, res, &out); e != nil {
		return api.Session{}, e
	}
	if out.Name == "" && out.Session != nil {
		out.Name = out.Session.Name
	}
	if out.Name == "" {
		return api.Session{}, malformed(tool, "the session has no name", "")
	}
	return api.Session{Name: out.Name}, nil
}

// ListSessions calls list_sessions on parent ("r-abc"
// or "runtimes/r-abc"), including sessions the dashboard did not open.
// Entries without a name are dropped; an absent list is empty. Errors:
// *api.Error.
func (c *Client) ListSessions(ctx context.Context, parent string) ([]api.Session, error) {
	p, aerr := runtimeName(api.ToolListSessions, parent)
	if aerr != nil {
		return nil, aerr
	}
	res, err := c.do(ctx, c.readDocumented(api.ToolListSessions, func(s *toolSchema) (map[string]any, *api.Error) {
		m := map[string]any{}
		put(m, s, true, p, "parent")
		return m, nil
	}))
	if err != nil {
		return nil, err
	}
	var out struct {
		Sessions []api.Session `json:"sessions"`
	}
	if e := decode(api.ToolListSessions, res, &out); e != nil {
		return nil, e
	}
	ss := make([]api.Session, 0, len(out.Sessions))
	for _, s := range out.Sessions {
		if s.Name != "" {
			ss = append(ss, s)
		}
	}
	return ss, nil
}

// DeleteSession calls delete_session for
// "runtimes/{runtime}/sessions/{session}". A session already closed
// (NOT_FOUND from the tool) counts as closed. It goes without waiting for
// tools/list (its one argument, name, is documented): exec's close after
// the output is one round trip. Errors: INVALID_ARGUMENT for a name that
// is not a session name; otherwise *api.Error.
func (c *Client) DeleteSession(ctx context.Context, name string) error {
	name = strings.TrimSpace(name)
	if (api.Session{Name: name}).Parent() == "" || api.LastSegment(name) == "" {
		return invalid(api.ToolDeleteSession, "not a session name (runtimes/{runtime}/sessions/{session}): "+api.OneLine(name, 80))
	}
	spec := c.readDocumented(api.ToolDeleteSession, func(s *toolSchema) (map[string]any, *api.Error) {
		m := map[string]any{}
		put(m, s, true, name, "name")
		return m, nil
	})
	spec.notFoundOK = true
	_, err := c.do(ctx, spec)
	return err
}

// ExecuteCode calls execute_code. Exactly one of
// req.Session and req.Runtime must be set. For a Session target,
// ExecutionID is filled with a UUID4 when empty; the call is sent once
// (see Client): after DEADLINE_EXCEEDED (the 600 s cut-off), UNAVAILABLE
// or a lost reply (UNAVAILABLE, or INTERNAL for an unreadable one) the
// caller may send the identical call, which reattaches to the running
// code (state.ExecAnswered decides). A Runtime target cannot be resumed: a
// reply lost after sending gives OutcomeUnknown. The call does not wait
// for tools/list: it goes with the documented names (session, runtime,
// executionId) and code, and a server that refuses them as invalid before
// its tools were listed gets the call again under its schema's names (the
// source as code, else source or python): an exec needs no round trip
// but its own. The result's ExecutionID is
// the one sent. Errors: INVALID_ARGUMENT for a bad target; otherwise
// *api.Error. An exception raised by the code is not an error: it is in
// ExecuteCodeResult.ExecutionError.
func (c *Client) ExecuteCode(ctx context.Context, req api.ExecuteCodeRequest) (api.ExecuteCodeResult, error) {
	const tool = api.ToolExecuteCode
	req.Session, req.Runtime = strings.TrimSpace(req.Session), strings.TrimSpace(req.Runtime)
	switch {
	case req.Session != "" && req.Runtime != "":
		return api.ExecuteCodeResult{}, invalid(tool, "set either session or runtime, not both")
	case req.Session == "" && req.Runtime == "":
		return api.ExecuteCodeResult{}, invalid(tool, "a session or runtime target is required")
	case req.Session != "" && (api.Session{Name: req.Session}).Parent() == "":
		return api.ExecuteCodeResult{}, invalid(tool, "not a session name (runtimes/{runtime}/sessions/{session}): "+api.OneLine(req.Session, 80))
	}
	rp := replayUnsafe
	if req.Session != "" {
		if req.ExecutionID == "" {
			req.ExecutionID = uuid.NewString()
		}
		rp = replayReattach
	} else {
		req.Runtime = api.RuntimeName(req.Runtime)
	}
	res, err := c.do(ctx, callSpec{tool: tool, timeout: c.opts.ExecuteCodeTimeout, replay: rp, schemaFree: true,
		args: func(s *toolSchema) (map[string]any, *api.Error) {
			m := map[string]any{}
			if req.Session != "" {
				put(m, s, true, req.Session, "session")
			} else {
				put(m, s, true, req.Runtime, "runtime")
			}
			put(m, s, true, req.Code, "code", "source", "python")
			if req.ExecutionID != "" {
				put(m, s, false, req.ExecutionID, "executionId")
			}
			return m, nil
		}})
	if err != nil {
		return api.ExecuteCodeResult{}, err
	}
	var out api.ExecuteCodeResult
	if e := decode(tool, res, &out); e != nil {
		return api.ExecuteCodeResult{}, e
	}
	if out.ExecutionID == "" {
		out.ExecutionID = req.ExecutionID
	}
	return out, nil
}
