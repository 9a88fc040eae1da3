package colabfake

// execute_code on a real kernel (Options.JupyterUpstream): each emulated
// session has a real Jupyter session on the upstream server behind it,
// made through the upstream's POST api/sessions (kernel python3, path
// content/SESSION_ID, type notebook, so the kernel's working directory
// is ROOT/content, as Colab's is /content), and every execute_code of the
// session runs there through api/jupyter/kernel. Deleting the session
// (delete_session, the runtime's deletion or reclaim, the emulator's
// Close) deletes the Jupyter session: the server interrupts the kernel,
// then shuts it down; a process the code started in a session of its own
// (start_new_session) outlives it, as on Colab.
//
// Every runtime shares the one upstream server, so two runtimes' sessions
// of the same id share a Jupyter session (the server answers a second
// POST for a path with the session it has).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter/kernel"
)

// Bounds of the emulator's own calls to the upstream server.
const (
	// upstreamCallTimeout bounds one JSON call (a session's creation
	// waits for its kernel to start).
	upstreamCallTimeout = 2 * time.Minute
	// upstreamEndTimeout bounds ending a session (interrupt, shutdown).
	upstreamEndTimeout = 30 * time.Second
	// upstreamMaxReply bounds one JSON reply of the upstream server.
	upstreamMaxReply = 1 << 20
)

// upstreamHTTP sends the emulator's calls to the upstream server; keeping
// no idle connection, nothing outlives Close.
var upstreamHTTP = &http.Client{Transport: &http.Transport{DisableKeepAlives: true, Proxy: nil}}

// errSessionEnded: the emulated session was deleted (or the emulator
// closed) before its kernel could be used.
var errSessionEnded = errors.New("the session was deleted")

// upstreamKernel is the real Jupyter session behind one emulated
// session: made on first use, ended with the session.
type upstreamKernel struct {
	mu       sync.Mutex
	jsession string // the Jupyter session's id
	kernelID string
	conn     *kernel.Conn // nil until dialled, and after it dropped
	ended    bool
	endOnce  sync.Once
}

// upstreamAPI is the upstream server: its base URL (ending in "/", no
// query) and its own token (the URL's ?token=, sent as "Authorization:
// token …").
type upstreamAPI struct {
	base  string
	token string
}

// upstream returns Options.JupyterUpstream's server (New checked it).
func (s *Server) upstream() upstreamAPI {
	u, _ := url.Parse(s.opts.JupyterUpstream)
	tok := u.Query().Get("token")
	u.RawQuery, u.Fragment = "", ""
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return upstreamAPI{base: u.String(), token: tok}
}

func (u upstreamAPI) header() http.Header {
	h := http.Header{}
	if u.token != "" {
		h.Set("Authorization", "token "+u.token)
	}
	return h
}

