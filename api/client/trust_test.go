package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake/testkit"
	"github.com/colabdash/colabdash/api/safehttp"
)

// bearer is an HTTP client that sends tok the way the product does
// (oauth2.Transport adds it to every request, redirected ones included).
func bearer(tok string) *http.Client {
	return &http.Client{Transport: &oauth2.Transport{Source: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: tok})}}
}

// A 307 from the endpoint to another port received
// "Authorization: Bearer …" on every retry. Now the redirect is refused
// (once, no retries), the error names both URLs, and the other listener
// receives nothing.
func TestRedirectToAnotherOriginIsRefused(t *testing.T) {
	for _, at := range []string{"connect", "tools/call"} {
		t.Run(at, func(t *testing.T) {
			rec := testkit.NewHeaderRecorder(t)
			fs := newFakeServer(t, modes[0])
			fs.setFault(func(w http.ResponseWriter, r *http.Request, m rpcMsg, next http.Handler) bool {
				if at == "tools/call" && !strings.HasPrefix(m.key(), "tools/call") {
					return false
				}
				http.Redirect(w, r, rec.URL+"/mcp", http.StatusTemporaryRedirect)
				return true
			})
			c, sl := newClient(t, fs.srv.URL+"/mcp", func(o *Options) { o.HTTPClient = bearer("ya29.S1-REDIRECT-SECRET") })
			_, err := c.ListRuntimes(context.Background())
			e := asAPI(t, err)
			if e.Code != api.FailedPrecondition || !safehttp.IsRedirect(e) {
				t.Fatalf("err = %v (%T cause), want FAILED_PRECONDITION for a refused redirect", e, e.Err)
			}
			if !strings.Contains(e.Error(), fs.srv.URL+"/mcp") || !strings.Contains(e.Error(), rec.URL+"/mcp") {
				t.Errorf("error %q should name both URLs", e)
			}
			if got := rec.Values("Authorization"); len(got) != 0 {
				t.Errorf("the other origin received %d requests, Authorization %q", len(got), got)
			}
			if len(sl.waits()) != 0 {
				t.Errorf("a refused redirect was retried %d times", len(sl.waits()))
			}
		})
	}
}

// A caller's own CheckRedirect cannot loosen the policy.
func TestRedirectPolicyOverCallerCheckRedirect(t *testing.T) {
	rec := testkit.NewHeaderRecorder(t)
	fs := newFakeServer(t, modes[0])
	fs.setFault(func(w http.ResponseWriter, r *http.Request, m rpcMsg, next http.Handler) bool {
		http.Redirect(w, r, rec.URL+"/mcp", http.StatusPermanentRedirect)
		return true
	})
	hc := bearer("ya29.S1-SECRET-2")
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return nil }
	c, _ := newClient(t, fs.srv.URL, func(o *Options) { o.HTTPClient = hc })
	if _, err := c.GetSubscription(context.Background()); !safehttp.IsRedirect(err) {
		t.Fatalf("err = %v", err)
	}
	if got := rec.Values("Authorization"); len(got) != 0 {
		t.Errorf("the other origin received %q", got)
	}
}

// isError with an empty content array and the detail only
// in structuredContent decodes like the same object in text.
func TestIsErrorWithStructuredContentOnly(t *testing.T) {
	fs := newFakeServer(t, modes[0])
	fs.colab.setTool(api.ToolGetRuntime, func(context.Context, map[string]any) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{}, StructuredContent: map[string]any{
			"error": map[string]any{"code": 8, "status": "RESOURCE_EXHAUSTED", "message": "GPU usage limit reached",
				"details": []any{
					map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "QUOTA_EXCEEDED_USAGE_TIME"},
					map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "90s"},
				}}}}, nil
	})
	c, _ := newClient(t, fs.srv.URL)
	_, err := c.GetRuntime(context.Background(), "r-1")
	e := asAPI(t, err)
	if e.Code != api.ResourceExhausted || e.Reason != api.ReasonQuotaExceededUsageTime || e.Message != "GPU usage limit reached" ||
		e.RetryDelay != 90*time.Second || !e.IsQuota() {
		t.Fatalf("err = %v (code %s, reason %q, message %q, retry %v)", e, e.Code, e.Reason, e.Message, e.RetryDelay)
	}
	if want := "get_runtime: RESOURCE_EXHAUSTED (QUOTA_EXCEEDED_USAGE_TIME): GPU usage limit reached"; e.Error() != want {
		t.Errorf("Error() = %q\nwant      %q", e.Error(), want)
	}
}

