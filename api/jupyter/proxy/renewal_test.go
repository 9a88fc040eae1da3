package proxy

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/testkit"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
)

// Guards telling a gone runtime from a failed renewal: get_runtime
// answering NOT_FOUND (wrapped, as the MCP client returns it) is
// ErrRuntimeGone at once, even while the current token is still valid
// (the runtime and its files are gone: nothing is worth sending), while
// any other failure of get_runtime is ErrRefused, and only once the
// token has expired.
func TestRenewalTellsAGoneRuntime(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		name string
		code api.Code
		left time.Duration // of the current token
		want error         // nil: the current token is used, no error
	}{
		{"not found, token valid", api.NotFound, 2 * time.Minute, ErrRuntimeGone},
		{"not found, token expired", api.NotFound, -time.Minute, ErrRuntimeGone},
		{"unavailable, token valid", api.Unavailable, 2 * time.Minute, nil},
		{"unavailable, token expired", api.Unavailable, -time.Minute, ErrRefused},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := renewClient(t, func() time.Time { return now }, now.Add(tc.left), func(context.Context) (api.ConnectionInfo, error) {
				return api.ConnectionInfo{}, fmt.Errorf("get_runtime: %w", &api.Error{Code: tc.code, Message: "runtimes/rt-renew"})
			})
			ci, err := c.Fresh(context.Background())
			switch {
			case tc.want == nil && (err != nil || ci.Token != "token-0"):
				t.Fatalf("Fresh = %q, %v; want the current token and no error", ci.Token, err)
			case tc.want != nil && !errors.Is(err, tc.want):
				t.Fatalf("Fresh: %v, want %v", err, tc.want)
			}
			var je *Error
			if tc.want != nil && (!errors.As(err, &je) || je.Op != "renew" || je.Runtime != "rt-renew") {
				t.Fatalf("error %#v, want an *Error of op renew naming rt-renew", err)
			}
		})
	}
}

// Guards the debug log of renewals: a renewal that worked is logged once
// as such ("proxy token renewed"), one that failed is not.
func TestRenewalLogged(t *testing.T) {
	now := time.Now()
	for _, fail := range []bool{false, true} {
		var log strings.Builder
		c, err := New(Options{Runtime: "runtimes/rt-renew", Now: func() time.Time { return now }, Transport: &sentRecorder{},
			Logger: testkit.DebugLogger(&log),
			Info:   api.ConnectionInfo{URL: "https://8080-m-s-rt-renew.prod.colab.dev/", Token: "token-0", ExpireTime: now.Add(time.Hour)},
			Renew: func(context.Context) (api.ConnectionInfo, error) {
				if fail {
					return api.ConnectionInfo{}, errors.New("get_runtime: 503")
				}
				return api.ConnectionInfo{URL: "https://8080-m-s-rt-renew.prod.colab.dev/", Token: "token-1", ExpireTime: now.Add(2 * time.Hour)}, nil
			}})
		if err != nil {
			t.Fatal(err)
		}
		_ = c.Renew(context.Background())
		if n := strings.Count(log.String(), "proxy token renewed"); n != map[bool]int{false: 1, true: 0}[fail] {
			t.Errorf("renewal failing=%v: logged %q", fail, log.String())
		}
	}
}

// Guards the size of a model the server gave none for (a directory):
// -1, "unknown", never 0; a file's own size, 0 included, is kept.
func TestStatSizeUnknown(t *testing.T) {
	c := fixture(t, func(p string) string {
		if p == "content/d" {
			return `{"name":"d","path":"content/d","type":"directory","size":null,"content":null}`
		}
		return `{"name":"e","path":"content/e","type":"file","size":0,"content":null}`
	})
	d, err := c.Stat(context.Background(), "content/d")
	if err != nil || d.Size != -1 || !d.IsDir() {
		t.Fatalf("Stat of a directory = %+v, %v; want size -1", d, err)
	}
	f, err := c.Stat(context.Background(), "content/e")
	if err != nil || f.Size != 0 || f.IsDir() {
		t.Fatalf("Stat of an empty file = %+v, %v; want size 0", f, err)
	}
}

// Proxy-token renewal. Each test names the behaviour
// it guards.

// goroutinesIn counts the goroutines whose stack holds fn.
func goroutinesIn(fn string) int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, fn) {
			n++
		}
	}
	return n
}

