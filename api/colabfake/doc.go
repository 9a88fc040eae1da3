// Package colabfake is colabdash's embedded Colab emulator: a real MCP
// server (go-sdk's mcp.NewServer, mcp.AddTool, mcp.NewStreamableHTTPHandler)
// that serves the ten tools of colaboratory.googleapis.com/mcp with the
// documented lowerCamelCase schemas, over streamable HTTP on loopback only.
// It backs `colabdash --demo` style runs and every client test; it never
// reaches Google.
//
// # Behaviour
//
//   - Runtimes have proxy tokens that expire Options.TokenTTL (default 1 h)
//     after issue; get_runtime issues a new random token with expireTime =
//     now+TTL, list_runtimes does not. connectionInfo.url is the
//     emulator's own runtime proxy, "http://127.0.0.1:PORT/proxy/<id>/"
//     (ProxyHandler; a fake "https://8080-m-s-<id>.prod.colab.dev" when
//     the emulator is not listening itself). All token time comes from
//     Options.Now (a Clock in tests); the emulator never sleeps on it.
//   - The runtime proxy checks the X-Colab-Runtime-Proxy-Token header (or
//     the colab-runtime-proxy-token query parameter) against the runtime's
//     current token and answers 404 with an empty body when it is
//     missing, wrong or expired, as Colab does. Behind it is a small
//     Jupyter server over a per-runtime file tree (deleted with the
//     runtime): /files/ with Range, the contents API with
//     LargeFileManager's chunk semantics, /api/sessions and /api/kernels
//     (execution_state "busy" while an emulated run is in flight,
//     last_activity frozen during it, connections counting open channels
//     sockets; Options.StuckKernel seeds a kernel stuck in "starting"),
//     kernel interrupts and a kernel channels WebSocket, and Colab's
//     /api/colab/resources (XSSI-guarded; figures fixed per runtime spec,
//     the GPU busy and everUsed while code mentioning cuda or gpu runs, or
//     with Options.ResourcesFromHost this machine's; Options.NoColabExtensions
//     answers it with a stock server's HTML 404); or, with
//     Options.JupyterUpstream, a real Jupyter server. Options.DeleteToTrash makes DELETE move files
//     to the runtime's /root/.local/share/Trash as a stock jupyter_server
//     does (DiskUsage, TrashNames; execute_code of a program starting
//     with PurgeMarker empties it), and Options.ProxyMaxBody makes the
//     proxy refuse larger bodies with nginx's HTML 413.
//   - create_runtime takes Options.CreateDelay, honours requestId
//     idempotency (the identical call with the same requestId waits for or
//     returns the same runtime, never a second one), checks requestId is a
//     UUID4 and runtimeId passes api.ValidateID, and follows the tier's
//     eligibility (Free: CPU and T4; Pro adds HIGHMEM, L4, A100 and TPU;
//     Pro+ adds H100, G4 and V6E1 HIGHMEM).
//   - create_session is create-or-get with RFC 1034 ids (a random UUID when
//     omitted); list_sessions includes sessions the client did not open
//     (AddNotebookSession, and the demo seed's notebooks); delete_runtime
//     removes the runtime and its sessions.
//   - execute_code runs no Python: print(<literal>) echoes the literal, a
//     bare literal becomes result, code with "raise" gets an executionError
//     {name, value, traceback}, anything else prints a line starting with
//     EmulatedPrefix. executionCount counts per session; an executionId is
//     remembered per session for reattaching (see FaultDeadline). A call
//     is cut off after Options.ExecuteCutoff (600 s) with
//     DEADLINE_EXCEEDED while its code keeps running. With
//     Options.JupyterUpstream every session is a real Jupyter session
//     there (python3, path content/SESSION_ID, so its kernel works in
//     ROOT/content) and execute_code runs the code on its real kernel
//     (upstreamkernel.go); delete_session shuts that kernel down.
//   - Empty lists are answered as {} (proto3 JSON omits empty repeated
//     fields), so clients meet the absent-field form by default.
//   - Jobs (package api/jupyter/jobs; jobs.go here): execute_code of
//     code starting with jobs.LauncherMarker starts the job whose
//     spec.json is on the runtime, as the launcher does, and answers its
//     one line; the job's script runs in pyemu as `python FILE ARGS` on
//     the emulator's clock (Options.Now: a test moves it, the demo runs on
//     the real one) and writes the job's log, stderr.ranges and
//     status.json (heartbeats every jobs.HeartbeatEvery) into the
//     runtime's files, reacts to the stop file every second of the clock,
//     and ends with its runtime or the emulator. RunningJobs lists them;
//     the demo seed has DemoRunningJob and DemoFinishedJob on
//     DemoJobsRuntime.
//
// # Failure forms (our choice; the docs do not pin them down)
//
//   - A create_runtime refusal (FAILED_PRECONDITION: ineligible spec, or
//     TOO_MANY_ACTIVE_RUNTIMES past Options.RuntimeLimit; ALREADY_EXISTS for
//     a taken runtimeId, as AIP-133 documents for REST) is a successful
//     tool result whose structuredContent is a finished Operation:
//     {"name":"operations/…","done":true,"error":{"code":9,"message":…,
//     "details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo",
//     "reason":"TOO_MANY_ACTIVE_RUNTIMES",…}]}} (code is the google.rpc.Code
//     number).
//   - Every other tool failure is an isError result whose only text block
//     is Google's HTTP error envelope {"error":{"code":<HTTP status>,
//     "message":…,"status":"NOT_FOUND","details":[…]}} (api.ErrorFromText
//     decodes it). RESOURCE_EXHAUSTED past Options.CreatesPerMinute carries
//     a RetryInfo {"retryDelay":"53s"}.
//   - Input that breaks the schema is refused by go-sdk's validation as an
//     isError result with go-sdk's own text (no Google envelope).
//   - HTTP-level refusals: 401 UNAUTHENTICATED with a Google JSON body and
//     WWW-Authenticate when a request lacks a non-empty
//     "Authorization: Bearer …"; 403 PERMISSION_DENIED when Host is not
//     localhost, 127.0.0.1 or [::1], or Origin is present and not such a
//     host.
//
// # Test controls
//
// InjectProxy queues proxy faults (a download cut after N bytes, a reply
// lost after the request was applied, an error status, Range ignored, a
// delayed reply, a stock server's HTML 404); ProxyRequests, Interrupts
// and KernelID inspect the proxy, SetKernelStarting steers a kernel.
//
// Options selects stateless or stateful go-sdk sessions, JSON or SSE
// replies, schema variants (LegacySessionIDSchema, NoAllowMissing) and
// OperationResults. Inject queues a Fault (latency, HTTP status with any
// body and Retry-After, JSON-RPC error, isError text, create_runtime
// Operation error, connection reset after the body was read, dropped MCP
// session, malformed/truncated/oversized replies, raw outputs, deadlines)
// for the next N matching calls. Runtimes, Sessions, AddRuntime,
// AddNotebookSession, Reclaim, ExpireToken, SetTier, SetNow, CallCount,
// CreateCalls and RuntimesCreated inspect and steer the state. A server
// started with Start also serves the control routes (ControlPrefix:
// reclaim, expire-token, fail) over HTTP, for tests outside this process.
//
// Proxy tokens are random per issue and never logged by the emulator.
//
// # Layout
//
// This package is the MCP side and the state every side shares: the
// runtimes, their sessions and runs, proxy tokens, quotas and the one lock
// over them (server.go, options.go, control.go), the tools (tools.go,
// runtimes.go, sessions.go), MCP faults and the front door (faults.go,
// frontdoor.go), the control routes (control_http.go). Below it:
//
//   - runtimeproxy: each runtime's proxy URL and what answers behind the
//     token (the Jupyter server: files, contents, trash, sessions,
//     kernels; proxy faults; forwarding to a real Jupyter server). It
//     reads the shared state through runtimeproxy.Runtimes, implemented
//     here by proxyState (proxy.go). Colab's api/colab/resources is its
//     resources.go, api/kernels its kernels.go.
//   - runtimeproxy/terminal: Colab's terminal WebSocket, colab/tty.
//   - pyemu: the emulated Python that execute_code runs.
//
// Names importers knew from here (ProxyFault and its kinds, TTYPrompt,
// SyntheticDir, EmulatedPrefix…) stay here as aliases.
package colabfake
