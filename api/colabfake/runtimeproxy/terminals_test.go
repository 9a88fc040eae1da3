package runtimeproxy

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// api/terminals lists the open colab/tty terminals of a runtime with a
// last_activity that typing and output move by the emulator's clock, and
// forgets a terminal once its socket closes.
func TestTerminalsListTheOpenTTYs(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC)
	rt := &fakeRuntimes{now: t0, token: "good", expire: t0.Add(time.Hour)}
	_, base := startProxy(t, rt)
	list := func() []jTerminal {
		t.Helper()
		status, body := do(t, http.MethodGet, base+"rt-a/api/terminals", "good")
		var out []jTerminal
		if status != 200 || json.Unmarshal([]byte(body), &out) != nil {
			t.Fatalf("api/terminals: %d %q", status, body)
		}
		return out
	}
	if got := list(); len(got) != 0 {
		t.Fatalf("no terminal open, listed %+v", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	url := "ws" + strings.TrimPrefix(base, "http") + "rt-a/colab/tty"
	c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{TokenHeader: {"good"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	if _, _, err := c.Read(ctx); err != nil { // the prompt
		t.Fatal(err)
	}
	got := list()
	if len(got) != 1 || got[0].Name != "1" || got[0].LastActivity != jupyterTime(t0) {
		t.Fatalf("one terminal open at %v, listed %+v", t0, got)
	}
	rt.mu.Lock()
	rt.now = t0.Add(90 * time.Second)
	rt.mu.Unlock()
	if err := c.Write(ctx, websocket.MessageText, []byte(`{"data":"echo hi\r"}`)); err != nil {
		t.Fatal(err)
	}
	for got = list(); got[0].LastActivity != jupyterTime(t0.Add(90*time.Second)); got = list() {
		if ctx.Err() != nil {
			t.Fatalf("typing did not move last_activity: %+v", got)
		}
		time.Sleep(10 * time.Millisecond) // polling what the server lists, not a fixed wait
	}
	_ = c.Close(websocket.StatusNormalClosure, "")
	for len(list()) != 0 {
		if ctx.Err() != nil {
			t.Fatalf("a closed terminal is still listed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if status, _ := do(t, http.MethodPost, base+"rt-a/api/terminals", "good"); status != http.StatusMethodNotAllowed {
		t.Errorf("POST api/terminals: %d", status)
	}
}
