package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// runInKernel runs code on kernel kid through the runtime proxy's
// channels WebSocket, as execute_code does, and returns what it printed
// on stdout once the kernel is idle again.
func runInKernel(t *testing.T, jc *jupyter.Client, kid, code string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	conn, err := jc.DialWebSocket(ctx, "api/kernels/"+kid+"/channels")
	if err != nil {
		t.Fatalf("kernel channels: %v", err)
	}
	defer conn.Close(websocket.StatusNormalClosure, "")
	msgID := "launch-" + kid
	req, _ := json.Marshal(map[string]any{
		"header":        map[string]any{"msg_id": msgID, "msg_type": "execute_request", "session": "jobs-test", "username": "test", "version": "5.3", "date": time.Now().UTC().Format(time.RFC3339)},
		"parent_header": map[string]any{}, "metadata": map[string]any{}, "channel": "shell", "buffers": []any{},
		"content": map[string]any{"code": code, "silent": false, "store_history": false, "user_expressions": map[string]any{}, "allow_stdin": false, "stop_on_error": true},
	})
	if err := conn.Write(ctx, websocket.MessageText, req); err != nil {
		t.Fatalf("execute_request: %v", err)
	}
	var stdout strings.Builder
	for {
		_, b, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("kernel reply: %v (stdout so far %q)", err, stdout.String())
		}
		var m struct {
			Header struct {
				MsgType string `json:"msg_type"`
			} `json:"header"`
			ParentHeader struct {
				MsgID string `json:"msg_id"`
			} `json:"parent_header"`
			Content struct {
				Name           string `json:"name"`
				Text           string `json:"text"`
				ExecutionState string `json:"execution_state"`
				Ename          string `json:"ename"`
				Evalue         string `json:"evalue"`
			} `json:"content"`
		}
		if json.Unmarshal(b, &m) != nil || m.ParentHeader.MsgID != msgID {
			continue
		}
		switch m.Header.MsgType {
		case "stream":
			if m.Content.Name == "stdout" {
				stdout.WriteString(m.Content.Text)
			}
		case "error":
			t.Fatalf("the launcher raised %s: %s", m.Content.Ename, m.Content.Evalue)
		case "status":
			if m.Content.ExecutionState == "idle" {
				return stdout.String()
			}
		}
	}
}

// startKernel starts a kernel for the notebook path (POST api/sessions),
// so that it runs in the notebook's directory as Colab's does in
// /content, and returns its id; the session is deleted when the test
// ends.
func (e *env) startKernel(t *testing.T, path string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	body, _ := json.Marshal(map[string]any{"path": path, "name": path, "type": "notebook", "kernel": map[string]any{"name": "python3"}})
	resp, err := e.jc.Do(ctx, &proxy.Request{Op: "start kernel", Method: http.MethodPost, Path: "api/sessions",
		Body: func() (io.Reader, int64) { return bytes.NewReader(body), int64(len(body)) }, Remote: path})
	if err != nil {
		t.Fatalf("starting a kernel: %v", err)
	}
	var s struct {
		ID     string `json:"id"`
		Kernel struct {
			ID string `json:"id"`
		} `json:"kernel"`
	}
	err = json.NewDecoder(resp.Body).Decode(&s)
	resp.Body.Close()
	if err != nil || s.Kernel.ID == "" {
		t.Fatalf("starting a kernel: %v (session %+v)", err, s)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		defer cancel()
		if resp, err := e.jc.Do(ctx, &proxy.Request{Op: "delete session", Method: http.MethodDelete, Path: "api/sessions/" + s.ID}); err == nil {
			resp.Body.Close()
		}
	})
	return s.Kernel.ID
}

// The launcher run by a real ipykernel, through the runtime proxy, starts
// the job and leaves nothing of it to the kernel: restarting the kernel
// (which kills the kernel's whole process group) leaves the job running,
// its log growing.
func TestJobOutlivesARealKernelRestart(t *testing.T) {
	e := newEnv(t, colabfake.Options{})
	j := e.prepare(t, "survive.py", counting(100000, 20))
	kid := e.startKernel(t, e.P("notebook.ipynb"))
	out := runInKernel(t, e.jc, kid, LauncherCode(j.spec.ID))
	var err error
	if j.sup, err = ParseLaunch(out); err != nil {
		t.Fatalf("ParseLaunch(%q): %v", out, err)
	}
	var st *Status
	waitFor(t, "the job's start", func() bool { st = j.status(t); return st != nil && st.Pid > 0 })

	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	resp, err := e.jc.Do(ctx, &proxy.Request{Op: "restart", Method: http.MethodPost, Path: "api/kernels/" + kid + "/restart", Remote: kid})
	if err != nil {
		t.Fatalf("restarting the kernel: %v", err)
	}
	resp.Body.Close()
	after := logSize(j)
	waitFor(t, "the log growing after the kernel's restart", func() bool { return logSize(j) > after+100 })
	if !alive(j.sup) || !alive(st.Pid) {
		t.Fatalf("after the kernel's restart: supervisor alive %v, job alive %v", alive(j.sup), alive(st.Pid))
	}
	if st := j.status(t); !st.Ended.IsZero() {
		t.Errorf("the job ended with the kernel: %+v", st)
	}
}
