package api

// DefaultEndpoint is the Colab MCP server, the one
// definition the client, the config file defaults and the CLI flag use.
const DefaultEndpoint = "https://colaboratory.googleapis.com/mcp"

// Tool names of the Colab MCP server. These are the only
// spellings of the ten tools in the code base: the client calls them, the
// emulator serves them, the logging wrapper and the dashboard's event log
// name them.
const (
	ToolListRuntimeSpecs = "list_runtime_specs"
	ToolGetSubscription  = "get_subscription"
	ToolListRuntimes     = "list_runtimes"
	ToolGetRuntime       = "get_runtime"
	ToolCreateRuntime    = "create_runtime"
	ToolDeleteRuntime    = "delete_runtime"
	ToolCreateSession    = "create_session"
	ToolListSessions     = "list_sessions"
	ToolDeleteSession    = "delete_session"
	ToolExecuteCode      = "execute_code"
)

// ToolNames returns the ten Colab MCP tool names in the order the server's
// tools/list returns them. The slice is new on every
// call.
func ToolNames() []string {
	return []string{
		ToolListRuntimeSpecs, ToolGetSubscription, ToolListRuntimes, ToolGetRuntime, ToolCreateRuntime,
		ToolDeleteRuntime, ToolCreateSession, ToolListSessions, ToolDeleteSession, ToolExecuteCode,
	}
}
