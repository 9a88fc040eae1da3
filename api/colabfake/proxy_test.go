package colabfake

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake/runtimeproxy"
	"github.com/colabdash/colabdash/api/colabfake/testkit"
)

// proxyGet GETs path below runtime rt's connectionInfo.url with its proxy
// token and returns the status and body.
func proxyGet(t *testing.T, rt api.Runtime, path string) (int, string) {
	t.Helper()
	st, body, err := proxyGetErr(rt, path)
	if err != nil {
		t.Fatal(err)
	}
	return st, body
}

// proxyGetErr is proxyGet returning its error, for goroutines other
// than the test's (where t.Fatal must not be called).
func proxyGetErr(rt api.Runtime, path string) (int, string, error) {
	req, err := http.NewRequest(http.MethodGet, rt.ConnectionInfo.URL+path, nil)
	if err != nil {
		return 0, "", err
	}
	req.Header.Set(runtimeproxy.TokenHeader, rt.ConnectionInfo.Token)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}

// execute_code's rich-output bundles live under /content/.dsm_outputs/ and are
// fetched with GET {url}/files/content/.dsm_outputs/…: the proxy serves them
// although the directory is hidden; other hidden paths stay 404 through
// /files/ and the contents API.
func TestProxyServesRichOutputBundles(t *testing.T) {
	dir := t.TempDir()
	s, _, _ := start(t, Options{FilesDir: dir})
	rt := mustAdd(t, s, api.Runtime{Name: "runtimes/rt-rich", ConnectionInfo: &api.ConnectionInfo{}})
	bundle := `{"data":{"image/png":"iVBORw0KGgo="},"metadata":{}}`
	testkit.WriteTree(t, filepath.Join(dir, "rt-rich"), map[string]string{
		"content/.dsm_outputs/msg-1/out-000.json":   bundle,
		"content/.dsm_outputs/msg-1/.secret":        "hidden inside",
		"content/.env":                              "TOKEN=x",
		"content/sub/.dsm_outputs/msg-2/out-0.json": "elsewhere",
	})
	if st, body := proxyGet(t, rt, "files/content/.dsm_outputs/msg-1/out-000.json"); st != http.StatusOK || body != bundle {
		t.Fatalf("GET files/content/.dsm_outputs/msg-1/out-000.json: HTTP %d %q, want 200 with the bundle", st, body)
	}
	for _, p := range []string{
		"files/content/.env",
		"files/content/.dsm_outputs/msg-1/.secret",
		"files/content/sub/.dsm_outputs/msg-2/out-0.json",
		"api/contents/content/.dsm_outputs/msg-1/out-000.json",
	} {
		if st, _ := proxyGet(t, rt, p); st != http.StatusNotFound {
			t.Errorf("GET %s: HTTP %d, want 404 (hidden)", p, st)
		}
	}
}

// putBody is a contents PUT body of exactly n bytes: a base64 file of
// zero bytes ("A"s), streamed without holding it in memory (leading
// spaces make the "A"s whole base64 quads).
func putBody(n int) io.Reader {
	head, tail := `{"type":"file","format":"base64","content":"`, `"}`
	k := n - len(head) - len(tail)
	head = strings.Repeat(" ", k%4) + head // whole base64 quads
	k -= k % 4
	return io.MultiReader(strings.NewReader(head), io.LimitReader(repeatReader('A'), int64(k)), strings.NewReader(tail))
}

type repeatReader byte

