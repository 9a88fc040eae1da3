package colabfake

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake/runtimeproxy"
)

// Options.ProxyLatency delays every runtime-proxy request, and only
// those: an MCP call sent while a proxy request waits is answered first,
// and a proxy request given up during the wait never reaches the token
// check.
func TestOptionsProxyLatency(t *testing.T) {
	const latency = time.Second
	s, ep, _ := start(t, Options{ProxyLatency: latency})
	cs := connect(t, ep)
	rt := mustAdd(t, s, api.Runtime{Name: "runtimes/rt-slow", ConnectionInfo: &api.ConnectionInfo{}})
	type got struct {
		status int
		took   time.Duration
		err    error
	}
	done := make(chan got, 1)
	go func() {
		// No t.Fatal here (this is not the test's goroutine): the error
		// goes back to it.
		begin := time.Now()
		st, _, err := proxyGetErr(rt, "api/contents/content")
		done <- got{st, time.Since(begin), err}
	}()
	call(t, cs, "list_runtimes", nil)
	select {
	case g := <-done:
		t.Fatalf("the proxy answered (HTTP %d after %v) before an MCP call sent during its wait", g.status, g.took)
	default:
	}
	g := <-done
	if g.err != nil {
		t.Fatal(g.err)
	}
	if g.status != http.StatusOK || g.took < latency {
		t.Fatalf("GET api/contents/content: HTTP %d after %v, want 200 after at least %v", g.status, g.took, latency)
	}

	total, _ := s.ProxyRequests()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, rt.ConnectionInfo.URL+"api/contents/content", nil)
	req.Header.Set(runtimeproxy.TokenHeader, rt.ConnectionInfo.Token)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	if _, err := (&http.Client{Transport: tr}).Do(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a request given up during the wait: %v, want the deadline", err)
	}
	// A request sent after it ends its wait after the given-up one would
	// have: by then only it has been counted.
	if st, _ := proxyGet(t, rt, "api/contents/content"); st != http.StatusOK {
		t.Fatalf("GET after the given-up one: HTTP %d", st)
	}
	if n, _ := s.ProxyRequests(); n != total+1 {
		t.Fatalf("the proxy counted %d requests, want %d (the given-up one never reaches the token check)", n-total, 1)
	}
}
