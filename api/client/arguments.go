package client

import (
	"slices"

	"github.com/colabdash/colabdash/api"
)

// Argument is one top-level argument the client sends to a tool even when
// the live input schema does not declare it (put with required set in
// tools.go): a server that does not declare it refuses the call.
// Arguments the client leaves out when undeclared (requestId,
// executionId, allowMissing, version) are Optional.
//
// Name is the spelling sent when the schema declares none of Spellings;
// Spellings are every top-level property name the client would use
// instead, in its order of preference (camelCase, snake_case, alternates).
type Argument struct {
	Tool      string
	Name      string
	Spellings []string
	// Optional arguments are sent only when the schema declares them.
	Optional bool
}

// Arguments returns every top-level argument the client's calls send, by
// tool (api.ToolNames order); a tool without arguments has no entry.
// TestArgumentsAreWhatCallsSend checks it against what the calls put on
// the wire. The slice is new on every call.
func Arguments() []Argument {
	arg := func(tool, name string, alt ...string) Argument {
		return Argument{Tool: tool, Name: name, Spellings: append([]string{name, snake(name)}, alt...)}
	}
	opt := func(tool, name string) Argument {
		a := arg(tool, name)
		a.Optional = true
		return a
	}
	return []Argument{
		arg(api.ToolGetRuntime, "name"),
		// runtimeSpec goes inside "runtime" when the schema has it, else
		// at the top (a flattened schema).
		{Tool: api.ToolCreateRuntime, Name: "runtime", Spellings: []string{"runtime", "runtimeSpec", "runtime_spec"}},
		opt(api.ToolCreateRuntime, "requestId"),
		arg(api.ToolCreateRuntime, "runtimeId"),
		arg(api.ToolDeleteRuntime, "name"),
		opt(api.ToolDeleteRuntime, "allowMissing"),
		arg(api.ToolCreateSession, "parent"),
		arg(api.ToolCreateSession, "sessionId"),
		arg(api.ToolListSessions, "parent"),
		arg(api.ToolDeleteSession, "name"),
		arg(api.ToolExecuteCode, "session"),
		arg(api.ToolExecuteCode, "runtime"),
		arg(api.ToolExecuteCode, "code", "source", "python"),
		opt(api.ToolExecuteCode, "executionId"),
	}
}

// ToolsCheck is how the tools a server listed compare with what the
// client calls: Missing are the tools of api.ToolNames the server did not
// list (in that order); Undeclared the arguments the client sends that
// the listed schema declares under none of their spellings (those calls
// fail); Dropped the Optional arguments the schema does not declare, left
// out of the calls (create_runtime without requestId is not idempotent).
type ToolsCheck struct {
	Missing    []string
	Undeclared []Argument
	Dropped    []Argument
}

// CheckTools compares tools (as Tools returns them) with the ten tools
// and the Arguments of this client. A tool that lists no properties at
// all declares none of its arguments.
func CheckTools(tools []ToolInfo) ToolsCheck {
	byName := map[string]ToolInfo{}
	for _, t := range tools {
		byName[t.Name] = t
	}
	var out ToolsCheck
	for _, name := range api.ToolNames() {
		if _, ok := byName[name]; !ok {
			out.Missing = append(out.Missing, name)
		}
	}
	for _, a := range Arguments() {
		t, ok := byName[a.Tool]
		if !ok || slices.ContainsFunc(a.Spellings, func(s string) bool { return slices.Contains(t.Properties, s) }) {
			continue
		}
		if a.Optional {
			out.Dropped = append(out.Dropped, a)
		} else {
			out.Undeclared = append(out.Undeclared, a)
		}
	}
	return out
}
