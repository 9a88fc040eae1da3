// Package jupyter talks to a Colab runtime's Jupyter server through the
// runtime proxy at connectionInfo.url: the contents API (list, stat, mkdir, delete, rename, chunked
// upload), raw downloads from /files/ with Range resume, Jupyter sessions
// and kernel interrupts, and Forwarder, a local loopback server that
// forwards HTTP and WebSocket traffic to the runtime.
//
// It is the one package the dashboard and the CLI import; the work is
// done in the packages below it, and the names here are theirs (type
// aliases, the same values, thin wrappers):
//
//   - proxy: the request layer (the proxy token, its renewal, redirects,
//     bounded replies, error mapping into *Error), the contents API,
//     the streamed directory listing, kernels, terminals and WebSockets;
//   - transfer: uploads and downloads (chunks, part files and their
//     stamps, resume, the idle watchdog, local destinations never
//     written through a link) and the recursive copies of cp -r;
//   - forward: the local forward (colabdash forward);
//   - internal/jupytertest: the test bed (the emulator's proxy in front
//     of its own Jupyter tree or of a real jupyter-server).
//
// Client is a transfer.Copier, itself a proxy.Client, so every method of
// both is a method of Client.
//
// # The proxy token
//
// Every request carries "X-Colab-Runtime-Proxy-Token: <token>" and
// "X-Colab-Client-Agent: colabdash"; WebSocket upgrades carry the token in
// the colab-runtime-proxy-token query parameter. The token is registered
// with the api.Redactor the moment it is learnt and never logged. A Client
// renews it through Options.Renew (get_runtime) before each request when it
// has less than Options.RenewLead left, and once more after a 404 that did
// not come from Jupyter (the proxy answers an expired or missing token with
// a bare 404): a long transfer outlives the token and goes
// on without restarting. A renewal that answers NOT_FOUND means the runtime
// is gone (ErrRuntimeGone).
//
// # Safety
//
// Redirects are followed only to the same scheme, host and port
// (api/safehttp; the token header would otherwise leak to another host); every JSON reply is
// read up to Options.MaxReply bytes, every JSON call is bounded by
// Options.CallTimeout and every transfer is dropped (and resumed) after
// Options.IdleTimeout without progress. Remote names are untrusted: the
// recursive download builds each local path from one validated name
// component per level.
//
// Paths are written as Colab documents them, without the leading slash
// ("content/data.csv"); a leading slash is accepted and dropped. Each path
// segment is percent-encoded on the wire. A path a user typed is first read
// by ResolvePath, the one rule of every front end: relative to /content
// unless it starts with "/".
package jupyter
