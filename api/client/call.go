package client

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/colabdash/colabdash/api"
)

// replay says what may be done with a call whose request may have reached
// the server but whose reply was lost.
type replay int

const (
	// replaySafe: repeating the call cannot do harm (reads, deletes,
	// create-or-get): retry.
	replaySafe replay = iota
	// replayReattach: execute_code with an executionId. The identical
	// call reattaches, but whether and when to send it is the caller's
	// rule (state.ExecAnswered): the client sends it once and returns
	// what came back (a lost reply as it was classified, UNAVAILABLE
	// mostly).
	replayReattach
	// replayUnsafe: repeating could act twice (execute_code on a runtime
	// target, create_session without an id): report OutcomeUnknown.
	replayUnsafe
	// replayCreate: create_runtime. Sent once; every re-send (same
	// requestId) is the caller's (state.CreateAnswered), and a lost reply
	// is reported as OutcomeUnknown so the caller re-lists runtimes first.
	replayCreate
)

// callerRetries reports whether the caller, not the client, owns the
// re-sends of a call the server may have acted on.
func (r replay) callerRetries() bool { return r == replayCreate || r == replayReattach }

// callSpec describes one logical tool call.
type callSpec struct {
	tool    string
	timeout time.Duration
	replay  replay
	// args builds the argument map from the tool's live inputSchema.
	args func(s *toolSchema) (map[string]any, *api.Error)
	// requestID is create_runtime's requestId, reported on OutcomeUnknown.
	requestID string
	// notFoundOK: a NOT_FOUND from the tool itself means done (deletes).
	notFoundOK bool
	// schemaFree: args uses only documented, required names, so the call
	// need not wait for tools/list (it gets a nil schema while the list is
	// under way).
	schemaFree bool
}

// do runs a tool call with reconnects, one auth retry and backoff retries,
// and returns the successful, non-isError result. Each attempt goes
// through three steps: tryOnce (get a session, call the tool), endsCall
// (failures that end the call at once) and remedy (the one-time fixes
// that send the call again at once); what is left backs off (backOff).
func (c *Client) do(ctx context.Context, spec callSpec) (*mcp.CallToolResult, error) {
	r := &remedies{}
	bo := c.newBackOff()
	for attempt := 1; ; {
		if err := ctx.Err(); err != nil {
			return nil, ctxError(err)
		}
		cn, res, f, err := c.tryOnce(ctx, spec, attempt)
		if f.err == nil {
			return res, err
		}
		if e := c.endsCall(ctx, spec, f); e != nil {
			return nil, e
		}
		again, e := c.remedy(ctx, cn, spec, f, r)
		if e != nil {
			return nil, e
		}
		if again {
			continue
		}
		if e := c.backOff(ctx, spec, f, attempt, bo); e != nil {
			return nil, e
		}
		attempt++
	}
}

// newBackOff returns the exponential backoff of one call's retries:
// Options.BaseDelay doubling up to Options.MaxDelay, each wait randomized
// by ±50 %.
func (c *Client) newBackOff() *backoff.ExponentialBackOff {
	bo := backoff.NewExponentialBackOff()
	bo.InitialInterval = c.opts.BaseDelay
	bo.MaxInterval = c.opts.MaxDelay
	bo.Multiplier = 2
	bo.RandomizationFactor = 0.5
	bo.Reset()
	return bo
}

// tryOnce makes attempt number attempt: it gets a session and calls the
// tool on it. A zero failure (f.err nil) means the call is over, with res
// and err its outcome: a result, a NOT_FOUND that means done (nil, nil),
// or a closed client or cancelled connect (nil, err). Otherwise f is the
// attempt's failure, named after the tool and logged, and cn the session
// it was made on (nil when none could be had).
func (c *Client) tryOnce(ctx context.Context, spec callSpec, attempt int) (*conn, *mcp.CallToolResult, failure, error) {
	cn, aerr := c.getConn(ctx)
	start := time.Now()
	var f failure
	if aerr != nil {
		if aerr == errClosed || aerr.Code == api.Cancelled && ctx.Err() != nil {
			return cn, nil, failure{}, withTool(aerr, spec.tool)
		}
		f = failure{err: aerr, unauthenticated: aerr.HTTPStatus == 401}
	} else {
		var res *mcp.CallToolResult
		if res, f = c.callOn(ctx, cn, spec, attempt, start); f.err == nil {
			return cn, res, f, nil
		}
	}
	if c.isClosed() {
		return cn, nil, failure{}, withTool(errClosed, spec.tool)
	}
	f.err = withTool(f.err, spec.tool)
	c.logFailure("mcp call failed", spec.tool, attempt, time.Since(start), f)
	return cn, nil, f, nil
}

