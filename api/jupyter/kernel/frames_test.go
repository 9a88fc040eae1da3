package kernel

// The socket's untrusted frames, from a scripted server on loopback.

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// scripted is a channels socket on 127.0.0.1 that answers each
// execute_request with the frames script returns for its msg_id.
type scripted struct {
	url    string
	script func(parent string) []frame
}

type frame struct {
	typ  websocket.MessageType
	data []byte
}

func (s *scripted) DialWebSocket(ctx context.Context, path string) (*websocket.Conn, error) {
	c, _, err := websocket.Dial(ctx, s.url+"/"+path, nil)
	return c, err
}

func newScripted(t *testing.T, script func(parent string) []frame) *scripted {
	s := &scripted{script: script}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		c.SetReadLimit(-1)
		for {
			_, data, err := c.Read(r.Context())
			if err != nil {
				return
			}
			var req wireMessage
			_ = json.Unmarshal(data, &req)
			for _, f := range s.script(req.Header.MsgID) {
				if c.Write(r.Context(), f.typ, f.data) != nil {
					return
				}
			}
		}
	}))
	t.Cleanup(srv.Close)
	s.url = "ws" + strings.TrimPrefix(srv.URL, "http")
	return s
}

// msg is a JSON frame of a message of type typ on channel, child of parent.
func msg(channel, typ, parent string, content any) frame {
	c, _ := json.Marshal(content)
	b, _ := json.Marshal(map[string]any{"header": map[string]string{"msg_id": newID(), "msg_type": typ},
		"parent_header": map[string]string{"msg_id": parent}, "content": json.RawMessage(c), "channel": channel})
	return frame{websocket.MessageText, b}
}

// binaryFrame is jupyter_server's binary layout of m with one buffer.
func binaryFrame(m frame, buf []byte) frame {
	head := 4 + 4*2
	out := make([]byte, head, head+len(m.data)+len(buf))
	binary.BigEndian.PutUint32(out, 2)
	binary.BigEndian.PutUint32(out[4:], uint32(head))
	binary.BigEndian.PutUint32(out[8:], uint32(head+len(m.data)))
	out = append(append(out, m.data...), buf...)
	return frame{websocket.MessageBinary, out}
}

func idle(parent string) frame {
	return msg("iopub", "status", parent, map[string]string{"execution_state": "idle"})
}

func reply(parent, status string) frame {
	return msg("shell", "execute_reply", parent, map[string]any{"status": status, "execution_count": 3})
}

func stream(parent, name, text string) frame {
	return msg("iopub", "stream", parent, map[string]string{"name": name, "text": text})
}

// A message past MaxMessage, garbage and a malformed binary frame are
// skipped (the run says output may be missing) without ending the
// socket; a binary frame's JSON part is read; another request's output
// is not this run's; the run ends only with both idle and the reply.
func TestUntrustedFramesAreSkippedNotFatal(t *testing.T) {
	s := newScripted(t, func(p string) []frame {
		return []frame{
			stream(p, "stdout", "kept\n"),
			stream(p, "stdout", strings.Repeat("x", 5000)), // past MaxMessage
			{websocket.MessageText, []byte("not json")},
			{websocket.MessageBinary, []byte{0, 0, 0, 9, 0}},
			binaryFrame(stream(p, "stderr", "from a binary frame\n"), []byte("buffer")),
			stream("someone-else", "stdout", "not mine\n"),
			idle(p),
			stream(p, "stdout", "after idle, before the reply\n"),
			reply(p, "ok"),
		}
	})
	c, err := Dial(context.Background(), s, "k1", Options{MaxMessage: 1000})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r, err := c.Execute(context.Background(), "x")
	if err != nil {
		t.Fatal(err)
	}
	if r.Stdout != "kept\nafter idle, before the reply\n" || r.Stderr != "from a binary frame\n" || !r.Truncated || r.ExecutionCount != 3 {
		t.Fatalf("stdout %q stderr %q truncated %v In[%d]", r.Stdout, r.Stderr, r.Truncated, r.ExecutionCount)
	}
	if c.Skipped() != 3 {
		t.Errorf("skipped %d, want 3", c.Skipped())
	}
	// The socket still works.
	if r, err = c.Execute(context.Background(), "y"); err != nil || !strings.HasPrefix(r.Stdout, "kept\n") {
		t.Fatalf("second run: %+v, %v", r, err)
	}
}

// A request aborted behind a failing one ends at its reply; the server's
// "restarting" status ends a run with ErrKernelLost; a socket the server
// closes ends the runs in flight and later ones with ErrClosed.
func TestRunsEndWithTheKernel(t *testing.T) {
	n := 0
	s := newScripted(t, func(p string) []frame {
		n++
		switch n {
		case 1:
			return []frame{reply(p, "aborted")}
		case 2:
			return []frame{stream(p, "stdout", "a"), msg("iopub", "status", "", map[string]string{"execution_state": "restarting"})}
		}
		return nil // never answered
	})
	c, err := Dial(context.Background(), s, "k1", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if r, err := c.Execute(context.Background(), "a"); err != nil || r.Status != "aborted" {
		t.Fatalf("aborted request: %+v, %v", r, err)
	}
	if _, err := c.Execute(context.Background(), "b"); !errors.Is(err, ErrKernelLost) {
		t.Fatalf("restarting kernel: %v, want ErrKernelLost", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := c.Execute(ctx, "c"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a run the kernel never answers: %v, want the context's error", err)
	}
	_ = c.Close()
	if _, err := c.Execute(context.Background(), "d"); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v, want ErrClosed", err)
	}
}

func TestFirstPartRejectsBadOffsets(t *testing.T) {
	for _, b := range [][]byte{
		nil,
		{0, 0, 0, 1, 0, 0, 0, 3},             // offset inside the table
		{0, 0, 0, 1, 0, 0, 0, 99},            // offset past the end
		{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 8}, // count larger than the frame
		{0, 0, 0, 2, 0, 0, 0, 12, 0, 0, 0, 11, 1, 2}, // second offset before the first
		{0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 11, 1, 2},  // no parts
	} {
		if _, err := firstPart(b); err == nil {
			t.Errorf("firstPart(%v) accepted", b)
		}
	}
	if p, err := firstPart([]byte{0, 0, 0, 1, 0, 0, 0, 8, '{', '}'}); err != nil || string(p) != "{}" {
		t.Errorf("one part: %q, %v", p, err)
	}
}
