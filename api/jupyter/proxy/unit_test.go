package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake/testkit"
)

// serve is a Client of a runtime whose Jupyter server is h (no proxy in
// between: every request reaches h).
func serve(t *testing.T, h http.HandlerFunc, mod ...func(*Options)) *Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	o := Options{Runtime: "runtimes/rt-x", Info: api.ConnectionInfo{URL: srv.URL + "/", Token: "tok-0123456789"}}
	for _, m := range mod {
		m(&o)
	}
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Guards New's documented defaults: every zero (or negative) bound is
// replaced by its default, an upload piece size is a multiple of 3 (its
// base64 has no padding) of at most MaxChunkSize, and what is given is
// kept.
func TestNewAppliesDefaults(t *testing.T) {
	info := api.ConnectionInfo{URL: "https://8080-m-s-rt-x.prod.colab.dev/", Token: "t"}
	for _, zero := range []time.Duration{0, -1} {
		c, err := New(Options{Info: info, RenewLead: zero, CallTimeout: zero, IdleTimeout: zero, ListTimeout: zero, RetryDelay: zero,
			ChunkSize: int64(zero), MaxReply: int64(zero), MaxEntries: int(zero), MaxUnknownSize: int64(zero), MaxRetries: int(zero)})
		if err != nil {
			t.Fatal(err)
		}
		o := c.Options()
		if o.RenewLead != DefaultRenewLead || o.CallTimeout != DefaultCallTimeout || o.IdleTimeout != DefaultIdleTimeout ||
			o.ListTimeout != DefaultListTimeout || o.RetryDelay != 200*time.Millisecond || o.ChunkSize != DefaultChunkSize ||
			o.MaxReply != DefaultMaxReply || o.MaxEntries != DefaultMaxEntries || o.MaxUnknownSize != DefaultMaxUnknownSize ||
			o.MaxRetries != DefaultMaxRetries {
			t.Errorf("defaults for %v: %+v", zero, o)
		}
		if o.Now == nil || o.Transport == nil || o.Logger == nil || o.Redactor == nil {
			t.Errorf("defaults for %v: a nil clock, transport, logger or redactor", zero)
		}
	}
	given := Options{Info: info, RenewLead: time.Second, CallTimeout: 2 * time.Second, IdleTimeout: 3 * time.Second,
		ListTimeout: 4 * time.Second, RetryDelay: 5 * time.Millisecond, MaxReply: 6, MaxEntries: 7, MaxUnknownSize: 8, MaxRetries: 9}
	for _, tc := range []struct{ chunk, want int64 }{
		{1, 1}, {2, 2}, {3, 3}, {10, 9}, {1 << 20, 1<<20 - 1}, {MaxChunkSize, MaxChunkSize - MaxChunkSize%3}, {MaxChunkSize + 10, MaxChunkSize - MaxChunkSize%3},
	} {
		o := given
		o.ChunkSize = tc.chunk
		c, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		got := c.Options()
		if got.ChunkSize != tc.want {
			t.Errorf("ChunkSize %d became %d, want %d", tc.chunk, got.ChunkSize, tc.want)
		}
		if got.RenewLead != time.Second || got.CallTimeout != 2*time.Second || got.IdleTimeout != 3*time.Second ||
			got.ListTimeout != 4*time.Second || got.RetryDelay != 5*time.Millisecond || got.MaxReply != 6 ||
			got.MaxEntries != 7 || got.MaxUnknownSize != 8 || got.MaxRetries != 9 {
			t.Errorf("given options not kept: %+v", got)
		}
	}
}

// Guards renewing ahead of expiry with the default lead (5 min): a token
// with 6 minutes left is used as is, one with 4 minutes left is renewed
// before the request.
func TestRenewalAheadOfExpiry(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		left  time.Duration
		renew bool
	}{{6 * time.Minute, false}, {4 * time.Minute, true}} {
		c := renewClient(t, func() time.Time { return now }, now.Add(tc.left), func(context.Context) (api.ConnectionInfo, error) {
			return api.ConnectionInfo{URL: "https://8080-m-s-rt-renew.prod.colab.dev/", Token: "token-1", ExpireTime: now.Add(time.Hour)}, nil
		})
		ci, err := c.Fresh(context.Background())
		if err != nil || (ci.Token == "token-1") != tc.renew || (c.Renewals() == 1) != tc.renew {
			t.Errorf("%s left: token %q after %d renewals, %v; want renewed %v", tc.left, ci.Token, c.Renewals(), err, tc.renew)
		}
	}
}

