// Package proxy is the Jupyter client of one Colab runtime, through the
// runtime proxy at connectionInfo.url: the request layer every call goes
// through (Do), the contents API (Stat, List, ListEach, Mkdir, Delete,
// RemoveAll, Rename), Jupyter sessions and kernel interrupts, terminado
// terminals and WebSockets, and the error kinds of all of api/jupyter
// (*Error). Package transfer copies files through it; package forward
// serves it on a local address.
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
// segment is percent-encoded on the wire.
package proxy
