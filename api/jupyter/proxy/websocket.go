package proxy

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/colabdash/colabdash/api/safehttp"
)

// DialTimeout bounds one WebSocket handshake through the proxy (30 s).
const DialTimeout = 30 * time.Second

// DialWebSocket opens a WebSocket to path (already escaped, resolved
// relative to connectionInfo.url: "colab/tty" below
// "https://h/proxy/rt/" is "wss://h/proxy/rt/colab/tty") with the proxy
// token in the X-Colab-Runtime-Proxy-Token header, never in the URL, as
// Colab's own terminal client does. The token is renewed first when less
// than RenewLead is left, and once more after the proxy's bare 404 (then
// the handshake is tried again). Redirects stay within the runtime's
// origin, and connectionInfo.url must be https (or http to loopback), as
// for every request.
//
// Errors are *Error: ErrNotFound when the runtime's own server answered
// 404 (a stock Jupyter server has no such route: an HTML or JSON body),
// ErrRefused when the proxy refused a freshly renewed
// token, ErrRuntimeGone, ErrTransport for the network, ErrServer for any
// other status; the context's error when ctx ended.
func (c *Client) DialWebSocket(ctx context.Context, path string) (*websocket.Conn, error) {
	for attempt := 0; ; attempt++ {
		conn, status, jupyter404, used, err := c.dialOnce(ctx, path)
		if err == nil {
			return conn, nil
		}
		if status != http.StatusNotFound || jupyter404 {
			return nil, err
		}
		// The proxy's bare 404: an expired or wrong token, or a runtime
		// that is gone. Renew (which tells them apart) and try once more.
		if rerr := c.renew(ctx, used); rerr != nil {
			return nil, WithOp(rerr, "terminal", path)
		}
		if attempt > 0 {
			return nil, &Error{Op: "terminal", Runtime: c.id, Path: path, Status: status, Kind: ErrRefused,
				Message: "the runtime proxy refused a freshly renewed proxy token (404)"}
		}
	}
}

// dialOnce is one handshake with the current token: the connection, or
// the HTTP status (0 for none), whether a 404 came from the runtime's
// server, the token used and the error.
func (c *Client) dialOnce(ctx context.Context, path string) (*websocket.Conn, int, bool, string, error) {
	if _, err := c.Fresh(ctx); err != nil {
		return nil, 0, false, "", err
	}
	c.mu.Lock()
	ci, raw := c.info, c.base.String()+strings.TrimPrefix(path, "/")
	c.mu.Unlock()
	h := http.Header{}
	h.Set(TokenHeader, ci.Token)
	h.Set(AgentHeader, Agent)
	dctx, cancel := context.WithTimeout(ctx, DialTimeout)
	defer cancel()
	start := time.Now()
	conn, resp, err := websocket.Dial(dctx, raw, &websocket.DialOptions{HTTPClient: c.hc, HTTPHeader: h})
	if err == nil {
		c.o.Logger.Debug("jupyter websocket", "path", path, "runtime", c.id, "duration", time.Since(start))
		return conn, 0, false, ci.Token, nil
	}
	if resp == nil {
		if ctx.Err() != nil {
			return nil, 0, false, ci.Token, context.Cause(ctx)
		}
		kind := ErrTransport
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, 0, false, ci.Token, &Error{Op: "terminal", Runtime: c.id, Path: path, Kind: kind, Message: "no handshake within " + DialTimeout.String()}
		}
		if safehttp.IsRedirect(err) {
			kind = ErrRedirect
		}
		return nil, 0, false, ci.Token, &Error{Op: "terminal", Runtime: c.id, Path: path, Kind: kind, Message: c.o.Redactor.Redact(StripURL(err))}
	}
	c.o.Logger.Debug("jupyter websocket refused", "path", path, "runtime", c.id, "status", resp.StatusCode)
	var body []byte
	if resp.Body != nil {
		body, _ = io.ReadAll(io.LimitReader(resp.Body, 1024))
	}
	status := resp.StatusCode
	fromServer := JupyterNotFound(resp.Header, body)
	e := &Error{Op: "terminal", Runtime: c.id, Path: path, Status: status, Kind: ErrServer}
	switch {
	case status == http.StatusNotFound && fromServer:
		e.Kind = ErrNotFound
	case status == http.StatusNotFound:
		e.Kind = ErrRefused
		e.Message = "the runtime proxy answered 404"
	case status == http.StatusForbidden:
		e.Kind = ErrPermission
	case status == http.StatusSwitchingProtocols:
		e.Kind = ErrServer
		e.Message = c.o.Redactor.Redact(StripURL(err))
	default:
		e.Message = "unexpected server response: " + http.StatusText(status)
	}
	return nil, status, fromServer, ci.Token, e
}

// JupyterNotFound reports whether a 404 reply (its headers and the start
// of its body) came from the runtime's own server rather than from the
// proxy, whose refusal has an empty body: Jupyter's JSON error
// ({"message": …}), Tornado's HTML page (a stock server's unknown route)
// or a Server: TornadoServer header.
func JupyterNotFound(h http.Header, body []byte) bool {
	if strings.HasPrefix(h.Get("Server"), "TornadoServer") {
		return true
	}
	b := bytes.TrimSpace(body)
	if len(b) == 0 {
		return false
	}
	ct, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return ct == "text/html" || ct == "application/json" || b[0] == '{' || b[0] == '<'
}

// Terminal is an entry of a stock Jupyter server's GET/POST
// /api/terminals (terminado).
type Terminal struct {
	Name string `json:"name"`
}

// CreateTerminal starts a terminado terminal (POST /api/terminals) and
// returns its name ("1"). Errors: ErrNotFound when the server has no
// terminals, and those of Stat.
func (c *Client) CreateTerminal(ctx context.Context) (string, error) {
	var t Terminal
	if err := c.callJSON(ctx, &Request{Op: "terminal", Method: http.MethodPost, Path: "api/terminals", Body: jsonBody(struct{}{})}, &t); err != nil {
		return "", err
	}
	if t.Name == "" {
		return "", &Error{Op: "terminal", Runtime: c.id, Kind: ErrServer, Message: "POST /api/terminals returned no terminal name"}
	}
	if _, err := c.segment("terminal", "terminal name", t.Name); err != nil {
		return "", err // never dialled nor deleted: either would leave the runtime's base path
	}
	return t.Name, nil
}

// DialTerminal opens terminado terminal name's WebSocket
// (terminals/websocket/NAME, NAME one path segment: Segment) as
// DialWebSocket does. ErrUnsafeName, without a request, for a name that
// cannot be one segment.
func (c *Client) DialTerminal(ctx context.Context, name string) (*websocket.Conn, error) {
	seg, err := c.segment("terminal", "terminal name", name)
	if err != nil {
		return nil, err
	}
	return c.DialWebSocket(ctx, "terminals/websocket/"+seg)
}

// DeleteTerminal ends terminal name (DELETE /api/terminals/NAME, NAME one
// path segment: Segment); one that is already gone counts as deleted.
// ErrUnsafeName, without a request, for a name that cannot be one segment.
func (c *Client) DeleteTerminal(ctx context.Context, name string) error {
	seg, err := c.segment("terminal", "terminal name", name)
	if err != nil {
		return err
	}
	err = c.callJSON(ctx, &Request{Op: "terminal", Method: http.MethodDelete, Path: "api/terminals/" + seg, Retry404: true, Remote: "terminal " + name}, nil)
	var je *Error
	if errors.As(err, &je) && je.Kind == ErrNotFound {
		return nil
	}
	return err
}
