package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
)

// Guards the mapping of every error status to a kind a user can act on,
// with the server's message (or its traceback's last line) on one line.
func TestStatusKinds(t *testing.T) {
	for _, tc := range []struct {
		name, path, ct, body string
		status               int
		header               http.Header
		kind                 error
		text                 string // in the error's line
	}{
		{"bad request", "content/x", "application/json", `{"message":"directory not empty"}`, 400, nil, ErrServer, "directory not empty"},
		{"forbidden", "content/x", "application/json", `{"message":"nope"}`, 403, nil, ErrPermission, "nope"},
		{"conflict", "content/x", "application/json", `{"message":"exists"}`, 409, nil, ErrExists, "exists"},
		{"Jupyter's 404", "content/x", "application/json", `{"message":"No such file"}`, 404, nil, ErrNotFound, "stat rt-x:/content/x: " + ErrNotFound.Error()},
		{"Jupyter's 404 of a hidden name", "content/.env", "application/json", `{"message":"No such file"}`, 404, nil, ErrHidden, "hidden"},
		{"Tornado's 404", "content/x", "text/plain", `not found`, 404, http.Header{"Server": {"TornadoServer/6.2"}}, ErrNotFound, ErrNotFound.Error()},
		{"a proxy's 413", "content/x", "text/html", `<html>413 Request Entity Too Large</html>`, 413, nil, ErrServer, "HTTP 413, not from Jupyter"},
		{"a traceback", "content/x", "application/json", `{"message":"Unhandled error","traceback":"Traceback:\n  File x\nValueError: boom\n"}`, 500, nil, ErrServer, "Unhandled error: ValueError: boom"},
		{"a permission traceback", "content/x", "application/json", `{"message":"Unhandled error","traceback":"Traceback:\nPermissionError: [Errno 13]"}`, 500, nil, ErrPermission, "permission denied"},
		{"another 500", "content/x", "text/plain", `oops`, 502, nil, ErrServer, "HTTP 502"},
		// Jupyter's page text is trusted only in an HTML page: a front
		// end's plain-text 404 quoting it is still the proxy's refusal.
		{"a plain-text 404 quoting Jupyter", "content/x", "text/plain", `You are requesting a page that does not exist`, 404, nil, ErrRefused, "cannot be renewed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := serve(t, func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tc.header {
					w.Header()[k] = v
				}
				w.Header().Set("Content-Type", tc.ct)
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			})
			_, err := c.Stat(context.Background(), tc.path)
			var je *Error
			// A refusal is the renewal's error, which has no status.
			status := tc.status
			if tc.kind == ErrRefused {
				status = 0
			}
			if !errors.Is(err, tc.kind) || !errors.As(err, &je) || je.Status != status || !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("%d: %v, want %v with %q and status %d", tc.status, err, tc.kind, tc.text, status)
			}
		})
	}
}

// Guards what a request carries: Stat asks for no content (a large
// file's stat must not bring its bytes), a listing asks for it of a
// directory only (a file is refused before the server reads it), and a
// body goes with its length and as JSON, with the proxy token and the
// client agent.
func TestRequestShape(t *testing.T) {
	var bad atomic.Value
	c := serve(t, func(w http.ResponseWriter, r *http.Request) {
		problem := ""
		switch {
		case r.Header.Get(TokenHeader) != "tok-0123456789" || r.Header.Get(AgentHeader) != Agent:
			problem = "token or agent header missing"
		case r.Method == http.MethodGet && r.URL.RawQuery != map[string]string{"/api/contents/content/f": "content=0", "/api/contents/content/d": "content=1&type=directory"}[r.URL.Path]:
			problem = "query " + r.URL.RawQuery + " for " + r.URL.Path
		case r.Method == http.MethodPut:
			b, _ := io.ReadAll(r.Body)
			if r.ContentLength != int64(len(b)) || r.Header.Get("Content-Type") != "application/json" || string(b) != `{"type":"directory"}` {
				problem = fmt.Sprintf("PUT of %d bytes, Content-Length %d, Content-Type %q: %s", len(b), r.ContentLength, r.Header.Get("Content-Type"), b)
			}
		}
		if problem != "" {
			bad.Store(problem)
			w.WriteHeader(400)
			return
		}
		switch r.URL.Path {
		case "/api/contents/content/d":
			io.WriteString(w, `{"name":"d","path":"content/d","type":"directory","content":[]}`)
		case "/api/sessions":
			io.WriteString(w, `[]`)
		default:
			io.WriteString(w, `{"name":"f","path":"content/f","type":"directory","size":null}`)
		}
	})
	ctx := context.Background()
	_, err1 := c.Stat(ctx, "content/f")
	_, err2 := c.List(ctx, "content/d")
	_, err3 := c.Mkdir(ctx, "content/n")
	_, err4 := c.Sessions(ctx)
	if p := bad.Load(); p != nil || err1 != nil || err2 != nil || err3 != nil || err4 != nil {
		t.Fatalf("%v; errors %v %v %v %v", p, err1, err2, err3, err4)
	}
}