// Guards the one-line text of every *Error: "OP RUNTIME:/PATH: KIND[:
// MESSAGE]", the path absolute and Go-quoted when odd, an ErrServer
// without a message naming its HTTP status.
func TestErrorText(t *testing.T) {
	for _, tc := range []struct {
		e    Error
		want string
	}{
		{Error{Op: "renew", Kind: ErrRefused}, "renew: " + ErrRefused.Error()},
		{Error{Op: "connect", Runtime: "rt-a", Kind: ErrNoConnection, Message: "no url"}, "connect rt-a: " + ErrNoConnection.Error() + ": no url"},
		{Error{Op: "stat", Path: "content/x", Kind: ErrNotFound}, "stat :/content/x: " + ErrNotFound.Error()},
		{Error{Op: "stat", Runtime: "rt-a", Path: "/content//x/", Kind: ErrNotFound}, "stat rt-a:/content/x: " + ErrNotFound.Error()},
		{Error{Op: "list", Runtime: "rt-a", Path: "content/a\x1b[2Jb", Kind: ErrServer, Status: 500}, `list rt-a:"/content/a\x1b[2Jb": ` + ErrServer.Error() + ": HTTP 500"},
		{Error{Op: "list", Runtime: "rt-a", Path: "content/x", Kind: ErrServer, Status: 500, Message: "boom"}, "list rt-a:/content/x: " + ErrServer.Error() + ": boom"},
		{Error{Op: "list", Runtime: "rt-a", Kind: ErrServer}, "list rt-a: " + ErrServer.Error()},
		{Error{Op: "list", Runtime: "rt-a", Kind: ErrPermission, Status: 403}, "list rt-a: " + ErrPermission.Error()},
		{Error{Op: "x", Runtime: "rt-a", Message: "only"}, "x rt-a: : only"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("%+v:\n got %q\nwant %q", tc.e, got, tc.want)
		}
	}
	e := &Error{Op: "stat", Runtime: "rt-a", Path: "content/a b", Kind: ErrNotFound}
	if got := e.Text(func(s string) string { return "<" + s + ">" }); got != "stat rt-a:</content/a b>: "+ErrNotFound.Error() {
		t.Errorf("Text = %q", got)
	}
}

// Guards DisplayName: a plain name (inner spaces, any script) is shown as
// is, and so is an empty one; one with a control character (DEL too), a
// quote, invalid UTF-8 or spaces at its ends is Go-quoted.
func TestDisplayName(t *testing.T) {
	for in, want := range map[string]string{
		"data.csv": "data.csv", "a b.txt": "a b.txt", "résumé ü": "résumé ü",
		"a\nb": `"a\nb"`, `say "hi"`: `"say \"hi\""`, "\xff": `"\xff"`, " lead": `" lead"`, "trail ": `"trail "`, "a\tb": `"a\tb"`,
		"": "", " ": `" "`, "x\x7f": `"x\x7f"`, "x\x80": `"x\x80"`, "a\u00a0b": `"a\u00a0b"`, "\u202egnp.exe": `"\u202egnp.exe"`, "~!#$%&'()*+,-./09:;<=>?@AZ[\\]^_`az{|}": "~!#$%&'()*+,-./09:;<=>?@AZ[\\]^_`az{|}",
	} {
		if got := DisplayName(in); got != want {
			t.Errorf("DisplayName(%q) = %s, want %s", in, got, want)
		}
	}
}

