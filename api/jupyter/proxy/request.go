package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/safehttp"
)

// Request is one HTTP exchange through the proxy, for Do.
type Request struct {
	// Op names the operation in errors: list, stat, download, upload…
	Op string
	// Method is the HTTP method; Path the URL path below
	// connectionInfo.url, already escaped (EscapePath), without a
	// leading slash ("files/content/a.csv").
	Method, Path string
	// Query is added to the URL; Header to the request (the proxy token
	// and client agent headers are set by the client).
	Query  url.Values
	Header http.Header
	// Body returns a fresh reader of the body and its length in bytes;
	// it is called again on a retry. nil: no body. A body is sent as
	// application/json.
	Body func() (io.Reader, int64)
	// Retry404 retries once, after renewing the token, when the answer is
	// a 404 that did not come from Jupyter. Only for requests that can be
	// repeated safely.
	Retry404 bool
	// Remote is the remote path, for errors.
	Remote string
}

// send sends r once with the current token and returns the response and
// the token it used.
func (c *Client) send(ctx context.Context, r *Request) (*http.Response, string, error) {
	if _, err := c.Fresh(ctx); err != nil {
		return nil, "", err
	}
	// Token and URL from one snapshot: a renewal in between must not
	// pair one info's token with another's host.
	c.mu.Lock()
	ci, raw := c.info, c.base.String()+r.Path
	c.mu.Unlock()
	if q := r.Query.Encode(); q != "" {
		raw += "?" + q
	}
	var body io.Reader
	var n int64
	if r.Body != nil {
		body, n = r.Body()
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, raw, body)
	if err != nil {
		return nil, "", &Error{Op: r.Op, Runtime: c.id, Path: r.Remote, Kind: ErrTransport, Message: err.Error()}
	}
	if r.Body != nil {
		req.ContentLength = n
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range r.Header {
		req.Header[k] = v
	}
	req.Header.Set(TokenHeader, ci.Token)
	req.Header.Set(AgentHeader, Agent)
	start := time.Now()
	resp, err := c.hc.Do(req)
	if err != nil {
		c.o.Logger.Debug("jupyter request failed", "op", r.Op, "method", r.Method, "runtime", c.id, "error", c.o.Redactor.Redact(err.Error()))
		if ctx.Err() != nil {
			return nil, ci.Token, context.Cause(ctx)
		}
		kind := ErrTransport
		if safehttp.IsRedirect(err) {
			kind = ErrRedirect
		}
		return nil, ci.Token, &Error{Op: r.Op, Runtime: c.id, Path: r.Remote, Kind: kind, Message: c.o.Redactor.Redact(StripURL(err))}
	}
	c.o.Logger.Debug("jupyter request", "op", r.Op, "method", r.Method, "runtime", c.id, "status", resp.StatusCode, "duration", time.Since(start))
	return resp, ci.Token, nil
}

// StripURL is err's text, one line of at most 200 bytes, without the
// URL of a *url.Error (it names the proxy host and path, and may carry
// the proxy token on a WebSocket upgrade).
func StripURL(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return api.OneLine(ue.Err.Error(), 200)
	}
	return api.OneLine(err.Error(), 200)
}

// Do sends r, renewing the token first when it is close to expiry, and
// renewing it and retrying once after a proxy 404 when r.Retry404. Any
// status >= 400 becomes an *Error (the body is read up to 64 KiB for its
// message, redacted); a failed connection an *Error of kind ErrTransport
// or ErrRedirect; the context's cause when ctx ends. The caller closes
// the body of a success.
func (c *Client) Do(ctx context.Context, r *Request) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		resp, used, err := c.send(ctx, r)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode < 400 {
			return resp, nil
		}
		rep := readErrorBody(resp)
		if resp.StatusCode == http.StatusNotFound && !rep.jupyter {
			// The proxy's own 404: an expired or missing token, or a
			// runtime that is gone. Renew (which tells the two apart)
			// and try once more.
			if rerr := c.renew(ctx, used); rerr != nil {
				return nil, WithOp(rerr, r.Op, r.Remote)
			}
			if r.Retry404 && attempt == 0 {
				continue
			}
		}
		return nil, c.statusError(r.Op, r.Remote, resp.StatusCode, rep)
	}
}

// WithOp returns err with its Op and Path replaced when it is an
// *Error (a copy: the original is unchanged), else err itself: a step's
// failure told as the operation the caller was doing.
func WithOp(err error, op, path string) error {
	var je *Error
	if errors.As(err, &je) {
		e := *je
		e.Op, e.Path = op, path
		return &e
	}
	return err
}

// callJSON runs a JSON call bounded by CallTimeout and decodes the reply
// (up to MaxReply bytes) into out (nil: discard).
func (c *Client) callJSON(ctx context.Context, r *Request, out any) error {
	ctx, cancel := context.WithTimeout(ctx, c.o.CallTimeout)
	defer cancel()
	resp, err := c.Do(ctx, r)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return &Error{Op: r.Op, Runtime: c.id, Path: r.Remote, Kind: ErrTransport, Message: fmt.Sprintf("no answer within %s", c.o.CallTimeout)}
		}
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, c.o.MaxReply+1))
	if err != nil {
		// ctx ending while the reply's body arrives is an interrupt (or
		// the call's timeout), as it is before the headers.
		switch {
		case ctx.Err() == context.DeadlineExceeded:
			return &Error{Op: r.Op, Runtime: c.id, Path: r.Remote, Kind: ErrTransport, Message: fmt.Sprintf("no answer within %s", c.o.CallTimeout)}
		case ctx.Err() != nil:
			return context.Cause(ctx)
		}
		return &Error{Op: r.Op, Runtime: c.id, Path: r.Remote, Kind: ErrTransport, Message: StripURL(err)}
	}
	if int64(len(b)) > c.o.MaxReply {
		return &Error{Op: r.Op, Runtime: c.id, Path: r.Remote, Kind: ErrServer, Message: fmt.Sprintf("reply larger than %d bytes", c.o.MaxReply)}
	}
	b = TrimXSSI(b)
	if out == nil || len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return &Error{Op: r.Op, Runtime: c.id, Path: r.Remote, Kind: ErrServer, Message: "reply is not the expected JSON"}
	}
	return nil
}

func jsonBody(v any) func() (io.Reader, int64) {
	b, _ := json.Marshal(v)
	return func() (io.Reader, int64) { return bytes.NewReader(b), int64(len(b)) }
}
