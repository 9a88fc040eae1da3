package colabfake

// The MCP tools' wire types and registration: the input and output
// schemas published in tools/list, addTool (validation, decoding, output)
// and runTool (call counts, tool-level faults). The tool bodies are in
// runtimes.go and sessions.go.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/colabdash/colabdash/api"
)

// --- input wire types (lowerCamelCase, as the docs' proto-JSON) ---

type emptyIn struct{}

type nameIn struct {
	Name string `json:"name" jsonschema:"Required. The resource name, e.g. runtimes/{runtime_id}."`
}

type keyWire struct {
	Variant     string `json:"variant" jsonschema:"Required. VARIANT_CPU, VARIANT_GPU or VARIANT_TPU."`
	Accelerator string `json:"accelerator" jsonschema:"Required. Accelerator model name, e.g. T4, L4, A100, V6E1; NONE for CPU runtime specs."`
	Shape       string `json:"shape" jsonschema:"Required. SHAPE_STANDARD or SHAPE_HIGHMEM."`
}

type runtimeIn struct {
	RuntimeSpec keyWire `json:"runtimeSpec" jsonschema:"Required. A runtime spec from list_runtime_specs that the user is eligible for."`
	Version     string  `json:"version,omitempty" jsonschema:"Optional. Runtime image version; empty means latest."`
}

type createRuntimeIn struct {
	Runtime   runtimeIn `json:"runtime" jsonschema:"Required. Specifications for the runtime to assign; only runtimeSpec and version apply."`
	RequestID string    `json:"requestId,omitempty" jsonschema:"Optional. A UUID4 that makes the request idempotent: repeating the identical call waits for or returns the same runtime."`
	RuntimeID string    `json:"runtimeId,omitempty" jsonschema:"Optional. The runtime ID; random when unset. RFC 1034: 1-63 characters, lower-case letters, digits and hyphens, starting with a letter and ending with a letter or digit."`
}

type deleteRuntimeIn struct {
	Name         string `json:"name" jsonschema:"Required. The name of the runtime to unassign. Format: runtimes/{runtime_id}."`
	AllowMissing bool   `json:"allowMissing,omitempty" jsonschema:"Optional. If true and the runtime is not found, the request succeeds and does nothing."`
}

type sessionWire struct {
	Name string `json:"name,omitempty" jsonschema:"Identifier. Format: runtimes/{runtime}/sessions/{session}."`
}

type createSessionIn struct {
	Parent          string       `json:"parent" jsonschema:"Required. The runtime on which to open the session. Format: runtimes/{runtime}."`
	SessionID       string       `json:"sessionId,omitempty" jsonschema:"Optional. The ID of the session, unique within the runtime (RFC 1034). If unset, the server generates one. If a session with this ID is already open, it is returned."`
	LegacySessionID string       `json:"session_id,omitempty" jsonschema:"Optional. The ID of the session (RFC 1034); a random UUID when omitted."`
	Session         *sessionWire `json:"session,omitempty" jsonschema:"Optional. The session to open."`
}

type parentIn struct {
	Parent string `json:"parent" jsonschema:"Required. The runtime whose sessions should be listed. Format: runtimes/{runtime}."`
}

type executeCodeIn struct {
	Session     string `json:"session,omitempty" jsonschema:"The session to run in (runtimes/{runtime_id}/sessions/{session_id}); created if it does not exist. Exactly one of session and runtime."`
	Runtime     string `json:"runtime,omitempty" jsonschema:"The runtime to run in (runtimes/{runtime_id}); the code runs in a new session named in the result. Exactly one of session and runtime."`
	Code        string `json:"code" jsonschema:"Required. The Python code to run."`
	ExecutionID string `json:"executionId,omitempty" jsonschema:"Optional. A new UUID per execution; repeating the identical call (same session and executionId) after DEADLINE_EXCEEDED or UNAVAILABLE reattaches to it."`
}

// --- output wire types (for the published outputSchema only) ---