// Guards matching a Colab session to its kernel: by session id first
// (from a full name or a bare id), else the only session whose name or
// path contains it; none, several, or only kernel-less matches are
// ErrNoKernel naming the session.
func TestMatchKernel(t *testing.T) {
	c := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/sessions" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, `[
			{"id":"s1","name":"","path":"","kernel":{"id":"k1"}},
			{"id":"s2","name":"nb-s9.ipynb","path":"","kernel":{"id":"k2"}},
			{"id":"s3","name":"","path":"content/s9/x.ipynb","kernel":{"id":"k3"}},
			{"id":"s4","name":"only-s5","path":"","kernel":{"id":"k4"}},
			{"id":"s6","name":"","path":"","kernel":{"id":""}},
			{"id":"s7","name":"","path":"","kernel":{"id":"k7"}}]`)
	})
	ctx := context.Background()
	for session, want := range map[string]string{
		"runtimes/rt-x/sessions/s1": "k1", "s1": "k1", "s7": "k7", "/sessions/s7": "k7", "s5": "k4",
		"s9": "", "s6": "", "nothing": "", "": "",
	} {
		k, err := c.MatchKernel(ctx, session)
		if want != "" && (err != nil || k != want) {
			t.Errorf("MatchKernel(%q) = %q, %v; want %s", session, k, err, want)
		}
		if want == "" && (!errors.Is(err, ErrNoKernel) || k != "") {
			t.Errorf("MatchKernel(%q) = %q, %v; want ErrNoKernel", session, k, err)
		}
	}
	if _, err := c.MatchKernel(ctx, "runtimes/rt-x/sessions/nothing"); err == nil || !strings.Contains(err.Error(), "session nothing") {
		t.Errorf("no match: %v, want the error to name the session id", err)
	}
}

// Guards the bound of a JSON reply at its edge: a reply of exactly
// MaxReply bytes is read, one byte more is refused.
func TestReplyBoundEdge(t *testing.T) {
	body := `{"name":"x","path":"content/x","type":"file","size":3}`
	for _, tc := range []struct {
		max int64
		ok  bool
	}{{int64(len(body)), true}, {int64(len(body)) - 1, false}} {
		c := serve(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, body) }, func(o *Options) { o.MaxReply = tc.max })
		m, err := c.Stat(context.Background(), "content/x")
		if tc.ok && (err != nil || m.Size != 3) {
			t.Errorf("MaxReply %d: %+v, %v; want the model", tc.max, m, err)
		}
		if !tc.ok && (!errors.Is(err, ErrServer) || !strings.Contains(err.Error(), fmt.Sprintf("larger than %d bytes", tc.max))) {
			t.Errorf("MaxReply %d: %v, want the reply refused as too large", tc.max, err)
		}
	}
}

// Guards Colab's anti-XSSI guard: stripped (with its newline, "\n" or
// "\r\n") before a JSON reply, a listing and an error's JSON, so each is
// read as if it were not there.
func TestXSSIGuardStripped(t *testing.T) {
	for _, nl := range []string{"\n", "\r\n", ""} {
		c := serve(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			switch {
			case r.URL.Path == "/api/contents/content/missing":
				w.WriteHeader(404)
				io.WriteString(w, ")]}'"+nl+`{"message":"No such file","reason":null}`)
			case r.URL.Query().Get("content") == "1":
				io.WriteString(w, ")]}'"+nl+`{"name":"d","path":"content/d","type":"directory","content":[{"name":"a","path":"content/d/a","type":"file","size":1}]}`)
			default:
				io.WriteString(w, ")]}'"+nl+`{"name":"f","path":"content/f","type":"file","size":5}`)
			}
		})
		ctx := context.Background()
		if m, err := c.Stat(ctx, "content/f"); err != nil || m.Size != 5 {
			t.Errorf("newline %q: Stat = %+v, %v", nl, m, err)
		}
		if l, err := c.List(ctx, "content/d"); err != nil || len(l.Entries) != 1 || l.Entries[0].Name != "a" {
			t.Errorf("newline %q: List = %+v, %v", nl, l, err)
		}
		if _, err := c.Stat(ctx, "content/missing"); !errors.Is(err, ErrNotFound) {
			t.Errorf("newline %q: Stat of a missing file: %v, want not found (Jupyter's JSON behind the guard)", nl, err)
		}
	}
}

// Guards Options.Transport: the transport given carries every request
// (a test's, or a proxy setting's), not a default one.
func TestGivenTransportUsed(t *testing.T) {
	tr := &testkit.CountingTransport{}
	c := serve(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"name":"f","path":"content/f","type":"file","size":1}`)
	}, func(o *Options) { o.Transport = tr })
	if _, err := c.Stat(context.Background(), "content/f"); err != nil || tr.Requests() != 1 {
		t.Fatalf("Stat: %v; the given transport carried %d requests, want 1", err, tr.Requests())
	}
}
