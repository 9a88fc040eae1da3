// Package monitor reads what a Colab runtime says of its own use, through
// the runtime proxy at connectionInfo.url: Colab's resource
// figures (GET api/colab/resources: RAM, disks, GPUs) and Jupyter's
// kernel activity (GET api/kernels, api/sessions).
//
// Every request is one GET with the proxy token in
// X-Colab-Runtime-Proxy-Token and X-Colab-Client-Agent, and never a Google
// bearer token: the runtime is another origin that runs arbitrary code.
// The URL must be https, or plain http to loopback only
// (safehttp.CheckCredentialURL); redirects stay within the runtime's
// origin (safehttp.Client). A reply is bounded to MaxReply bytes and each
// call to Options.Timeout (5 s); Colab's XSSI guard ")]}'" is stripped.
//
// Errors are *Error, classified for a poller (errors.Is):
//   - ErrTokenRefused: the proxy's bare 404 (a missing, wrong or expired
//     token, or a runtime that is gone). The caller renews the token once
//     and retries once (WithRenewal does both); a refusal never means the
//     route is missing by itself (the caller knows that only when the
//     same token was taken for another route: ui/ops's Absent).
//   - ErrNotOffered: a 404 from Jupyter itself (a stock server's HTML
//     page, Tornado's headers, a Jupyter JSON error): the runtime has no
//     such route. Re-check rarely; never renew for it.
//   - ErrUnavailable: any other failure (5xx, a bad or oversized body, no
//     reply in time, a transport error): "resources unavailable: …".
//
// The package keeps no state and starts no goroutine; a Client is safe
// for concurrent use.
package monitor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
	"github.com/colabdash/colabdash/api/safehttp"
)

// Header names and the paths read, below connectionInfo.url.
const (
	// TokenHeader carries the proxy token.
	TokenHeader = "X-Colab-Runtime-Proxy-Token"
	// AgentHeader names the client, with Agent.
	AgentHeader = "X-Colab-Client-Agent"
	// Agent is the value sent in AgentHeader.
	Agent = "colabdash"
	// ResourcesPath is Colab's resources route.
	ResourcesPath = "api/colab/resources"
	// KernelsPath and SessionsPath are Jupyter's kernel and session lists.
	KernelsPath  = "api/kernels"
	SessionsPath = "api/sessions"
	// TerminalsPath is Jupyter's terminal list (name, last_activity).
	TerminalsPath = "api/terminals"
)

// Bounds of one call.
const (
	// MaxReply bounds a reply body: 1 MiB.
	MaxReply = 1 << 20
	// DefaultTimeout bounds one call, from the request to the end of its
	// body: 5 s.
	DefaultTimeout = 5 * time.Second
)

// Options configure New; the zero value is usable.
type Options struct {
	// Transport sends the requests (default: a clone of
	// http.DefaultTransport). It is wrapped in safehttp's redirect guard.
	Transport http.RoundTripper
	// Timeout bounds each call (default DefaultTimeout).
	Timeout time.Duration
	// Redactor learns every proxy token sent and cleans every error text
	// (default: a private one).
	Redactor *api.Redactor
}

// Client reads runtimes' resources and kernels. It is safe for
// concurrent use.
type Client struct {
	hc       *http.Client
	timeout  time.Duration
	redactor *api.Redactor
}