// Guards the retry after the proxy's bare 404: the token is renewed and
// the request sent once more, which then works; an answer that is not
// JSON is ErrServer; a call with no answer within CallTimeout says so;
// a cancelled call is the context's error, not a network failure.
func TestRetryTimeoutAndCancel(t *testing.T) {
	var renewed atomic.Bool
	c := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/api/contents/content/slow":
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
			return
		case r.Header.Get(TokenHeader) != "tok-1" && !renewed.Load():
			w.WriteHeader(404) // the proxy's bare 404
			return
		case r.URL.Path == "/api/contents/content/garbage":
			io.WriteString(w, `<html>not json</html>`)
			return
		}
		io.WriteString(w, `{"name":"f","path":"content/f","type":"file","size":2}`)
	}, func(o *Options) {
		o.CallTimeout = 200 * time.Millisecond
		o.Renew = func(context.Context) (api.ConnectionInfo, error) {
			renewed.Store(true)
			return api.ConnectionInfo{URL: o.Info.URL, Token: "tok-1", ExpireTime: time.Now().Add(time.Hour)}, nil
		}
	})
	ctx := context.Background()
	if m, err := c.Stat(ctx, "content/f"); err != nil || m.Size != 2 || c.Renewals() != 1 {
		t.Fatalf("after the proxy's 404: %+v, %v, %d renewals; want the model after one renewal", m, err, c.Renewals())
	}
	if _, err := c.Stat(ctx, "content/garbage"); !errors.Is(err, ErrServer) || !strings.Contains(err.Error(), "not the expected JSON") {
		t.Fatalf("a reply that is not JSON: %v", err)
	}
	if _, err := c.Stat(ctx, "content/slow"); !errors.Is(err, ErrTransport) || !strings.Contains(err.Error(), "no answer within 200ms") {
		t.Fatalf("a call without answer: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.Stat(cctx, "content/f"); !errors.Is(err, context.Canceled) || errors.Is(err, ErrTransport) {
		t.Fatalf("a cancelled call: %v, want context.Canceled", err)
	}
}

// Guards the check of each listed entry's name before it becomes a
// path component (RemoveAll, a recursive download).
func TestSafeName(t *testing.T) {
	for _, tc := range []struct {
		name, path string
		ok         bool
	}{
		{"a.txt", "content/d/a.txt", true}, {"a.txt", "", true}, {"a b", "/content/d/a b", true},
		{"", "", false}, {".", "", false}, {"..", "", false}, {"a/b", "", false}, {`a\b`, "", false}, {"a\x00", "", false},
		{"/abs", "", false}, {"a.txt", "content/other/a.txt", false},
	} {
		got, err := SafeName(Model{Name: tc.name, Path: tc.path}, "content/d")
		if tc.ok != (err == nil) || (tc.ok && got != tc.name) {
			t.Errorf("SafeName(%q, %q) = %q, %v; want ok %v", tc.name, tc.path, got, err, tc.ok)
		}
	}
}

// Guards the listing of something that is not a directory: ErrNotDir
// naming the path listed, before each is called.
func TestListOfAFile(t *testing.T) {
	c := serve(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"name":"f","path":"content/f","type":"file","size":2,"content":"aGk="}`)
	})
	called := false
	_, n, err := c.ListEach(context.Background(), "/content/f", func(Model) error { called = true; return nil })
	var je *Error
	if !errors.Is(err, ErrNotDir) || !errors.As(err, &je) || je.Path != "content/f" || n != 0 || called {
		t.Fatalf("ListEach of a file: %d entries, %v; want ErrNotDir naming content/f and no entry", n, err)
	}
}

// Guards the listing's byte budget outside its entries (1 MiB, plus 64
// KiB for the entry being decoded): a reply whose other fields take
// 1,000,000 bytes is still read, one whose fields take 1.2 MB is not a
// listing.
func TestListingHeadBudget(t *testing.T) {
	for _, tc := range []struct {
		pad int
		ok  bool
	}{{1_000_000, true}, {1_200_000, false}} {
		c := serve(t, func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"name":"d","path":"content/d","type":"directory","note":"%s","content":[{"name":"a","path":"content/d/a","type":"file","size":1}]}`,
				strings.Repeat("x", tc.pad))
		})
		l, err := c.List(context.Background(), "content/d")
		if tc.ok && (err != nil || len(l.Entries) != 1) {
			t.Errorf("%d bytes of other fields: %+v, %v; want the listing", tc.pad, l, err)
		}
		if !tc.ok && !errors.Is(err, ErrServer) {
			t.Errorf("%d bytes of other fields: %v, want ErrServer (not a listing)", tc.pad, err)
		}
	}
}

// Guards the reading of Jupyter's bare "Unhandled error" (a 500 with no
// traceback, as jupyter-server answers a stat, a listing or a download
// of a file it may not read): permission denied for those three
// operations, the server's own failure for any other.
func TestBareUnhandledErrorIsPermissionForReads(t *testing.T) {
	for op, want := range map[string]error{"stat": ErrPermission, "list": ErrPermission, "download": ErrPermission, "mkdir": ErrServer} {
		c := &Client{o: Options{}.withDefaults(), id: "rt-x"}
		e := c.statusError(op, "content/x", http.StatusInternalServerError, errorReply{msg: "Unhandled error", jupyter: true})
		if !errors.Is(e, want) {
			t.Errorf("%s: a bare Unhandled error is %v, want %v", op, e.Kind, want)
		}
	}
}
