package runtimeproxy

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/colabdash/colabdash/api/colabfake/pyemu"
	"github.com/google/uuid"
)

type jSession struct {
	ID     string  `json:"id"`
	Path   string  `json:"path"`
	Name   string  `json:"name"`
	Type   string  `json:"type"`
	Kernel jKernel `json:"kernel"`
}

type jKernel struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	LastActivity   string `json:"last_activity"`
	ExecutionState string `json:"execution_state"`
	Connections    int    `json:"connections"`
}

// serveSessions is GET api/sessions: one Jupyter session per open Colab
// session of runtime id, each with its kernel (kernelModel).
func (s *Server) serveSessions(w http.ResponseWriter, r *http.Request, id string) {
	if r.Method != http.MethodGet {
		jsonError(w, http.StatusMethodNotAllowed, "Method Not Allowed")
		return
	}
	out := []jSession{}
	for _, k := range s.rt.Kernels(id) {
		sid := k.Session
		out = append(out, jSession{ID: sid, Path: sid, Name: sid, Type: "notebook", Kernel: s.kernelModel(k)})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// serveKernels is GET api/kernels: the kernels of runtime id's open
// sessions (kernelModel), as jupyter_server lists its kernels.
func (s *Server) serveKernels(w http.ResponseWriter, r *http.Request, id string) {
	if r.Method != http.MethodGet {
		jsonError(w, http.StatusMethodNotAllowed, "Method Not Allowed")
		return
	}
	out := []jKernel{}
	for _, k := range s.rt.Kernels(id) {
		out = append(out, s.kernelModel(k))
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// kernelModel is Jupyter's kernel model of k: execution_state and
// last_activity from the emulated runs, connections the channels sockets
// open to it now.
func (s *Server) kernelModel(k Kernel) jKernel {
	state := k.ExecutionState
	if state == "" {
		state = "idle"
	}
	s.mu.Lock()
	n := len(s.conns[k.ID])
	s.mu.Unlock()
	return jKernel{ID: k.ID, Name: "python3", LastActivity: jupyterTime(k.LastActivity), ExecutionState: state, Connections: n}
}

// serveKernel is api/kernels/{id}/…: GET api/kernels/{id} (the kernel's
// model), POST interrupt (204; the runs of the kernel's session stop) and
// the channels WebSocket; 404 for a kernel that no open session of
// runtime id has.
func (s *Server) serveKernel(w http.ResponseWriter, r *http.Request, id, rest string) {
	kid, action, _ := strings.Cut(rest, "/")
	interrupt := action == "interrupt" && r.Method == http.MethodPost
	var found bool
	if interrupt {
		found = s.rt.InterruptKernel(id, kid)
	} else {
		found = s.rt.HasKernel(id, kid)
	}
	if !found {
		jsonError(w, http.StatusNotFound, "Kernel does not exist: %s", kid)
		return
	}
	switch {
	case interrupt:
		w.WriteHeader(http.StatusNoContent)
	case action == "channels":
		s.serveChannels(w, r, id, kid)
	case action == "" && r.Method == http.MethodGet:
		for _, k := range s.rt.Kernels(id) {
			if k.ID == kid {
				w.Header().Set("Content-Type", "application/json")
				_ = json.NewEncoder(w).Encode(s.kernelModel(k))
				return
			}
		}
		jsonError(w, http.StatusNotFound, "Kernel does not exist: %s", kid)
	default:
		jsonError(w, http.StatusNotFound, "Not Found")
	}
}

// connect records channels socket c of kernel kid open (open true) or
// closed.
func (s *Server) connect(kid string, c *websocket.Conn, open bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conns == nil {
		s.conns = map[string]map[*websocket.Conn]struct{}{}
	}
	if open {
		if s.conns[kid] == nil {
			s.conns[kid] = map[*websocket.Conn]struct{}{}
		}
		s.conns[kid][c] = struct{}{}
		return
	}
	if delete(s.conns[kid], c); len(s.conns[kid]) == 0 {
		delete(s.conns, kid)
	}
}

// Connections returns how many channels sockets are open on kernel
// kernelID.
func (s *Server) Connections(kernelID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns[kernelID])
}

// Publish writes a cell another client ran on kernel kernelID (an
// execute_code of the MCP server on its session: code, its execution
// count, what it printed) to every channels socket open on it, as a
// Jupyter server forwards a kernel's iopub to all of them: a "busy"
// status, the cell's execute_input, its stdout and stderr as stream
// messages and an "idle" status, parented by an execute_request of their
// own. A socket that does not take a message within 5 s is skipped.
func (s *Server) Publish(kernelID string, count int, code, stdout, stderr string) {
	s.mu.Lock()
	var socks []*websocket.Conn
	for c := range s.conns[kernelID] {
		socks = append(socks, c)
	}
	s.mu.Unlock()
	if len(socks) == 0 {
		return
	}
	parent := map[string]any{"msg_id": uuid.NewString(), "msg_type": "execute_request", "session": "colabfake-mcp",
		"username": "colabfake", "date": time.Now().UTC().Format(time.RFC3339Nano), "version": "5.3"}
	msgs := []map[string]any{{"execution_state": "busy"}, {"code": code, "execution_count": count}}
	if stdout != "" {
		msgs = append(msgs, map[string]any{"name": "stdout", "text": stdout})
	}
	if stderr != "" {
		msgs = append(msgs, map[string]any{"name": "stderr", "text": stderr})
	}
	msgs = append(msgs, map[string]any{"execution_state": "idle"})
	for _, c := range socks {
		for _, content := range msgs {
			typ := "stream"
			if _, ok := content["execution_state"]; ok {
				typ = "status"
			} else if _, ok := content["code"]; ok {
				typ = "execute_input"
			}
			b, _ := json.Marshal(map[string]any{
				"header": map[string]any{"msg_id": uuid.NewString(), "msg_type": typ, "session": kernelID,
					"username": "colabfake", "date": time.Now().UTC().Format(time.RFC3339Nano), "version": "5.3"},
				"parent_header": parent, "metadata": map[string]any{}, "content": content, "channel": "iopub",
			})
			ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
			err := c.Write(ctx, websocket.MessageText, b)
			cancel()
			if err != nil {
				break
			}
		}
	}
}

// serveChannels is a kernel's channels WebSocket
// (/api/kernels/{id}/channels): it answers every execute_request with a
// "busy" status, a stream output echoing the code, an execute_reply
// {"status":"ok"} and an "idle" status, on the shell and iopub channels
// as Jupyter's v5 JSON protocol does. Upgrades whose Origin host differs
// from Host are refused (403), as Tornado's check_origin does; the
// server offers permessage-deflate. While the socket is open it counts
// in the kernel's connections; every execute_request is kernel activity
// (runtime id's TouchKernel).
func (s *Server) serveChannels(w http.ResponseWriter, r *http.Request, id, kernelID string) {
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionContextTakeover})
	if err != nil {
		return
	}
	defer c.CloseNow()
	s.connect(kernelID, c, true)
	defer s.connect(kernelID, c, false)
	c.SetReadLimit(16 << 20)
	ctx := s.ctx
	count := 0
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			return
		}
		var msg struct {
			Header  map[string]any `json:"header"`
			Content struct {
				Code string `json:"code"`
			} `json:"content"`
			Channel string `json:"channel"`
		}
		if json.Unmarshal(data, &msg) != nil {
			continue
		}
		typ, _ := msg.Header["msg_type"].(string)
		if typ != "execute_request" {
			continue
		}
		count++
		s.rt.TouchKernel(id, kernelID)
		send := func(channel, msgType string, content any) error {
			out := map[string]any{
				"header": map[string]any{"msg_id": uuid.NewString(), "msg_type": msgType, "session": kernelID,
					"username": "colabfake", "date": time.Now().UTC().Format(time.RFC3339Nano), "version": "5.3"},
				"parent_header": msg.Header, "metadata": map[string]any{}, "content": content, "channel": channel,
			}
			b, _ := json.Marshal(out)
			wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			return c.Write(wctx, websocket.MessageText, b)
		}
		for _, step := range []struct {
			ch, typ string
			content any
		}{
			{"iopub", "status", map[string]any{"execution_state": "busy"}},
			{"iopub", "stream", map[string]any{"name": "stdout", "text": pyemu.Prefix + "ran: " + msg.Content.Code + "\n"}},
			{"shell", "execute_reply", map[string]any{"status": "ok", "execution_count": count}},
			{"iopub", "status", map[string]any{"execution_state": "idle"}},
		} {
			if err := send(step.ch, step.typ, step.content); err != nil {
				return
			}
		}
	}
}