// A bare google.rpc.Status in structuredContent with the message only in
// the text: both are used.
func TestIsErrorStatusInStructuredMessageInText(t *testing.T) {
	fs := newFakeServer(t, modes[0])
	fs.colab.setTool(api.ToolGetRuntime, func(context.Context, map[string]any) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "runtime is being deleted"}},
			StructuredContent: map[string]any{"code": 9, "status": "FAILED_PRECONDITION"}}, nil
	})
	c, _ := newClient(t, fs.srv.URL)
	_, err := c.GetRuntime(context.Background(), "r-1")
	if e := asAPI(t, err); e.Code != api.FailedPrecondition || e.Message != "runtime is being deleted" {
		t.Fatalf("err = %v", e)
	}
}

// pieces are every 8-byte piece of s: a secret cut short is still a leak.
func pieces(s string) []string {
	var out []string
	for i := 0; i+8 <= len(s); i++ {
		out = append(out, s[i:i+8])
	}
	return out
}

func leaks(text string, secrets ...string) []string {
	var found []string
	for _, s := range secrets {
		for _, p := range pieces(s) {
			if strings.Contains(text, p) {
				found = append(found, p)
				break
			}
		}
	}
	return found
}

// A server that echoes the bearer token and a proxy token
// in every kind of error. No error string, message, raw body or log line
// holds any 8-byte piece of either, also where an echo straddles the
// point where a long message is cut.
func TestEchoedSecretsAreRedactedInEveryError(t *testing.T) {
	const oauthTok = "OAUTHxq7Z3kPw9VmB2nTf" // no "ya29." or Bearer: only registration can catch it
	const proxyTok = "PROXYr4Hs8LdQ1uYc6Ke"
	echo := func(n int) string {
		// The secrets sit around the 200/300-rune cuts of messages.
		return strings.Repeat("x", n) + " caller " + oauthTok + " proxy " + proxyTok + " end"
	}
	faults := map[string]func(w http.ResponseWriter, r *http.Request) bool{
		"HTTP 500 text": func(w http.ResponseWriter, r *http.Request) bool {
			replyStatus(w, 500, "text/plain", echo(150))
			return true
		},
		"HTTP 403 google": func(w http.ResponseWriter, r *http.Request) bool {
			replyStatus(w, 403, "application/json", `{"error":{"code":403,"status":"PERMISSION_DENIED","message":"`+echo(280)+`"}}`)
			return true
		},
		"HTTP 400 JSON-RPC": func(w http.ResponseWriter, r *http.Request) bool {
			replyStatus(w, 400, "application/json", `{"jsonrpc":"2.0","id":3,"error":{"code":-32020,"message":"INVALID_ARGUMENT: `+echo(180)+`","data":"`+echo(10)+`"}}`)
			return true
		},
	}
	tools := map[string]toolFn{
		"isError text": func(context.Context, map[string]any) (*mcp.CallToolResult, error) {
			return toolErr("PERMISSION_DENIED: " + echo(170)), nil
		},
		"isError structured": func(context.Context, map[string]any) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{}, StructuredContent: map[string]any{
				"error": map[string]any{"code": 7, "status": "PERMISSION_DENIED", "message": echo(290)}}}, nil
		},
		// A raw handler's Go error is a JSON-RPC error; its message is cut
		// at 200 runes, in the middle of the bearer token.
		"JSON-RPC error": func(context.Context, map[string]any) (*mcp.CallToolResult, error) {
			return nil, errors.New(echo(180))
		},
	}
	run := func(t *testing.T, fs *fakeServer) {
		var logBuf testkit.SyncBuffer
		red := &api.Redactor{}
		red.Add(oauthTok) // what api/auth does when it mints or reads a token
		fs.colab.mu.Lock()
		fs.colab.runtimes["runtimes/r-1"] = api.Runtime{Name: "runtimes/r-1",
			ConnectionInfo: &api.ConnectionInfo{URL: "https://proxy", Token: proxyTok, ExpireTime: expire}}
		fs.colab.mu.Unlock()
		c, _ := newClient(t, fs.srv.URL, func(o *Options) {
			o.HTTPClient, o.Redactor, o.MaxAttempts = bearer(oauthTok), red, 2
			o.Logger = slog.New(slog.NewTextHandler(&logBuf, &slog.HandlerOptions{Level: slog.LevelDebug}))
		})
		// The proxy token is learnt from list_runtimes, as in the product.
		if _, err := c.ListRuntimes(context.Background()); err != nil {
			t.Fatal(err)
		}
		_, err := c.ListSessions(context.Background(), "runtimes/r-1")
		e := asAPI(t, err)
		all := strings.Join([]string{e.Error(), e.Message, e.Raw, e.Reason, fmt.Sprint(e.Metadata), logBuf.String()}, "\n")
		if l := leaks(all, oauthTok, proxyTok); len(l) > 0 {
			t.Errorf("leaked %q in:\n%s", l, all)
		}
		if !strings.Contains(logBuf.String(), "list_sessions") {
			t.Fatalf("the debug log is empty: the scan proves nothing")
		}
	}
	for name, f := range faults {
		t.Run(name, func(t *testing.T) {
			fs := newFakeServer(t, modes[0])
			fs.setFault(func(w http.ResponseWriter, r *http.Request, m rpcMsg, next http.Handler) bool {
				return m.key() == "tools/call:"+api.ToolListSessions && f(w, r)
			})
			run(t, fs)
		})
	}
	for name, fn := range tools {
		t.Run(name, func(t *testing.T) {
			fs := newFakeServer(t, modes[1])
			fs.colab.setTool(api.ToolListSessions, fn)
			run(t, fs)
		})
	}
}

