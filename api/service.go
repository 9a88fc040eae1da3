package api

import "context"

// Service is the Colab API as the dashboard and the commands use it: one
// method per MCP tool of the Colab MCP server. The MCP
// implementation is api/client; tests may use any fake.
//
// Every method returns an *Error for every failure the server or the
// network produced (errors.As(err, new(*api.Error))), and the context's
// error when ctx ended first. Implementations are safe for concurrent use.
type Service interface {
	// GetSubscription calls get_subscription: the user's tier.
	GetSubscription(ctx context.Context) (Subscription, error)
	// ListRuntimeSpecs calls list_runtime_specs: every spec and whether the
	// user is eligible for it.
	ListRuntimeSpecs(ctx context.Context) ([]RuntimeSpec, error)
	// ListRuntimes calls list_runtimes. Entries without a name are dropped; an
	// absent list is an empty one.
	ListRuntimes(ctx context.Context) ([]Runtime, error)
	// GetRuntime calls get_runtime for "runtimes/{id}"; it also renews the
	// runtime's proxy token. NOT_FOUND when the runtime is gone.
	GetRuntime(ctx context.Context, name string) (Runtime, error)
	// CreateRuntime calls create_runtime and waits until the runtime is
	// ready. It may take minutes; see CreateRuntimeRequest for idempotency.
	CreateRuntime(ctx context.Context, req CreateRuntimeRequest) (Runtime, error)
	// DeleteRuntime calls delete_runtime. A runtime already gone counts as
	// deleted (NOT_FOUND is success).
	DeleteRuntime(ctx context.Context, name string) error
	// CreateSession calls create_session on parent ("runtimes/{id}");
	// sessionID is optional (RFC 1034) and makes the call create-or-get.
	CreateSession(ctx context.Context, parent, sessionID string) (Session, error)
	// ListSessions calls list_sessions on parent ("runtimes/{id}"),
	// including sessions the dashboard did not open.
	ListSessions(ctx context.Context, parent string) ([]Session, error)
	// DeleteSession calls delete_session on
	// "runtimes/{runtime}/sessions/{session}".
	DeleteSession(ctx context.Context, name string) error
	// ExecuteCode calls execute_code; see ExecuteCodeRequest. It may run
	// for over 600 s and reattaches by itself.
	ExecuteCode(ctx context.Context, req ExecuteCodeRequest) (ExecuteCodeResult, error)
	// Close releases the connection.
	Close() error
}