type connectionInfoWire struct {
	URL        string `json:"url,omitempty" jsonschema:"The authenticated URL that can be used to connect to the runtime."`
	Token      string `json:"token,omitempty" jsonschema:"The runtime proxy token, a short-lived credential; send it as X-Colab-Runtime-Proxy-Token."`
	ExpireTime string `json:"expireTime,omitempty" jsonschema:"The expiration time of the runtime proxy token (RFC 3339)."`
}

type runtimeWire struct {
	Name           string              `json:"name,omitempty" jsonschema:"Identifier. Format: runtimes/{runtime_id}."`
	RuntimeSpec    keyWire             `json:"runtimeSpec,omitempty" jsonschema:"The runtime spec key."`
	ConnectionInfo *connectionInfoWire `json:"connectionInfo,omitempty" jsonschema:"Output only. The connection info used to authenticate to the runtime."`
	Version        string              `json:"version,omitempty" jsonschema:"Runtime image version; empty means latest."`
}

type subscriptionWire struct {
	Name string `json:"name,omitempty" jsonschema:"Identifier; always subscription."`
	Tier string `json:"tier,omitempty" jsonschema:"SUBSCRIPTION_TIER_FREE, SUBSCRIPTION_TIER_PRO or SUBSCRIPTION_TIER_PRO_PLUS."`
}

type runtimeSpecWire struct {
	Key      keyWire `json:"key,omitempty"`
	Eligible bool    `json:"eligible,omitempty" jsonschema:"Whether the requesting user is eligible for the runtime spec."`
}

type listRuntimeSpecsWire struct {
	RuntimeSpecs []runtimeSpecWire `json:"runtimeSpecs,omitempty"`
}

type listRuntimesWire struct {
	Runtimes []runtimeWire `json:"runtimes,omitempty" jsonschema:"The list of runtimes assigned to the requesting user."`
}

type listSessionsWire struct {
	Sessions []sessionWire `json:"sessions,omitempty" jsonschema:"The sessions currently open on the runtime."`
}