// callOn calls the tool on the session cn. A success, and a NOT_FOUND
// from the tool of a call for which that means done (deletes), come back
// with a zero failure; a failure that dropped the session invalidates cn
// so that the next attempt opens a fresh one.
func (c *Client) callOn(ctx context.Context, cn *conn, spec callSpec, attempt int, start time.Time) (*mcp.CallToolResult, failure) {
	if toolsEarly(ctx) {
		c.startTools(cn)
	}
	res, f := c.attempt(ctx, cn, spec)
	switch {
	case f.err == nil:
		c.log.Debug("mcp call", "tool", spec.tool, "attempt", attempt, "duration", time.Since(start))
		return res, f
	case spec.notFoundOK && f.fromTool && f.err.Code == api.NotFound:
		c.log.Debug("mcp call: already gone", "tool", spec.tool, "attempt", attempt)
		return nil, failure{}
	}
	if f.dropped {
		c.invalidate(cn)
	}
	return nil, f
}

// endsCall returns the error that ends the call after the failure f
// without any retry: the caller's context is done, the failure is final,
// or the reply was lost on a call that must not be repeated blindly
// (lostIsUnknown). It returns nil when the call may go on.
func (c *Client) endsCall(ctx context.Context, spec callSpec, f failure) *api.Error {
	switch {
	case ctx.Err() != nil:
		return withTool(ctxError(ctx.Err()), spec.tool)
	case f.final:
		return f.err
	case f.lost && lostIsUnknown(spec.replay, f.err.Code):
		return c.outcomeUnknown(spec, f.err)
	}
	return nil
}

// lostIsUnknown says whether a reply lost after the request was sent
// (with the error code code) is reported as OutcomeUnknown: always for a
// call that could act twice, and for create_runtime unless its deadline
// passed (then the identical request, same requestId, is sent again).
func lostIsUnknown(rp replay, code api.Code) bool {
	switch rp {
	case replayUnsafe:
		return true
	case replayCreate:
		return code != api.DeadlineExceeded
	}
	return false
}

// remedies records which one-time remedies a call has used.
type remedies struct {
	// initWait: waited once for the initialized notification.
	initWait bool
	// schema: waited once for tools/list to send the live argument names.
	schema bool
	// reconnected: opened a fresh session once.
	reconnected bool
	// auth: let Options.OnUnauthenticated refresh the token once.
	auth bool
}

// remedy applies the first one-time remedy that fits the failure f and
// has not been used yet; again reports that the call is sent again at
// once (no backoff). A non-nil error ends the call: the caller's context
// ended during the remedy, or a second dropped session.
func (c *Client) remedy(ctx context.Context, cn *conn, spec callSpec, f failure, r *remedies) (again bool, err *api.Error) {
	// Sent before the classic handshake's initialized notification was
	// answered and refused by a strict server: send it again after.
	if f.beforeInit && !r.initWait && spec.replay != replayUnsafe {
		r.initWait = true
		select {
		case <-cn.initDone:
			return true, nil
		case <-ctx.Done():
			return false, withTool(ctxError(ctx.Err()), spec.tool)
		}
	}
	// Sent with the documented argument names before tools/list
	// answered, and refused (INVALID_ARGUMENT, or a missing
	// Mcp-Param header): send it again with the live schema.
	if f.unlisted && !r.schema && cn != nil {
		r.schema = true
		if lf := c.waitTools(ctx, cn); lf == nil {
			return true, nil
		}
	}
	// The session is gone: open a fresh one and retry once.
	if f.dropped && !f.lost {
		if r.reconnected {
			return false, f.err
		}
		r.reconnected = true
		return true, nil
	}
	// HTTP 401: let auth refresh the token once.
	if f.unauthenticated && !r.auth && c.opts.OnUnauthenticated != nil {
		r.auth = true
		if c.opts.OnUnauthenticated(ctx) {
			return true, nil
		}
	}
	return false, nil
}