// The proxy token of every runtime in a reply is registered before the
// reply is returned, whatever the tool.
func TestProxyTokensRegisteredFromReplies(t *testing.T) {
	fs := newFakeServer(t, modes[1])
	fs.colab.mu.Lock()
	fs.colab.runtimes["runtimes/r-1"] = api.Runtime{Name: "runtimes/r-1",
		ConnectionInfo: &api.ConnectionInfo{URL: "https://proxy", Token: "proxy-tok-from-list-1", ExpireTime: expire}}
	fs.colab.mu.Unlock()
	red := &api.Redactor{}
	c, _ := newClient(t, fs.srv.URL, func(o *Options) { o.Redactor = red })
	if _, err := c.ListRuntimes(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := red.Redact("x proxy-tok-from-list-1 y"); got != "x "+api.Redacted+" y" {
		t.Errorf("after list_runtimes: %q", got)
	}
}

// For the MCP endpoint: a certificate error is named, with
// SSL_CERT_FILE, and not retried.
func TestUntrustedCertificateNotRetried(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.Config.ErrorLog = discardLog()
	srv.StartTLS()
	defer srv.Close()
	c, sl := newClient(t, srv.URL+"/mcp")
	_, err := c.ListRuntimes(context.Background())
	e := asAPI(t, err)
	if !strings.Contains(e.Message, "certificate not trusted") || !strings.Contains(e.Message, "SSL_CERT_FILE") {
		t.Errorf("message %q", e.Message)
	}
	if e.Retryable() || len(sl.waits()) != 0 {
		t.Errorf("retried %d times (retryable %v)", len(sl.waits()), e.Retryable())
	}
}

func discardLog() *log.Logger { return log.New(io.Discard, "", 0) }

// credErr stands in for an *auth.Error.
type credErr struct{ transient bool }

func (credErr) Error() string {
	return "cannot get an access token: IAM refused to mint a token for sa@p"
}
func (credErr) FixLine() string   { return "grant roles/iam.serviceAccountTokenCreator" }
func (e credErr) Transient() bool { return e.transient }

type failingRT struct {
	err error
	n   atomic.Int32
}

func (f *failingRT) RoundTrip(r *http.Request) (*http.Response, error) {
	f.n.Add(1)
	if r.Body != nil {
		r.Body.Close()
	}
	return nil, f.err
}

// In the dashboard's path, credentials that cannot be used (impersonation
// denied) are an auth error with the fix, not "network error", and are not
// retried; a transient token failure still is.
func TestCredentialsErrorIsAuthNotNetwork(t *testing.T) {
	rt := &failingRT{err: credErr{}}
	c, sl := newClient(t, "http://127.0.0.1:9/mcp", func(o *Options) { o.HTTPClient = &http.Client{Transport: rt} })
	_, err := c.ListRuntimes(context.Background())
	e := asAPI(t, err)
	if e.Code != api.Unauthenticated || !e.IsAuth() || strings.Contains(e.Message, "network") ||
		!strings.Contains(e.Message, "sa@p") || !strings.Contains(e.Message, "fix: grant roles/iam.serviceAccountTokenCreator") {
		t.Errorf("err = %v", e)
	}
	if len(sl.waits()) != 0 || rt.n.Load() != 1 {
		t.Errorf("retried: %d waits, %d requests", len(sl.waits()), rt.n.Load())
	}
	rt2 := &failingRT{err: credErr{transient: true}}
	c2, sl2 := newClient(t, "http://127.0.0.1:9/mcp", func(o *Options) { o.HTTPClient = &http.Client{Transport: rt2} })
	_, err = c2.ListRuntimes(context.Background())
	if e := asAPI(t, err); e.Code != api.Unavailable || len(sl2.waits()) == 0 {
		t.Errorf("transient: err = %v, %d waits", e, len(sl2.waits()))
	}
}