// New returns a Client with o.
func New(o Options) *Client {
	if o.Transport == nil {
		o.Transport = http.DefaultTransport.(*http.Transport).Clone()
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Redactor == nil {
		o.Redactor = &api.Redactor{}
	}
	return &Client{
		hc:       safehttp.Client(&http.Client{Transport: safehttp.Transport(o.Transport)}),
		timeout:  o.Timeout,
		redactor: o.Redactor,
	}
}

// Resources returns runtime ci's RAM, disks and GPUs (GET
// api/colab/resources). Errors: *Error (see the package comment).
func (c *Client) Resources(ctx context.Context, ci api.ConnectionInfo) (Resources, error) {
	var w wireResources
	if err := c.get(ctx, ci, "resources", ResourcesPath, &w); err != nil {
		return Resources{}, err
	}
	if w.Disks == nil {
		return Resources{}, &Error{Op: "resources", Kind: KindUnavailable, Message: "the reply has no disks"}
	}
	return w.resources(), nil
}

// Kernels returns runtime ci's Jupyter kernels (GET api/kernels).
// Errors: *Error (see the package comment).
func (c *Client) Kernels(ctx context.Context, ci api.ConnectionInfo) ([]Kernel, error) {
	var w []wireKernel
	if err := c.get(ctx, ci, "kernels", KernelsPath, &w); err != nil {
		return nil, err
	}
	out := make([]Kernel, 0, len(w))
	for _, k := range w {
		out = append(out, k.kernel())
	}
	return out, nil
}

// Terminals returns runtime ci's Jupyter terminals with their last
// activity (GET api/terminals): a shell's typing and its output both
// count, so a training run in a terminal is seen. Errors: *Error (see the
// package comment); a server without terminals answers 404 (its kind says
// so: the caller treats it as no terminals).
func (c *Client) Terminals(ctx context.Context, ci api.ConnectionInfo) ([]Terminal, error) {
	var w []wireTerminal
	if err := c.get(ctx, ci, "terminals", TerminalsPath, &w); err != nil {
		return nil, err
	}
	out := make([]Terminal, 0, len(w))
	for _, t := range w {
		out = append(out, t.terminal())
	}
	return out, nil
}

// Sessions returns runtime ci's Jupyter sessions, each with its kernel
// (GET api/sessions): what ties a kernel to a notebook. Errors: *Error
// (see the package comment).
func (c *Client) Sessions(ctx context.Context, ci api.ConnectionInfo) ([]Session, error) {
	var w []wireSession
	if err := c.get(ctx, ci, "sessions", SessionsPath, &w); err != nil {
		return nil, err
	}
	out := make([]Session, 0, len(w))
	for _, s := range w {
		out = append(out, Session{ID: s.ID, Path: s.Path, Name: s.Name, Type: s.Type, Kernel: s.Kernel.kernel()})
	}
	return out, nil
}

// WithRenewal runs call with ci and, when it fails with ErrTokenRefused
// and renew is set, renews the token once (renew's error is returned as
// it is) and runs call once more with the fresh connectionInfo, whose
// error is returned as it is (a second ErrTokenRefused too: never a
// second renewal). It returns the connectionInfo last used.
func WithRenewal[T any](ctx context.Context, ci api.ConnectionInfo, renew func(context.Context) (api.ConnectionInfo, error),
	call func(context.Context, api.ConnectionInfo) (T, error)) (T, api.ConnectionInfo, error) {
	v, err := call(ctx, ci)
	if !errors.Is(err, ErrTokenRefused) || renew == nil {
		return v, ci, err
	}
	fresh, rerr := renew(ctx)
	if rerr != nil {
		var zero T
		return zero, ci, rerr
	}
	v, err = call(ctx, fresh)
	return v, fresh, err
}

// get GETs path below ci.URL and decodes its JSON reply into out.
func (c *Client) get(ctx context.Context, ci api.ConnectionInfo, op, path string, out any) error {
	u, err := url.Parse(ci.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &Error{Op: op, Kind: KindUnavailable, Message: "connectionInfo.url is not an http(s) URL"}
	}
	if err := safehttp.CheckCredentialURL(u); err != nil {
		// The proxy token goes with the request: never in clear.
		return &Error{Op: op, Kind: KindUnavailable, Message: "connectionInfo.url " + safehttp.Redact(u) + ": " + err.Error()}
	}
	if ci.Token != "" {
		c.redactor.AddExpiring(ci.ExpireTime, ci.Token)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	u.RawQuery, u.Fragment, u.RawPath = "", "", ""
	cctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(cctx, http.MethodGet, u.String()+path, nil)
	if err != nil {
		return &Error{Op: op, Kind: KindUnavailable, Message: c.clean(err.Error())}
	}
	req.Header.Set(TokenHeader, ci.Token)
	req.Header.Set(AgentHeader, Agent)
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return c.failed(ctx, cctx, op, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxReply+1))
	if err != nil {
		return c.failed(ctx, cctx, op, err)
	}
	if len(body) > MaxReply {
		return &Error{Op: op, Kind: KindUnavailable, Status: resp.StatusCode, Message: "the reply is larger than 1 MiB"}
	}
	if resp.StatusCode == http.StatusNotFound {
		if proxy.FromJupyter(resp.Header, body) {
			return &Error{Op: op, Kind: KindNotOffered, Status: 404, Message: "the runtime's Jupyter server has no " + path}
		}
		return &Error{Op: op, Kind: KindTokenRefused, Status: 404, Message: "the runtime proxy answered 404"}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return &Error{Op: op, Kind: KindUnavailable, Status: resp.StatusCode, Message: fmt.Sprintf("HTTP %d", resp.StatusCode)}
	}
	if err := json.Unmarshal(proxy.TrimXSSI(body), out); err != nil {
		return &Error{Op: op, Kind: KindUnavailable, Status: resp.StatusCode, Message: c.clean("the reply is not the expected JSON: " + err.Error())}
	}
	return nil
}

// failed classifies a transport or body-read error: the caller's own
// cancellation is returned as ctx's error; the call's time running out
// or anything else is ErrUnavailable.
func (c *Client) failed(ctx, cctx context.Context, op string, err error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if cctx.Err() != nil {
		return &Error{Op: op, Kind: KindUnavailable, Message: "no reply within " + c.timeout.String()}
	}
	msg := err.Error()
	if ue, ok := errors.AsType[*url.Error](err); ok {
		msg = ue.Err.Error()
	}
	if safehttp.IsRedirect(err) {
		msg = "a redirect out of the runtime's origin was refused"
	}
	return &Error{Op: op, Kind: KindUnavailable, Message: c.clean(msg)}
}

// Redactor is the redactor c registers tokens with and cleans its errors
// through (Options.Redactor, or its own): another client reaching the
// same runtimes shares it.
func (c *Client) Redactor() *api.Redactor { return c.redactor }

func (c *Client) clean(s string) string { return api.OneLine(c.redactor.Redact(s), 200) }