// backOff waits before the next attempt after the failure f of attempt
// number attempt: the next backoff step, or the server's RetryDelay when
// longer, announced through Options.OnRetry. It returns the error that
// ends the call instead: f's own when f is not retryable, the attempts
// are used up or the server asks for a wait over Options.MaxRetryDelay;
// the caller's context's when it ends during the wait.
func (c *Client) backOff(ctx context.Context, spec callSpec, f failure, attempt int, bo *backoff.ExponentialBackOff) *api.Error {
	if !c.retryable(spec, f) || attempt >= c.opts.MaxAttempts {
		return f.err
	}
	wait := bo.NextBackOff()
	if f.err.RetryDelay > c.opts.MaxRetryDelay {
		return f.err
	}
	wait = max(wait, f.err.RetryDelay)
	if c.opts.OnRetry != nil {
		c.opts.OnRetry(RetryEvent{Tool: spec.tool, Attempt: attempt, MaxAttempts: c.opts.MaxAttempts,
			Wait: wait, At: c.opts.Now().Add(wait), Err: f.err})
	}
	c.log.Debug("mcp retry", "tool", spec.tool, "attempt", attempt, "wait", wait, "code", string(f.err.Code))
	if err := c.opts.Sleep(ctx, wait); err != nil {
		return withTool(ctxError(err), spec.tool)
	}
	return nil
}

// retryable decides whether a failed attempt is retried with backoff:
// never a create_runtime or an execute_code with an executionId (their
// re-sends are the caller's: one layer owns them), nor a cut-off.
func (c *Client) retryable(spec callSpec, f failure) bool {
	e := f.err
	if e.OutcomeUnknown || spec.replay.callerRetries() || e.Code == api.DeadlineExceeded {
		return false
	}
	if f.lost { // replay-safe calls only (others returned earlier)
		return true
	}
	return e.Retryable()
}

func (c *Client) outcomeUnknown(spec callSpec, cause *api.Error) *api.Error {
	e := &api.Error{
		Code:           api.Unknown,
		OutcomeUnknown: true,
		Tool:           spec.tool,
		Err:            cause,
		Message: fmt.Sprintf("the connection was lost after %s was sent (%s); it may or may not have taken effect",
			spec.tool, cause.Message),
	}
	if spec.requestID != "" {
		e.Metadata = map[string]string{"requestId": spec.requestID}
		e.Message = "the connection was lost after create_runtime was sent (" + cause.Message +
			"); a runtime may have been created: list runtimes before trying again"
	}
	return e
}

func withTool(e *api.Error, tool string) *api.Error {
	if e.Tool == tool {
		return e
	}
	cp := *e
	cp.Tool = tool
	return &cp
}