// call sends method path (below base) with body as JSON and decodes a
// 2xx reply into out (nil: ignored). Errors name the path and status,
// never the URL's token.
func (u upstreamAPI) call(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.base+path, rd)
	if err != nil {
		return err
	}
	req.Header = u.header()
	req.Header.Set("Content-Type", "application/json")
	resp, err := upstreamHTTP.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("%s %s on the Jupyter upstream: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, upstreamMaxReply))
	if err != nil {
		return fmt.Errorf("%s %s on the Jupyter upstream: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s on the Jupyter upstream: HTTP %d: %s", method, path, resp.StatusCode, api.OneLine(string(data), 200))
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(data, out)
}

// DialWebSocket opens path (below base) on the upstream server: the
// emulator's side of its upstream, as its runtime proxy forwards
// (kernel.Dialer).
func (u upstreamAPI) DialWebSocket(ctx context.Context, path string) (*websocket.Conn, error) {
	ws := "ws" + strings.TrimPrefix(u.base, "http") + path
	c, _, err := websocket.Dial(ctx, ws, &websocket.DialOptions{HTTPClient: upstreamHTTP, HTTPHeader: u.header()})
	if err != nil {
		return nil, fmt.Errorf("kernel socket on the Jupyter upstream: %w", err)
	}
	return c, nil
}

// upstreamOf returns session ss's upstreamKernel, making the record.
func (s *Server) upstreamOf(ss *sessionState) *upstreamKernel {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss.up == nil {
		ss.up = &upstreamKernel{}
	}
	return ss.up
}

// startKernel gives session ss its real kernel now (create_session):
// nil at once without Options.JupyterUpstream, UNAVAILABLE when the
// upstream cannot start it (the session stays; execute_code tries again).
func (s *Server) startKernel(ctx context.Context, ss *sessionState) *gErr {
	if s.opts.JupyterUpstream == "" {
		return nil
	}
	if _, err := s.openKernel(ctx, ss); err != nil && !errors.Is(err, errSessionEnded) {
		return newErr(api.Unavailable, "Session %s: its kernel did not start: %s", ss.name, api.OneLine(err.Error(), 300))
	}
	return nil
}

// openKernel returns session ss's open kernel socket: the Jupyter
// session is made on first use (and ended when ss's context ends), the
// socket dialled again when it dropped.
func (s *Server) openKernel(ctx context.Context, ss *sessionState) (*kernel.Conn, error) {
	uk := s.upstreamOf(ss)
	uk.mu.Lock()
	defer uk.mu.Unlock()
	if uk.ended || ss.ctx.Err() != nil {
		return nil, errSessionEnded
	}
	if uk.conn != nil {
		select {
		case <-uk.conn.Done():
			_ = uk.conn.Close() // dropped: dial again
			uk.conn = nil
		default:
			return uk.conn, nil
		}
	}
	up := s.upstream()
	if uk.kernelID == "" {
		// Not the caller's context: a creation cut short would leave a
		// kernel this record does not know of.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), upstreamCallTimeout)
		defer cancel()
		sid := api.LastSegment(ss.name)
		var made struct {
			ID     string `json:"id"`
			Kernel struct {
				ID string `json:"id"`
			} `json:"kernel"`
		}
		err := up.call(cctx, http.MethodPost, "api/sessions", map[string]any{
			"path": "content/" + sid, "name": sid, "type": "notebook", "kernel": map[string]string{"name": "python3"}}, &made)
		if err != nil {
			return nil, err
		}
		if made.ID == "" || made.Kernel.ID == "" {
			return nil, errors.New("the Jupyter upstream made a session without a kernel")
		}
		uk.jsession, uk.kernelID = made.ID, made.Kernel.ID
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			<-ss.ctx.Done()
			s.endKernel(ss)
		}()
	}
	conn, err := kernel.Dial(ctx, up, uk.kernelID, kernel.Options{})
	if err != nil {
		return nil, err
	}
	uk.conn = conn
	return conn, nil
}

// endKernel ends session ss's Jupyter session, once: the upstream
// interrupts its kernel and shuts it down. It returns when that is done
// (or upstreamEndTimeout passed); delete_session calls it after
// releasing s.mu, and it runs again, doing nothing, when ss's context
// ends.
func (s *Server) endKernel(ss *sessionState) {
	s.mu.Lock()
	uk := ss.up
	s.mu.Unlock()
	if uk == nil {
		return
	}
	uk.endOnce.Do(func() {
		uk.mu.Lock()
		defer uk.mu.Unlock()
		uk.ended = true
		if uk.conn != nil {
			_ = uk.conn.Close()
			uk.conn = nil
		}
		if uk.jsession == "" {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), upstreamEndTimeout)
		defer cancel()
		_ = s.upstream().call(ctx, http.MethodDelete, "api/sessions/"+url.PathEscape(uk.jsession), nil, nil)
	})
}

// runCode runs execute_code's code in session ss of runtime rname: on
// its real kernel with Options.JupyterUpstream, else emulated
// (emulateCode).
func (s *Server) runCode(ctx context.Context, rname string, ss *sessionState, code string) (api.ExecuteCodeResult, error) {
	if s.opts.JupyterUpstream == "" {
		return s.emulateCode(ctx, rname, code)
	}
	conn, err := s.openKernel(ctx, ss)
	if err != nil {
		return api.ExecuteCodeResult{}, err
	}
	r, err := conn.Execute(ctx, code)
	if err == nil && ss.ctx.Err() != nil {
		// The session was deleted: its kernel's shutdown interrupted the
		// code, which is the deletion's abort, not the code's exception.
		err = errSessionEnded
	}
	if err != nil {
		return api.ExecuteCodeResult{}, err
	}
	out := api.ExecuteCodeResult{Stdout: r.Stdout, Stderr: r.Stderr, Result: r.Result, OutputTruncated: r.Truncated}
	if r.Error != nil {
		out.ExecutionError = &api.ExecuteError{Name: r.Error.Name, Value: r.Error.Value, Traceback: r.Error.Traceback}
	}
	return out, nil
}

// runFailure is the error of a run of session ss (named sname) that
// failed with err: ABORTED as a deletion's when the session ended (or the
// run was stopped), else ABORTED saying the kernel failed (a kernel
// killed or restarted, the upstream gone).
func runFailure(ss *sessionState, sname string, err error) *gErr {
	if ss.ctx.Err() != nil || errors.Is(err, errSessionEnded) || errors.Is(err, context.Canceled) {
		return newErr(api.Aborted, "Session %s was deleted while the code ran.", sname)
	}
	return newErr(api.Aborted, "The kernel of session %s failed while the code ran: %s", sname, api.OneLine(err.Error(), 300))
}
