// Package ops holds the operations on Colab that both front ends share:
// the dashboard (package ui) and the command-line verbs (ui/cli/...) are
// thin adapters over it, each choosing only how an outcome is shown.
//
// What lives here, each written once:
//   - Jupyter: the renewing Jupyter opener. A runtime's Jupyter client
//     (api/jupyter) whose proxy token is renewed through get_runtime
//     (Renewal); Connection asks get_runtime for a fresh connectionInfo;
//     OpenListed uses the listed one and asks get_runtime only when its
//     token is near its expiry. The file verbs, run's uploads and
//     downloads and the job verbs open runtimes with OpenListed; the
//     dashboard's files pane and shell use its last listing's
//     connectionInfo (Jupyter), and the kernel interrupt a fresh one.
//   - ResolveRuntime: a runtime argument ("rt-abc", "runtimes/rt-abc" or
//     a prefix of exactly one live id) among the listed runtimes, with a
//     *ResolveError that says whether it was empty, ambiguous or missing.
//   - Shell and Listed: what a shell needs of a runtime (its Jupyter
//     client and the "is it still listed" check that decides whether a
//     closed connection may reconnect).
//   - Read and Prober: the monitor probe. Read is one poll of a runtime's
//     resources and kernels through its proxy; Prober is the blocking
//     probe of `top`, which renews the token on the proxy's 404. Both
//     front ends follow one renewal rule, state/monitor's Renewals: a
//     runtime's proxy token is renewed for the monitor at most once every
//     monitor.RenewEvery (10 min), and a refusal that comes back within
//     that time is a failure (Persisting), never "not offered": that is
//     only a route the server answers as missing (Jupyter's own 404, or
//     the proxy's 404 for the resources with a token it takes for the
//     kernels: Absent), asked again after monitor.NotOfferedRecheck. A
//     route a runtime lacks never becomes a renewal loop.
//   - Doctor: the checks of `colabdash doctor` (credentials, token,
//     clock, endpoint, tools, a read call, quota project, a runtime's
//     proxy routes) as Findings, each Check with its status, detail and
//     fix; the CLI words them, and the dashboard could show the same.
//   - LastSpec, StateDir and WriteStateFile: the state directory and the
//     last-used runtimeSpec, written through api/safefile.WriteAtomic.
//
// Contract: the package imports api/... and state/... only (never a
// terminal, bubbletea, lipgloss, cobra or ui/cli); it writes nothing to
// stdout or stderr; an operation that reports progress takes a callback
// from its caller. Errors are returned as the API gave them (the caller
// classifies them) or as this package's typed errors. A new operation that
// both front ends need goes here, its policy decision (if any) in state,
// its presentation in ui (dashboard) and ui/cli/kit (verbs).
package ops