type errorInfoWire struct {
	Reason   string            `json:"reason,omitempty"`
	Domain   string            `json:"domain,omitempty"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

type executeErrorWire struct {
	Name      string   `json:"name,omitempty" jsonschema:"The exception class, e.g. NameError."`
	Value     string   `json:"value,omitempty" jsonschema:"The exception message."`
	Traceback []string `json:"traceback,omitempty" jsonschema:"Formatted traceback, one frame per entry."`
}

type richOutputWire struct {
	Index     int            `json:"index,omitempty"`
	MimeTypes []string       `json:"mimeTypes,omitempty"`
	FilePath  string         `json:"filePath,omitempty"`
	SizeBytes string         `json:"sizeBytes,omitempty"`
	ErrorInfo *errorInfoWire `json:"errorInfo,omitempty"`
}

type executeCodeResultWire struct {
	ExecutionID        string            `json:"executionId,omitempty" jsonschema:"Echoed from the request; empty when not resumable."`
	Session            string            `json:"session,omitempty" jsonschema:"The session that ran the code."`
	ExecutionCount     int               `json:"executionCount,omitempty" jsonschema:"Jupyter In[N]; informational only."`
	Stdout             string            `json:"stdout,omitempty"`
	Stderr             string            `json:"stderr,omitempty"`
	Result             string            `json:"result,omitempty" jsonschema:"text/plain repr of the last expression, if any."`
	ExecutionError     *executeErrorWire `json:"executionError,omitempty" jsonschema:"Set when the code raised."`
	OutputTruncated    bool              `json:"outputTruncated,omitempty"`
	RichOutputsDropped bool              `json:"richOutputsDropped,omitempty" jsonschema:"Deprecated: use richOutputs."`
	RichOutputs        []richOutputWire  `json:"richOutputs,omitempty"`
}

// inputSchema infers T's schema (additionalProperties false: unknown
// argument names are rejected, as a strict proto-JSON server would) and
// drops the named properties.
func inputSchema[T any](drop ...string) *jsonschema.Schema {
	sc, err := jsonschema.For[T](nil)
	if err != nil {
		panic(err)
	}
	for _, d := range drop {
		delete(sc.Properties, d)
	}
	sc.PropertyOrder = nil
	dropNull(sc)
	return sc
}

// renameInputs renames the properties of tool's input schema sc that
// Options.RenamedInputs names ("tool.property" → new name), in its
// required list too, and returns the renames it made (new name → the
// field's own), for reading a call's arguments.
func renameInputs(sc *jsonschema.Schema, tool string, renamed map[string]string) map[string]string {
	back := map[string]string{}
	for key, to := range renamed {
		from, ok := strings.CutPrefix(key, tool+".")
		if !ok || sc.Properties[from] == nil {
			continue
		}
		sc.Properties[to] = sc.Properties[from]
		delete(sc.Properties, from)
		back[to] = from
		for i, r := range sc.Required {
			if r == from {
				sc.Required[i] = to
			}
		}
	}
	return back
}

// outputSchema infers T's schema and opens it up: proto3 JSON omits
// default values, so no output field is required, and servers add fields,
// so additionalProperties is left unconstrained. This also lets faults put
// unknown enum values or absent fields into outputs.
func outputSchema[T any]() *jsonschema.Schema {
	sc, err := jsonschema.For[T](nil)
	if err != nil {
		panic(err)
	}
	loosen(sc)
	dropNull(sc)
	return sc
}

// dropNull turns the ["null", T] types jsonschema-go infers for Go
// pointers, slices and maps into plain T, as proto-JSON schemas have
// them.
func dropNull(sc *jsonschema.Schema) {
	if sc == nil {
		return
	}
	if len(sc.Types) == 2 && sc.Types[0] == "null" {
		sc.Type, sc.Types = sc.Types[1], nil
	}
	for _, p := range sc.Properties {
		dropNull(p)
	}
	dropNull(sc.Items)
	dropNull(sc.AdditionalProperties)
}

func loosen(sc *jsonschema.Schema) {
	if sc == nil {
		return
	}
	sc.Required = nil
	sc.AdditionalProperties = nil
	for name, p := range sc.Properties {
		if name == "expireTime" {
			p.Format = "date-time"
		}
		loosen(p)
	}
	loosen(sc.Items)
}

func boolPtr(b bool) *bool { return &b }

// handlerFunc is a tool body: it gets the decoded input and whether an
// injected deadline fault cut the call short (see FaultDeadline), and
// returns the output value or a Google error.
type handlerFunc[In any] func(ctx context.Context, in In, deadline bool) (any, *gErr)

// addTool registers one tool with go-sdk's raw AddTool. The arguments are
// validated against in (a failure is an isError result "validating
// \"arguments\": …", as go-sdk's typed AddTool words it) and decoded with
// encoding/json; an output value becomes structuredContent plus the same
// JSON in a text block. The typed AddTool did the same through go-sdk's
// decoder, which allocates a 32 KiB buffer per JSON value: three of them
// per call (arguments validated, decoded, output validated), a third of
// what the emulator allocated per tool call.
func addTool[In any](s *Server, t *mcp.Tool, in *jsonschema.Schema, out *jsonschema.Schema, fn handlerFunc[In]) {
	if slices.Contains(s.opts.OmitTools, t.Name) {
		return
	}
	back := renameInputs(in, t.Name, s.opts.RenamedInputs)
	t.InputSchema = in
	t.OutputSchema = out
	resolved, err := in.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("colabfake: %s input schema: %v", t.Name, err))
	}
	s.mcp.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		raw := req.Params.Arguments
		if len(raw) == 0 || string(raw) == "null" {
			raw = json.RawMessage("{}")
		}
		var args map[string]any
		if err := json.Unmarshal(raw, &args); err != nil {
			return errorResult(fmt.Sprintf("validating \"arguments\": %v", err)), nil
		}
		if err := resolved.Validate(args); err != nil {
			return errorResult(fmt.Sprintf("validating \"arguments\": %v", err)), nil
		}
		if len(back) > 0 {
			// A renamed property is this server's name for the field.
			for to, from := range back {
				if v, ok := args[to]; ok {
					delete(args, to)
					args[from] = v
				}
			}
			if raw, err = json.Marshal(args); err != nil {
				return nil, err
			}
		}
		var input In
		if err := json.Unmarshal(raw, &input); err != nil {
			return errorResult(err.Error()), nil
		}
		res, v, err := runTool(ctx, s, t.Name, input, fn)
		if err != nil || res != nil {
			return res, err
		}
		if v == nil {
			return &mcp.CallToolResult{Content: []mcp.Content{}}, nil
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("marshaling output: %w", err)
		}
		return &mcp.CallToolResult{StructuredContent: json.RawMessage(b), Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
	})
}

// runTool counts the call, applies a tool-level fault and runs fn. It
// returns a finished result (faults, errors), a Go error for a JSON-RPC
// error, or the output value.
func runTool[In any](ctx context.Context, s *Server, name string, input In, fn handlerFunc[In]) (*mcp.CallToolResult, any, error) {
	s.mu.Lock()
	s.calls[name]++
	s.mu.Unlock()
	f := s.takeFault(levelTool, "tools/call", name, true, false)
	if f != nil {
		if err := f.wait(ctx); err != nil {
			return nil, nil, err
		}
	}
	deadline := false
	if f != nil {
		switch f.Kind {
		case FaultToolError:
			return errorResult(f.Text), nil, nil
		case FaultJSONRPCError:
			return nil, nil, &jsonrpc.Error{Code: f.RPCCode, Message: f.Message, Data: f.Data}
		case FaultOperationError:
			code := f.Code
			if code == "" {
				code = api.FailedPrecondition
			}
			msg := f.Message
			if msg == "" {
				msg = api.DefaultMessage(code, 0)
			}
			e := &gErr{code: code, msg: msg, reason: f.Reason, retryDelay: f.RetryDelay, quota: f.QuotaFailure}
			return nil, e.operationValue(), nil
		case FaultOutput:
			return &mcp.CallToolResult{
				StructuredContent: json.RawMessage(f.Output),
				Content:           []mcp.Content{&mcp.TextContent{Text: string(f.Output)}},
			}, nil, nil
		case FaultDeadline:
			deadline = true
		}
	}
	v, gerr := fn(ctx, input, deadline)
	if deadline {
		code := f.Code
		if code == "" {
			code = api.DeadlineExceeded
		}
		msg := f.Message
		if msg == "" {
			msg = "The operation did not finish before its deadline; repeat the identical call to wait for it."
		}
		e := &gErr{code: code, msg: msg, reason: f.Reason, retryDelay: f.RetryDelay, quota: f.QuotaFailure}
		return errorResult(e.envelope()), nil, nil
	}
	if gerr != nil {
		if gerr.operation {
			return nil, gerr.operationValue(), nil
		}
		return errorResult(gerr.envelope()), nil, nil
	}
	return nil, v, nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Server) addTools() {
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: boolPtr(false)}
	addTool(s, &mcp.Tool{Name: api.ToolListRuntimeSpecs, Annotations: ro,
		Description: "Lists the Colab runtime specs (combinations of variant, accelerator and shape) and whether the user is eligible for each. Call it before create_runtime to pick a spec."},
		inputSchema[emptyIn](), outputSchema[listRuntimeSpecsWire](), s.listRuntimeSpecs)
	addTool(s, &mcp.Tool{Name: api.ToolGetSubscription, Annotations: ro,
		Description: "Returns the user's Colab subscription tier: free, Pro or Pro+. Compare tiers at https://colab.research.google.com/signup."},
		inputSchema[emptyIn](), outputSchema[subscriptionWire](), s.getSubscription)
	addTool(s, &mcp.Tool{Name: api.ToolListRuntimes, Annotations: ro,
		Description: "Lists the user's Colab runtimes with their specs and connectionInfo. Look here for a runtime to reuse before calling create_runtime."},
		inputSchema[emptyIn](), outputSchema[listRuntimesWire](), s.listRuntimes)
	addTool(s, &mcp.Tool{Name: api.ToolGetRuntime, Annotations: ro,
		Description: "Gets a runtime (runtimes/{runtime_id}) with its spec and connectionInfo. The proxy token in connectionInfo expires about an hour after it is issued; call this tool again for a new one. A missing or expired token returns 404 from the runtime proxy."},
		inputSchema[nameIn](), outputSchema[runtimeWire](), s.getRuntime)
	addTool(s, &mcp.Tool{Name: api.ToolCreateRuntime, Annotations: &mcp.ToolAnnotations{DestructiveHint: boolPtr(false), OpenWorldHint: boolPtr(false)},
		Description: "Creates a Colab runtime and waits until it is ready. Creation is slow and quota-limited: reuse a runtime from list_runtimes when possible, and use a new session (create_session) instead of a new runtime to isolate state. Set runtime.runtimeSpec to an eligible spec from list_runtime_specs and pass a new UUID as requestId for each runtime. DEADLINE_EXCEEDED means the runtime is still being created; repeating the identical call waits for it. FAILED_PRECONDITION means the user can't get this runtime now (no capacity, usage quota, too many active runtimes). RESOURCE_EXHAUSTED is the rate limit: nothing was created; retry with exponential backoff."},
		inputSchema[createRuntimeIn](), outputSchema[runtimeWire](), s.createRuntime)
	delDrop := []string{}
	if s.opts.NoAllowMissing {
		delDrop = append(delDrop, "allowMissing")
	}
	addTool(s, &mcp.Tool{Name: api.ToolDeleteRuntime, Annotations: &mcp.ToolAnnotations{DestructiveHint: boolPtr(true), IdempotentHint: true, OpenWorldHint: boolPtr(false)},
		Description: "Deletes a runtime (runtimes/{runtime_id}) and everything on it: files, sessions and their state. This can't be undone. Delete a runtime only when the user asks, or to free one you created after create_runtime failed for too many active runtimes; to reset state, close a session with delete_session instead."},
		inputSchema[deleteRuntimeIn](delDrop...), outputSchema[emptyIn](), s.deleteRuntime)
	sessDrop := "session_id"
	if s.opts.LegacySessionIDSchema {
		sessDrop = "sessionId"
	}
	addTool(s, &mcp.Tool{Name: api.ToolCreateSession, Annotations: &mcp.ToolAnnotations{DestructiveHint: boolPtr(false), IdempotentHint: true, OpenWorldHint: boolPtr(false)},
		Description: "Opens a Jupyter kernel session on a runtime (runtimes/{runtime_id}) and returns its name runtimes/{runtime_id}/sessions/{session_id}. execute_code calls that target the session share its kernel state. Opening a session with the ID of an open one returns that session, so this is safe to retry. Reuse sessions and close them with delete_session when done: each open session holds kernel memory."},
		inputSchema[createSessionIn](sessDrop), outputSchema[sessionWire](), s.createSession)
	addTool(s, &mcp.Tool{Name: api.ToolListSessions, Annotations: ro,
		Description: "Lists the open sessions on a runtime, including ones you didn't open, such as the user's notebooks. Use it to find one of yours to reuse or close; close only sessions you opened. Returns names only, not what is running in them."},
		inputSchema[parentIn](), outputSchema[listSessionsWire](), s.listSessions)
	addTool(s, &mcp.Tool{Name: api.ToolDeleteSession, Annotations: &mcp.ToolAnnotations{DestructiveHint: boolPtr(true), OpenWorldHint: boolPtr(false)},
		Description: "Closes a session (runtimes/{runtime_id}/sessions/{session_id}), discarding its kernel state and aborting any running execute_code in it. Files it wrote stay on the runtime, and the runtime keeps running."},
		inputSchema[nameIn](), outputSchema[emptyIn](), s.deleteSession)
	addTool(s, &mcp.Tool{Name: api.ToolExecuteCode, Annotations: &mcp.ToolAnnotations{DestructiveHint: boolPtr(true), OpenWorldHint: boolPtr(true)},
		Description: "Runs Python in a runtime's Jupyter kernel and returns stdout, stderr, the value of the last expression (result) and any exception (executionError). Only text is returned. Target exactly one of session (runs in that session, created if missing) or runtime (runs in a new session named in the result). Calls cut off after 600 s fail with DEADLINE_EXCEEDED while the code keeps running: repeat the identical call (same session and executionId) to reattach. Use a fresh executionId per execution: once a result was returned, the same executionId runs the code again. (Emulated by colabdash: no Python runs.)"},
		inputSchema[executeCodeIn](), outputSchema[executeCodeResultWire](), s.executeCode)
}
