package proxy

import (
	"context"
	"errors"
	"net/http"
	"strings"
)

// Kernel is the kernel of a Jupyter session (jupyter_server
// /api/sessions).
type Kernel struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	ExecutionState string `json:"execution_state,omitempty"`
}

// JupyterSession is one entry of GET /api/sessions: a Jupyter session
// (not to be confused with a Colab MCP session name, though Colab's MCP
// sessions are Jupyter sessions underneath).
type JupyterSession struct {
	ID     string `json:"id"`
	Path   string `json:"path"`
	Name   string `json:"name"`
	Type   string `json:"type"`
	Kernel Kernel `json:"kernel"`
}

// Sessions lists the Jupyter sessions of the runtime (GET /api/sessions).
func (c *Client) Sessions(ctx context.Context) ([]JupyterSession, error) {
	var out []JupyterSession
	err := c.callJSON(ctx, &Request{Op: "sessions", Method: http.MethodGet, Path: "api/sessions", Retry404: true}, &out)
	return out, err
}

// Interrupt interrupts a kernel (POST /api/kernels/{id}/interrupt).
// kernelID, from the server, is one path segment (Segment). Errors:
// ErrNotFound for an unknown kernel, ErrUnsafeName (nothing sent) for an
// id that cannot be one segment, and those of Stat.
func (c *Client) Interrupt(ctx context.Context, kernelID string) error {
	seg, err := c.segment("interrupt", "kernel id", kernelID)
	if err != nil {
		return err
	}
	return c.callJSON(ctx, &Request{Op: "interrupt", Method: http.MethodPost, Path: "api/kernels/" + seg + "/interrupt",
		Body: jsonBody(struct{}{}), Retry404: true, Remote: "kernel " + kernelID}, nil)
}

// ErrNoKernel: no Jupyter session matches the Colab session, so its
// kernel cannot be interrupted through the proxy.
var ErrNoKernel = errors.New("no Jupyter kernel matches the session")

// MatchKernel finds the kernel of a Colab session ("runtimes/r/sessions/s"
// or the bare session id) among the runtime's Jupyter sessions: the one
// whose id equals the session id, else the only one whose name or path
// contains it. ErrNoKernel (wrapped in *Error) when none or several match.
func (c *Client) MatchKernel(ctx context.Context, session string) (string, error) {
	sid := session
	if i := strings.LastIndex(session, "/sessions/"); i >= 0 {
		sid = session[i+len("/sessions/"):]
	}
	list, err := c.Sessions(ctx)
	if err != nil {
		return "", err
	}
	var loose []string
	for _, s := range list {
		if s.Kernel.ID == "" {
			continue
		}
		if s.ID == sid {
			return s.Kernel.ID, nil
		}
		if sid != "" && (strings.Contains(s.Name, sid) || strings.Contains(s.Path, sid)) {
			loose = append(loose, s.Kernel.ID)
		}
	}
	if len(loose) == 1 {
		return loose[0], nil
	}
	return "", &Error{Op: "interrupt", Runtime: c.id, Path: "", Kind: ErrNoKernel, Message: "session " + sid}
}

// InterruptSession interrupts the kernel of a Colab session
// (/api/sessions → kernel id → /api/kernels/{id}/interrupt) and returns
// the kernel id. ErrNoKernel when the session cannot be matched.
func (c *Client) InterruptSession(ctx context.Context, session string) (string, error) {
	k, err := c.MatchKernel(ctx, session)
	if err != nil {
		return "", err
	}
	return k, c.Interrupt(ctx, k)
}
