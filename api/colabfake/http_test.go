package colabfake

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
)

// rawPost sends one JSON-RPC message to ep as the Colab curl samples do,
// with the bearer unless noAuth, and extra headers.
func rawPost(t *testing.T, ep, body string, noAuth bool, hdr map[string]string) (*http.Response, []byte, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ep, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	if !noAuth {
		req.Header.Set("Authorization", "Bearer x")
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

func toolsCall(tool, args string) string {
	if args == "" {
		args = "{}"
	}
	return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
}

func TestRawToolsCallStatelessJSON(t *testing.T) {
	_, ep, _ := start(t, Options{Seed: SeedDemo, Stateless: true, JSONResponse: true})
	resp, body, err := rawPost(t, ep, toolsCall("get_subscription", ""), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"structuredContent":{"name":"subscription","tier":"SUBSCRIPTION_TIER_PRO"}`) {
		t.Fatalf("HTTP %d %s", resp.StatusCode, body)
	}
}

func TestBearerRequired(t *testing.T) {
	_, ep, _ := start(t, Options{Stateless: true, JSONResponse: true})
	for _, authz := range []string{"", "Bearer ", "Basic eDp5", "bearer"} {
		hdr := map[string]string{}
		if authz != "" {
			hdr["Authorization"] = authz
		}
		resp, body, err := rawPost(t, ep, toolsCall("list_runtimes", ""), true, hdr)
		if err != nil {
			t.Fatal(err)
		}
		e := api.ParseHTTPError(resp.StatusCode, "", body)
		if resp.StatusCode != 401 || e.Code != api.Unauthenticated || resp.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("Authorization %q: HTTP %d %v", authz, resp.StatusCode, e)
		}
	}
	// The go-sdk client without a bearer cannot connect.
	c := connectNoAuth(t, ep)
	if c == nil {
		return
	}
	t.Error("connected without a bearer")
}

func TestLoopbackHostAndOrigin(t *testing.T) {
	_, ep, _ := start(t, Options{Stateless: true, JSONResponse: true})
	for _, c := range []struct {
		hdr  map[string]string
		want int
	}{
		{map[string]string{"Host": "evil.example.com"}, 403},
		{map[string]string{"Host": "127.0.0.1.nip.io:80"}, 403},
		{map[string]string{"Origin": "https://evil.example.com"}, 403},
		{map[string]string{"Origin": "null"}, 403},
		{map[string]string{"Host": "localhost:1234"}, 200},
		{map[string]string{"Host": "[::1]:1234", "Origin": "http://localhost:3000"}, 200},
	} {
		resp, body, err := rawPost(t, ep, toolsCall("get_subscription", ""), false, c.hdr)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != c.want {
			t.Errorf("%v: HTTP %d, want %d (%s)", c.hdr, resp.StatusCode, c.want, body)
		}
		if c.want == 403 && api.ParseHTTPError(403, "", body).Code != api.PermissionDenied {
			t.Errorf("%v: body %s", c.hdr, body)
		}
	}
}

func TestStartRefusesNonLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:0", "example.com:80"} {
		if s, _, err := Start(context.Background(), addr, Options{}); err == nil {
			_ = s.Close()
			t.Errorf("Start(%q) listened", addr)
		}
	}
	if _, _, err := Start(context.Background(), "127.0.0.1:0", Options{Seed: "huge"}); err == nil {
		t.Error("unknown seed accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	s, ep, err := Start(ctx, "localhost:0", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ep, "http://127.0.0.1:") || !strings.HasSuffix(ep, "/mcp") {
		t.Errorf("endpoint %q", ep)
	}
	cancel()
	<-s.ctx.Done()
}