// renewClient is a client of a runtime that is never contacted, whose
// Renew is f.
func renewClient(t *testing.T, now func() time.Time, expire time.Time, f func(context.Context) (api.ConnectionInfo, error)) *Client {
	t.Helper()
	c, err := New(Options{Runtime: "runtimes/rt-renew", Now: now, Transport: &sentRecorder{}, Renew: f,
		Info: api.ConnectionInfo{URL: "https://8080-m-s-rt-renew.prod.colab.dev/", Token: "token-0", ExpireTime: expire}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Guards single-flight renewal: many requests finding the token stale at
// once share one get_runtime call, and all of them get the new token.
func TestRenewalSingleFlightUnderConcurrency(t *testing.T) {
	now := time.Now()
	var calls atomic.Int32
	release := make(chan struct{})
	c := renewClient(t, func() time.Time { return now }, now.Add(-time.Minute), func(ctx context.Context) (api.ConnectionInfo, error) {
		calls.Add(1)
		select {
		case <-release:
		case <-ctx.Done():
			return api.ConnectionInfo{}, ctx.Err()
		}
		return api.ConnectionInfo{URL: "https://8080-m-s-rt-renew.prod.colab.dev/", Token: "token-1", ExpireTime: now.Add(time.Hour)}, nil
	})
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ci, err := c.Fresh(context.Background())
			if err == nil && ci.Token != "token-1" {
				err = errors.New("got token " + ci.Token)
			}
			errs <- err
		}()
	}
	// Release the renewal only once every caller is inside renew (in
	// get_runtime or waiting for it): no caller can still skip it.
	deadline := time.Now().Add(30 * time.Second)
	for goroutinesIn("proxy.(*Client).renew") < n {
		if time.Now().After(deadline) {
			close(release)
			t.Fatalf("only %d of %d callers reached renew", goroutinesIn("proxy.(*Client).renew"), n)
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("a caller: %v", err)
		}
	}
	if got := calls.Load(); got != 1 {
		t.Fatalf("%d get_runtime calls for %d concurrent stale requests, want 1", got, n)
	}
	if c.Renewals() != 1 {
		t.Errorf("%d renewals counted, want 1", c.Renewals())
	}
}

// Guards the "already renewed" check: a request refused with a token that
// has since been replaced (another request renewed it meanwhile) retries
// with the new token instead of renewing again.
func TestRenewalSkippedWhenAlreadyRenewed(t *testing.T) {
	now := time.Now()
	var calls atomic.Int32
	c := renewClient(t, func() time.Time { return now }, now.Add(time.Hour), func(context.Context) (api.ConnectionInfo, error) {
		n := calls.Add(1)
		return api.ConnectionInfo{URL: "https://8080-m-s-rt-renew.prod.colab.dev/", Token: "token-" + string(rune('0'+n)), ExpireTime: now.Add(time.Hour)}, nil
	})
	if err := c.Renew(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := c.renew(context.Background(), "token-0"); err != nil {
		t.Fatalf("renew with the replaced token: %v", err)
	}
	if got := calls.Load(); got != 1 || c.Info().Token != "token-1" {
		t.Fatalf("%d get_runtime calls, token %q; want 1 call and token-1 kept", got, c.Info().Token)
	}
}

// Guards a failed renewal: while the current token is still valid the
// failure is not an error (the request goes on with it); once it has
// expired the request fails with one line saying the renewal failed,
// without the token, and the next request tries again.
func TestRenewalFailure(t *testing.T) {
	now := time.Now()
	clock := now
	var calls atomic.Int32
	c := renewClient(t, func() time.Time { return clock }, now.Add(2*time.Minute), func(context.Context) (api.ConnectionInfo, error) {
		calls.Add(1)
		return api.ConnectionInfo{}, errors.New("get_runtime: 503 backend unavailable token-0")
	})
	ci, err := c.Fresh(context.Background())
	if err != nil || ci.Token != "token-0" {
		t.Fatalf("renewal failed with 2 min left: %v (token %q), want the current token and no error", err, ci.Token)
	}
	clock = now.Add(3 * time.Minute) // expired
	_, err = c.Fresh(context.Background())
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "renewing the proxy token") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("renewal failed after expiry: %v, want ErrRefused saying renewing the proxy token failed, on one line", err)
	}
	if strings.Contains(err.Error(), "token-0") {
		t.Fatalf("the error carries the proxy token: %v", err)
	}
	before := calls.Load()
	_, _ = c.Fresh(context.Background())
	if calls.Load() != before+1 {
		t.Error("the next request did not try to renew again after a failure")
	}
}

// Guards get_runtime answers without a token: they are an error naming
// that (ErrNoConnection), and the client does not switch to an empty
// token.
func TestRenewalWithoutToken(t *testing.T) {
	now := time.Now()
	c := renewClient(t, func() time.Time { return now }, now.Add(-time.Minute), func(context.Context) (api.ConnectionInfo, error) {
		return api.ConnectionInfo{URL: "https://8080-m-s-rt-renew.prod.colab.dev/", ExpireTime: now.Add(time.Hour)}, nil
	})
	_, err := c.Fresh(context.Background())
	if !errors.Is(err, ErrNoConnection) || !strings.Contains(err.Error(), "no proxy token") {
		t.Fatalf("get_runtime without a token: %v, want ErrNoConnection saying so", err)
	}
	if c.Info().Token != "token-0" || c.Renewals() != 0 {
		t.Fatalf("token %q after %d renewals, want token-0 kept and no renewal counted", c.Info().Token, c.Renewals())
	}
}

// Guards the redaction of Jupyter error bodies: a
// runtime whose error reply echoes the proxy token gives an error whose
// text does not hold it.
func TestJupyterErrorBodyRedacted(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client()
	tok := c.Info().Token
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Method: http.MethodGet, PathPrefix: "api/contents",
		Status: 500, ContentType: "application/json", Times: -1,
		Body: `{"message":"failed for X-Colab-Runtime-Proxy-Token ` + tok + `","reason":null}`})
	_, err := c.Stat(context.Background(), e.P("x"))
	if err == nil || !strings.Contains(err.Error(), "failed for") {
		t.Fatalf("Stat against a failing server: %v, want its message", err)
	}
	if strings.Contains(err.Error(), tok) {
		t.Fatalf("the error holds the proxy token: %v", err)
	}
}
