package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
)

// A directory of 120,000 entries is a 35 MB reply, over
// the 32 MiB bound every other JSON reply has; it lists whole, each entry
// as it arrives, in the server's order. (Here 20,000 entries, 5.9 MB,
// against a MaxReply of 1 MiB: the same, at a sixth of the time under
// the race detector; BenchmarkList100k lists 100,000.)
func TestListHugeDirectory(t *testing.T) {
	const n = 20_000
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{ManyFiles: n, TokenTTL: 24 * time.Hour})
	c := e.client(func(o *Options) { o.MaxReply = 1 << 20 })
	ctx := context.Background()
	got := 0
	m, count, err := c.ListEach(ctx, colabfake.SyntheticDir, func(m Model) error {
		got++
		if got == 1 && (m.Name != colabfake.SyntheticName(1) || m.Size != 0 || m.IsDir() || m.LastModified.IsZero()) {
			t.Errorf("first entry = %+v", m)
		}
		return nil
	})
	if err != nil || count != n || got != n || !m.IsDir() || m.Name != "many" {
		t.Fatalf("ListEach = %+v, %d (%d seen), %v", m, count, got, err)
	}
	l, err := c.List(ctx, colabfake.SyntheticDir)
	if err != nil || len(l.Entries) != n || l.Entries[n-1].Name != colabfake.SyntheticName(n) {
		t.Fatalf("List: %d entries, %v", len(l.Entries), err)
	}
	// The directory shows in /content, and an entry can be stat-ed.
	root, err := c.List(ctx, "content")
	if err != nil || !hasEntry(root.Entries, "many", true) {
		t.Fatalf("content/ = %+v, %v", root.Entries, err)
	}
	if st, err := c.Stat(ctx, colabfake.SyntheticDir+"/"+colabfake.SyntheticName(7)); err != nil || st.Size != 0 {
		t.Fatalf("Stat of an entry = %+v, %v", st, err)
	}
}

func hasEntry(es []Model, name string, dir bool) bool {
	for _, e := range es {
		if e.Name == name && e.IsDir() == dir {
			return true
		}
	}
	return false
}

// The listing is bounded by entries, then by time: either says how many
// arrived, never "the Jupyter server failed".
func TestListBoundedByEntriesAndTime(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{ManyFiles: 5000, TokenTTL: 24 * time.Hour})
	ctx := context.Background()
	c := e.client(func(o *Options) { o.MaxEntries = 1000 })
	seen := 0
	_, n, err := c.ListEach(ctx, colabfake.SyntheticDir, func(Model) error { seen++; return nil })
	if !errors.Is(err, ErrListTooLarge) || n != 1000 || seen != 1000 || !strings.Contains(err.Error(), "more than 1000 entries") ||
		strings.Contains(err.Error(), ErrServer.Error()) {
		t.Fatalf("over MaxEntries: %d entries, %v", n, err)
	}
	var je *Error
	if !errors.As(err, &je) || je.Path != colabfake.SyntheticDir || je.Class() != "too large" {
		t.Fatalf("error %#v", err)
	}
	// A reply that keeps coming past ListTimeout.
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"name":"big","path":"content/big","type":"directory","content":[`)
		for i := 0; r.Context().Err() == nil; i++ {
			if i > 0 {
				fmt.Fprint(w, ",")
			}
			fmt.Fprintf(w, `{"name":"f%d","path":"content/big/f%d","type":"file","size":1}`, i, i)
			if i%100 == 99 {
				w.(http.Flusher).Flush()
				time.Sleep(time.Millisecond)
			}
		}
	}))
	defer slow.Close()
	sc, err := New(Options{Runtime: "rt-x", Info: api.ConnectionInfo{URL: slow.URL + "/", Token: "t"}, ListTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, n, err = sc.ListEach(ctx, "content/big", func(Model) error { return nil })
	if !errors.Is(err, ErrListTooLarge) || n == 0 || !strings.Contains(err.Error(), "entries arrived in 300ms") {
		t.Fatalf("past ListTimeout: %d entries, %v", n, err)
	}
}

// fixture is a client of jupytertest.ContentsServer(body).
func fixture(t *testing.T, body func(path string) string) *Client {
	t.Helper()
	u := jupytertest.ContentsServer(t, body)
	c, err := New(Options{Runtime: "rt-x", Info: api.ConnectionInfo{URL: u, Token: "t"}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A reply that is not a listing stops at a bound, whatever its size: an
// entry larger than 64 KiB.
func TestListRefusesAHugeEntry(t *testing.T) {
	c := fixture(t, func(string) string {
		return `{"name":"d","path":"content/d","type":"directory","content":[{"name":"` + strings.Repeat("x", 3<<20) + `","type":"file"}]}`
	})
	_, _, err := c.ListEach(context.Background(), "content/d", func(Model) error { return nil })
	if !errors.Is(err, ErrServer) || !strings.Contains(err.Error(), "larger than 64 KiB") {
		t.Fatalf("err = %v", err)
	}
	// A file's content is no listing: ErrNotDir, each never called.
	c = fixture(t, func(string) string { return `{"name":"f","path":"content/f","content":"abc","type":"file"}` })
	_, _, err = c.ListEach(context.Background(), "content/f", func(Model) error { t.Error("each called"); return nil })
	if !errors.Is(err, ErrNotDir) {
		t.Fatalf("err = %v", err)
	}
}

// A listing of a file is ErrNotDir, whether the server refuses the
// type=directory listing as jupyter-server does (400 "… is not a
// directory", before it reads the file) or ignores type and sends the
// file; each is never called either way.
func TestListOfAFileIsNotDir(t *testing.T) {
	for _, refuse := range []bool{true, false} {
		c := serve(t, func(w http.ResponseWriter, r *http.Request) {
			if refuse && r.URL.Query().Get("type") == "directory" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"message": "content/f.bin is not a directory", "reason": "bad type"}`)
				return
			}
			io.WriteString(w, `{"name": "f.bin", "path": "content/f.bin", "type": "file", "format": "base64", "content": "AAAA"}`)
		})
		_, n, err := c.ListEach(context.Background(), "content/f.bin", func(Model) error { t.Error("each called"); return nil })
		if !errors.Is(err, ErrNotDir) || n != 0 {
			t.Errorf("refused by the server %v: %d entries, err = %v", refuse, n, err)
		}
	}
}

// A connection reset in the middle of a listing is a transport failure
// (try again), not a reply that is "not the expected JSON": the reader's
// own error wins over jsontext's report of the value it cut.
func TestListResetMidwayIsTransport(t *testing.T) {
	c := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"name": "d", "path": "content/d", "type": "directory", "content": [{"name": "a", "type": "file"}, {"name": "b`)
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		conn.(*net.TCPConn).SetLinger(0) // close with RST
		conn.Close()
	})
	_, n, err := c.ListEach(context.Background(), "content/d", func(Model) error { return nil })
	if !errors.Is(err, ErrTransport) || n != 1 {
		t.Fatalf("ListEach after a reset: %d entries, %v; want the first entry and ErrTransport", n, err)
	}
}
