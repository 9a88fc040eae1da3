package jupyter

import (
	"github.com/colabdash/colabdash/api/jupyter/forward"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
	"github.com/colabdash/colabdash/api/jupyter/transfer"
)

// Options configure New (proxy.Options: the runtime, its connectionInfo,
// the renewal through get_runtime, and the bounds of every call and
// transfer).
type Options = proxy.Options

// Client is a Jupyter client for one runtime, through the Colab runtime
// proxy: the calls of proxy.Client (Stat, List, ListEach, Mkdir,
// RemoveAll, Rename, Sessions, InterruptSession, DialWebSocket,
// CreateTerminal, token renewal…) and the file transfers of
// transfer.Copier (Upload, UploadFile, UploadPath, Download,
// DownloadInto, DownloadPath). It is safe for concurrent use.
type Client struct {
	*transfer.Copier
}

// New returns a Client for the runtime described by o (proxy.New).
// Errors (*Error of kind ErrNoConnection): a missing or unparseable
// Info.URL, a scheme other than http/https, or a URL that would send the
// proxy token in clear (safehttp.CheckCredentialURL).
func New(o Options) (*Client, error) {
	c, err := proxy.New(o)
	if err != nil {
		return nil, err
	}
	return &Client{transfer.New(c)}, nil
}

// Forwarder serves a runtime's Jupyter server on a local address
// (forward.Forwarder: Host, token and Origin checks, credentials
// stripped, the proxy token renewed ahead of expiry).
type Forwarder = forward.Forwarder

// ForwardOptions configure NewForwarder (forward.Options).
type ForwardOptions = forward.Options

// LocalTokenParam is the query parameter (and "Authorization: token …"
// scheme) a Forwarder's local clients authenticate with.
const LocalTokenParam = forward.LocalTokenParam

// NewForwarder builds a Forwarder to c's runtime (forward.New). The
// local token is registered with c's redactor. Errors: a LocalToken
// shorter than 16 characters, or no randomness for one.
func NewForwarder(c *Client, o ForwardOptions) (*Forwarder, error) {
	return forward.New(c.Client, o)
}
