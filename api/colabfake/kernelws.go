package colabfake

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"
)

// serveChannels is a kernel's channels WebSocket
// (/api/kernels/{id}/channels): it answers every execute_request with a
// "busy" status, a stream output echoing the code, an execute_reply
// {"status":"ok"} and an "idle" status, on the shell and iopub channels
// as Jupyter's v5 JSON protocol does. Upgrades whose Origin host differs
// from Host are refused (403), as Tornado's check_origin does; the
// server offers permessage-deflate.
func (s *Server) serveChannels(w http.ResponseWriter, r *http.Request, kernelID string) {
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionContextTakeover})
	if err != nil {
		return
	}
	defer c.CloseNow()
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
			{"iopub", "stream", map[string]any{"name": "stdout", "text": EmulatedPrefix + "ran: " + msg.Content.Code + "\n"}},
			{"shell", "execute_reply", map[string]any{"status": "ok", "execution_count": count}},
			{"iopub", "status", map[string]any{"execution_state": "idle"}},
		} {
			if err := send(step.ch, step.typ, step.content); err != nil {
				return
			}
		}
	}
}
