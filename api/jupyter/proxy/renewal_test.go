package proxy

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
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
			Logger: newDebugLogger(&log),
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
