package proxy

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/safehttp"
)

// Client is a Jupyter client for one runtime, through the Colab runtime
// proxy. It is safe for concurrent use.
type Client struct {
	o  Options
	hc *http.Client
	id string // runtime id, for messages

	mu       sync.Mutex
	info     api.ConnectionInfo
	base     *url.URL
	renewing chan struct{} // closed when the renewal in flight ends
	renewErr error         // outcome of the last renewal
	renewals int
}

// New returns a Client for the runtime described by o. Errors: a missing
// or unparseable Info.URL, or a scheme other than http/https.
func New(o Options) (*Client, error) {
	o = o.withDefaults()
	c := &Client{o: o, id: api.LastSegment(o.Runtime)}
	if err := c.setInfo(o.Info); err != nil {
		return nil, err
	}
	// Redirects only within the runtime's origin: Go forwards custom
	// headers (the proxy token) on redirects, to any host.
	c.o.Transport = safehttp.Transport(o.Transport)
	c.hc = safehttp.Client(&http.Client{Transport: c.o.Transport})
	return c, nil
}
func (c *Client) setInfo(ci api.ConnectionInfo) error {
	if ci.URL == "" {
		return &Error{Op: "connect", Runtime: c.id, Kind: ErrNoConnection, Message: "the runtime has no connectionInfo.url"}
	}
	u, err := url.Parse(ci.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &Error{Op: "connect", Runtime: c.id, Kind: ErrNoConnection, Message: "connectionInfo.url is not an http(s) URL"}
	}
	if err := safehttp.CheckCredentialURL(u); err != nil {
		// The proxy token goes with every request: never in clear.
		return &Error{Op: "connect", Runtime: c.id, Kind: ErrNoConnection, Message: "connectionInfo.url " + safehttp.Redact(u) + ": " + err.Error()}
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	u.RawQuery, u.Fragment, u.RawPath = "", "", ""
	c.o.Redactor.AddExpiring(ci.ExpireTime, ci.Token)
	c.mu.Lock()
	c.info, c.base = ci, u
	c.mu.Unlock()
	return nil
}

// Info returns the connectionInfo in use (its token is a secret).
func (c *Client) Info() api.ConnectionInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.info
}

// Renewals returns how many times the token was renewed.
func (c *Client) Renewals() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.renewals
}

// Runtime returns the runtime id the client talks to.
func (c *Client) Runtime() string { return c.id }

// Options returns the options in effect: those given to New with every
// zero field set to its default, and Transport the one requests go
// through (with the client's same-origin redirect policy). Its Redactor
// and Logger are the client's own: the transfer and forward packages
// log and redact through them.
func (c *Client) Options() Options { return c.o }

// Endpoint returns, read together, the base URL every request path is
// resolved against (connectionInfo.url, ending in "/", without query or
// fragment) and the connectionInfo in use (its token is a secret). A
// renewal replaces both at once.
func (c *Client) Endpoint() (url.URL, api.ConnectionInfo) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return *c.base, c.info
}

// Fresh returns the connectionInfo to use now, renewing it first when
// less than RenewLead is left. A failed renewal is an error only when the
// current token has already expired (ErrRuntimeGone when the runtime no
// longer exists).
func (c *Client) Fresh(ctx context.Context) (api.ConnectionInfo, error) {
	ci := c.Info()
	if c.o.Renew == nil || ci.ExpireTime.IsZero() || c.o.Now().Before(ci.ExpireTime.Add(-c.o.RenewLead)) {
		return ci, nil
	}
	if err := c.renew(ctx, ci.Token); err != nil {
		var je *Error
		if (errors.As(err, &je) && errors.Is(je.Kind, ErrRuntimeGone)) || !c.o.Now().Before(ci.ExpireTime) {
			return ci, err
		}
		c.o.Logger.Warn("proxy token renewal failed; using the current token until it expires", "runtime", c.id, "error", err)
	}
	return c.Info(), nil
}

// Renew gets a fresh token now (get_runtime), whatever is left of the
// current one.
func (c *Client) Renew(ctx context.Context) error { return c.renew(ctx, c.Info().Token) }

// RenewIfCurrent renews the token after the proxy refused used (its
// bare 404), unless the token in use is no longer used: another request
// already renewed it, and nil is returned at once. Concurrent callers
// share one renewal. Errors are those of Fresh's renewal: an *Error of
// kind ErrRuntimeGone, ErrRefused or ErrNoConnection, or the context's.
func (c *Client) RenewIfCurrent(ctx context.Context, used string) error { return c.renew(ctx, used) }

// renew renews the token unless it changed since used was read (another
// request already renewed it); concurrent callers share one renewal.
func (c *Client) renew(ctx context.Context, used string) error {
	if c.o.Renew == nil {
		return &Error{Op: "renew", Runtime: c.id, Kind: ErrRefused, Message: "the proxy token cannot be renewed"}
	}
	c.mu.Lock()
	if c.info.Token != used {
		c.mu.Unlock()
		return nil
	}
	if ch := c.renewing; ch != nil {
		c.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
		c.mu.Lock()
		err := c.renewErr
		c.mu.Unlock()
		return err
	}
	ch := make(chan struct{})
	c.renewing = ch
	c.mu.Unlock()

	ci, err := c.o.Renew(ctx)
	if err == nil {
		ci.URL = strings.TrimSpace(ci.URL)
		if ci.Token == "" {
			err = &Error{Op: "renew", Runtime: c.id, Kind: ErrNoConnection, Message: "get_runtime returned no proxy token"}
		} else {
			err = c.setInfo(ci)
		}
	} else {
		var ae *api.Error
		if errors.As(err, &ae) && ae.Code == api.NotFound {
			err = &Error{Op: "renew", Runtime: c.id, Kind: ErrRuntimeGone}
		} else if ctx.Err() == nil {
			err = &Error{Op: "renew", Runtime: c.id, Kind: ErrRefused, Message: "renewing the proxy token: " + api.OneLine(c.o.Redactor.Redact(err.Error()), 200)}
		}
	}
	c.mu.Lock()
	c.renewErr = err
	c.renewing = nil
	if err == nil {
		c.renewals++
	}
	c.mu.Unlock()
	close(ch)
	if err == nil {
		c.o.Logger.Debug("proxy token renewed", "runtime", c.id)
	}
	return err
}