// attempt runs one CallTool on cn.
func (c *Client) attempt(ctx context.Context, cn *conn, spec callSpec) (*mcp.CallToolResult, failure) {
	var schema *toolSchema
	listed := true
	if spec.schemaFree {
		listed = cn.listed()
	} else if f := c.waitTools(ctx, cn); f != nil {
		if f == cn.toolsErr {
			c.invalidate(cn) // the next attempt reconnects and lists again
		}
		return nil, *f
	}
	if listed && cn.toolsErr == nil {
		var ok bool
		if schema, ok = cn.tools[spec.tool]; !ok {
			return nil, failure{err: &api.Error{Code: api.Unimplemented, Tool: spec.tool,
				Message: "the server has no tool " + spec.tool}, answered: true}
		}
	}
	args, aerr := spec.args(schema)
	if aerr != nil {
		return nil, failure{err: aerr, answered: true}
	}
	beforeInit := false
	select {
	case <-cn.initDone:
	default:
		beforeInit = true
	}
	tr := &attemptTrace{}
	tctx := withTrace(ctx, tr)
	if spec.replay == replaySafe {
		tctx = withReplaySafe(tctx)
	}
	actx, cancel := context.WithTimeout(tctx, spec.timeout)
	defer cancel()
	defer context.AfterFunc(c.life, cancel)()
	res, err := cn.cs.CallTool(actx, &mcp.CallToolParams{Name: spec.tool, Arguments: args})
	if err != nil {
		f := c.classify(ctx, actx, spec.tool, spec.timeout, tr, err)
		// What a strict server says to a call that overtook the
		// notification: a plain refusal (JSON-RPC error, HTTP 400) that
		// names the initialization ("Received request before
		// initialization was complete", "Server not initialized"); any
		// other answer is the call's own and keeps its rules.
		f.beforeInit = beforeInit && f.answered && !f.fromToolResult && f.err.RetryDelay == 0 &&
			(f.err.HTTPStatus == 0 || f.err.HTTPStatus == 400) && !f.err.IsAuth() &&
			strings.Contains(strings.ToLower(err.Error()+" "+f.err.Message+" "+f.err.Raw), "initializ")
		f.unlisted = !listed && f.answered && f.err.Code == api.InvalidArgument
		if isVersionError(err) {
			// The server no longer speaks what this session does: forget
			// the remembered protocol and reconnect (probing) once.
			// (Not a refusal of the arguments nor of a call that
			// overtook the initialized notification: no tools/list, no
			// wait, on a session that is going away.)
			c.forgetProtocol()
			f.dropped, f.answered = true, false
			f.unlisted, f.beforeInit = false, false
		}
		return nil, f
	}
	if res == nil {
		return nil, failure{err: &api.Error{Code: api.Internal, Tool: spec.tool,
			Message: "malformed reply from " + spec.tool + ": empty result"}, lost: true}
	}
	if res.IsError {
		var sc []byte
		if res.StructuredContent != nil {
			sc, _ = json.Marshal(res.StructuredContent)
		}
		e := toolResultError(spec.tool, c.red(resultText(res)), []byte(c.red(string(sc))))
		return nil, failure{err: e, answered: true, fromTool: true, fromToolResult: true,
			unlisted: !listed && e.Code == api.InvalidArgument}
	}
	c.learnSecrets(res)
	return res, failure{}
}

// learnSecrets registers every secret-named field of a successful reply
// (the proxy token in each runtime's connectionInfo, and any token field
// a later server version adds) with the Redactor before the reply is
// decoded or shown anywhere. Every successful tool result passes here.
func (c *Client) learnSecrets(res *mcp.CallToolResult) {
	if res.StructuredContent != nil {
		c.opts.Redactor.AddFields(res.StructuredContent)
		if _, ok := res.StructuredContent.(map[string]any); ok {
			return
		}
	}
	for _, ct := range res.Content {
		t, ok := ct.(*mcp.TextContent)
		if !ok || !strings.HasPrefix(strings.TrimSpace(t.Text), "{") {
			continue
		}
		var v any
		if json.Unmarshal([]byte(t.Text), &v) == nil {
			c.opts.Redactor.AddFields(v)
		}
	}
}

// resultText joins the text blocks of a result.
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, ct := range res.Content {
		if t, ok := ct.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// decode reads a successful result into out: structuredContent (a map on
// the client side: JSON round trip), else JSON in the first text block.
// Failures are INTERNAL "malformed reply from <tool>: …"; the raw text is
// only in Error.Raw.
func decode(tool string, res *mcp.CallToolResult, out any) *api.Error {
	var raw []byte
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return malformed(tool, "structuredContent cannot be encoded", "")
		}
		raw = b
	} else {
		var text string
		found := false
		for _, ct := range res.Content {
			if t, ok := ct.(*mcp.TextContent); ok {
				text, found = t.Text, true
				break
			}
		}
		if !found {
			return malformed(tool, "no structuredContent and no text content", "")
		}
		raw = []byte(strings.TrimSpace(text))
		if len(raw) == 0 {
			return malformed(tool, "no structuredContent and an empty text", "")
		}
		if !json.Valid(raw) {
			return malformed(tool, "no structuredContent and the text is not JSON", text)
		}
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return malformed(tool, jsonProblem(err), string(raw))
	}
	return nil
}

func malformed(tool, why, raw string) *api.Error {
	return &api.Error{Code: api.Internal, Tool: tool, Message: "malformed reply from " + tool + ": " + why, Raw: raw}
}

// jsonProblem renders a json.Unmarshal error in one short line.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if ok := asType(err, &te); ok {
		field := te.Field
		if field == "" {
			field = "the reply"
		}
		return fmt.Sprintf("%s is a JSON %s, expected %s", field, te.Value, te.Type.String())
	}
	return api.OneLine(err.Error(), 120)
}

func asType[T error](err error, target *T) bool {
	t, ok := err.(T)
	if ok {
		*target = t
	}
	return ok
}