func (b repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

// Colab: "Keep each request under 50 MB of file data".
// A contents PUT of 50,000,000 bytes is accepted, one byte more is
// refused with 413 before anything is written, whether the body's length
// was announced or not.
func TestProxyPutLimitIs50MB(t *testing.T) {
	dir := t.TempDir()
	s, _, _ := start(t, Options{FilesDir: dir})
	rt := mustAdd(t, s, api.Runtime{Name: "runtimes/rt-put", ConnectionInfo: &api.ConnectionInfo{}})
	// A refusal closes its connection: net/http then waits 500 ms before
	// the close (RST avoidance). Let those goroutines end before goleak
	// looks.
	t.Cleanup(func() {
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
			buf := make([]byte, 1<<20)
			if !strings.Contains(string(buf[:runtime.Stack(buf, true)]), "closeWriteAndWait") {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
	put := func(name string, n int) (int, string) {
		t.Helper()
		// Chunked (no Content-Length): the limit is met while reading.
		req, err := http.NewRequest(http.MethodPut, rt.ConnectionInfo.URL+"api/contents/content/"+name, io.NopCloser(putBody(n)))
		if err != nil {
			t.Fatal(err)
		}
		req.ContentLength = -1
		req.Header.Set(runtimeproxy.TokenHeader, rt.ConnectionInfo.Token)
		req.Header.Set("Content-Type", "application/json")
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if st, body := put("at-limit.bin", 50_000_000); st != http.StatusCreated {
		t.Fatalf("a 50,000,000-byte PUT: HTTP %d %.200s, want 201", st, body)
	}
	if st, body := put("over.bin", 50_000_001); st != http.StatusRequestEntityTooLarge || !strings.Contains(body, "50 MB") {
		t.Fatalf("a 50,000,001-byte PUT: HTTP %d %.200s, want 413 naming the 50 MB limit", st, body)
	}
	// Announced too large: refused on the header alone.
	u, _ := url.Parse(rt.ConnectionInfo.URL)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	fmt.Fprintf(conn, "PUT %sapi/contents/content/big.bin HTTP/1.1\r\nHost: %s\r\n%s: %s\r\nContent-Type: application/json\r\nContent-Length: 60000000\r\n\r\n",
		u.Path, u.Host, runtimeproxy.TokenHeader, rt.ConnectionInfo.Token)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("Content-Length 60000000: HTTP %d, want 413", resp.StatusCode)
	}
	for _, name := range []string{"over.bin", "big.bin"} {
		if _, err := os.Stat(filepath.Join(dir, "rt-put", "content", name)); err == nil {
			t.Errorf("%s was written although refused", name)
		}
	}
}

// A renewal does not lock out another client still holding the token it
// replaced: that token stays good until its own expireTime (Colab refuses
// only a missing or expired token), then it is refused.
func TestReplacedTokenStaysGoodUntilItExpires(t *testing.T) {
	s, cs, clk := startConnect(t, Options{Seed: SeedEmpty})
	first := mustAdd(t, s, api.Runtime{Name: "runtimes/rt-two", ConnectionInfo: &api.ConnectionInfo{}})
	var renewed api.Runtime
	decode(t, call(t, cs, "get_runtime", map[string]any{"name": first.Name}), &renewed)
	if renewed.ConnectionInfo.Token == first.ConnectionInfo.Token {
		t.Fatal("get_runtime gave the same token")
	}
	for _, rt := range []api.Runtime{first, renewed} {
		if st, _ := proxyGet(t, rt, "api/status"); st != http.StatusOK {
			t.Fatalf("token %s…: HTTP %d, want 200 while it has not expired", rt.ConnectionInfo.Token[:4], st)
		}
	}
	clk.Advance(first.ConnectionInfo.ExpireTime.Sub(clk.Now()) + time.Minute)
	var again api.Runtime
	decode(t, call(t, cs, "get_runtime", map[string]any{"name": first.Name}), &again)
	if st, _ := proxyGet(t, first, "api/status"); st != http.StatusNotFound {
		t.Errorf("an expired replaced token: HTTP %d, want 404", st)
	}
	if st, _ := proxyGet(t, again, "api/status"); st != http.StatusOK {
		t.Errorf("the newest token: HTTP %d, want 200", st)
	}
}

// However many renewals others make (a `jobs --watch` renewing every 5 s
// beside a dashboard), the token a client holds stays good until its own
// expireTime.
func TestManyRenewalsLeaveAnEarlierTokenGood(t *testing.T) {
	s, cs, clk := startConnect(t, Options{Seed: SeedEmpty})
	held := mustAdd(t, s, api.Runtime{Name: "runtimes/rt-held", ConnectionInfo: &api.ConnectionInfo{}})
	for range 30 {
		clk.Advance(5 * time.Second)
		call(t, cs, "get_runtime", map[string]any{"name": held.Name})
	}
	if st, _ := proxyGet(t, held, "api/status"); st != http.StatusOK {
		t.Errorf("a token 30 renewals old, not expired: HTTP %d, want 200", st)
	}
}
