package tty

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake/testkit"
	"github.com/colabdash/colabdash/api/jupyter"
)

// serverClient is a Jupyter client for a test server h on loopback.
func serverClient(t *testing.T, h http.Handler) *jupyter.Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := jupyter.New(jupyter.Options{Runtime: "runtimes/rt-x", Info: api.ConnectionInfo{URL: srv.URL + "/base/", Token: "tok-abcdefgh"}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A server that closes with a code other than 1000 loses the terminal
// with that code, and the route is resolved below the base path.
func TestServerCloseCode(t *testing.T) {
	c := serverClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/base/colab/tty" {
			http.NotFound(w, r)
			return
		}
		conn, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		_ = conn.Close(websocket.StatusInternalError, "boom")
	}))
	term := Open(context.Background(), Options{Client: c})
	end, err := waitDone(t, term)
	var ce *CloseError
	if end != EndLost || !errors.As(err, &ce) || ce.Code != websocket.StatusInternalError || !strings.Contains(err.Error(), "1011") {
		t.Fatalf("end %v, %v; want lost, 1011", end, err)
	}
}

// A server that stops answering pings loses the terminal after one ping
// interval instead of hanging (case 72: idle proxies cut quiet sockets).
func TestUnansweredPingLosesTheConnection(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	c := serverClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer conn.CloseNow()
		<-release // never reads: pings go unanswered
	}))
	term := Open(context.Background(), Options{Client: c, PingInterval: 50 * time.Millisecond})
	end, err := waitDone(t, term)
	if end != EndLost || err == nil || !strings.HasPrefix(err.Error(), "the runtime stopped answering (no pong within 50ms)") {
		t.Fatalf("end %v, %v; want lost, no pong", end, err)
	}
}

// Pings are answered by a live server: an idle terminal stays open over
// many ping intervals.
func TestPingsKeepAnIdleTerminal(t *testing.T) {
	var pings int
	var mu sync.Mutex
	c := serverClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{OnPingReceived: func(context.Context, []byte) bool {
			mu.Lock()
			pings++
			mu.Unlock()
			return true
		}})
		if err != nil {
			return
		}
		defer conn.CloseNow()
		for {
			if _, _, err := conn.Read(r.Context()); err != nil {
				return
			}
		}
	}))
	// Each ping is given its interval for the pong: short enough for a
	// quick test, long enough that a busy machine answers in time.
	term := Open(context.Background(), Options{Client: c, PingInterval: 250 * time.Millisecond})
	defer term.Close()
	waitConnected(t, term)
	deadline := time.Now().Add(wait)
	for {
		mu.Lock()
		n := pings
		mu.Unlock()
		if n >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d pings", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case <-term.Done():
		end, err := term.Result()
		t.Fatalf("ended: %v %v", end, err)
	default:
	}
}

// stockNotFound answers as a stock jupyter-server does a route it lacks
// (colab/tty on a server without Colab's extensions): 404 with its HTML
// page.
func stockNotFound(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html")
	w.WriteHeader(http.StatusNotFound)
	_, _ = io.WriteString(w, "<html><title>404 : Not Found</title></html>")
}

// A stock-server-shaped fake (HTML 404 for colab/tty, terminado behind
// /api/terminals): the terminal falls back to terminado, sends rows
// first, relays stdout, ends on "disconnect" and deletes the terminal.
func TestTerminadoFallbackOnFakeServer(t *testing.T) {
	var mu sync.Mutex
	var got []string
	deleted := make(chan string, 1)
	c := serverClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/base/colab/tty":
			stockNotFound(w) // a stock server: no colab/tty
		case r.URL.Path == "/base/api/terminals" && r.Method == http.MethodPost:
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"name":"7","last_activity":"2026-12-01T18:00:00Z"}`)
		case r.URL.Path == "/base/api/terminals/7" && r.Method == http.MethodDelete:
			deleted <- "7"
			w.WriteHeader(http.StatusNoContent)
		case r.URL.Path == "/base/terminals/websocket/7":
			conn, err := websocket.Accept(w, r, nil)
			if err != nil {
				return
			}
			defer conn.CloseNow()
			ctx := r.Context()
			_ = conn.Write(ctx, websocket.MessageText, []byte(`["setup",{}]`))
			_ = conn.Write(ctx, websocket.MessageText, []byte(`["stdout","$ "]`))
			for {
				_, b, err := conn.Read(ctx)
				if err != nil {
					return
				}
				mu.Lock()
				got = append(got, string(b))
				mu.Unlock()
				if strings.Contains(string(b), "exit") {
					_ = conn.Write(ctx, websocket.MessageText, []byte(`["disconnect",1]`))
				}
			}
		default:
			http.NotFound(w, r)
		}
	}))
	out := newScreen()
	log := &testkit.SyncBuffer{}
	term := Open(context.Background(), Options{Client: c, Output: out, Cols: 90, Rows: 33,
		Logger: slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	out.waitFor(t, "$ ")
	_, _ = term.Write([]byte("exit\r"))
	if end, err := waitDone(t, term); end != EndExited || err != nil {
		t.Fatalf("end %v, %v; want exited", end, err)
	}
	if term.Protocol() != ProtocolTerminado {
		t.Errorf("protocol %q", term.Protocol())
	}
	select {
	case <-deleted:
	case <-time.After(wait):
		t.Fatal("the terminal was not deleted")
	}
	if strings.Contains(log.String(), "deleting the terminado terminal failed") {
		t.Errorf("a deletion that succeeded was logged as failed:\n%s", log.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) < 2 || got[0] != `["set_size",33,90,0,0]` || got[1] != `["stdin","exit\r"]` {
		t.Errorf("frames the server got: %q", got)
	}
}

// The proxy's bare 404 (a refused token) is not taken for a stock server:
// no terminado terminal is created.
func TestBare404IsARefusal(t *testing.T) {
	var posts int
	var mu sync.Mutex
	c := serverClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			mu.Lock()
			posts++
			mu.Unlock()
		}
		w.Header().Set("Content-Length", "0")
		w.WriteHeader(http.StatusNotFound)
	}))
	term := Open(context.Background(), Options{Client: c})
	end, err := waitDone(t, term)
	if end != EndNone || !errors.Is(err, jupyter.ErrRefused) {
		t.Fatalf("end %v, %v; want refused", end, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if posts != 0 {
		t.Errorf("%d POSTs: a refusal was taken for a stock server", posts)
	}
}
