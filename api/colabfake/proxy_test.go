package colabfake

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/colabdash/colabdash/api"
)

// proxyGet GETs path below runtime rt's connectionInfo.url with its proxy
// token and returns the status and body.
func proxyGet(t *testing.T, rt api.Runtime, path string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, rt.ConnectionInfo.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(proxyTokenHeader, rt.ConnectionInfo.Token)
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

// execute_code's rich-output bundles live under /content/.dsm_outputs/
// and are fetched with GET {url}/files/content/.dsm_outputs/…
// (colab-api.md §1.10, §4): the proxy serves them although the directory
// is hidden; other hidden paths stay 404 through /files/ and the contents
// API (field case 52).
func TestProxyServesRichOutputBundles(t *testing.T) {
	dir := t.TempDir()
	s, _, _ := start(t, Options{FilesDir: dir})
	rt, err := s.AddRuntime(api.Runtime{Name: "runtimes/rt-rich", ConnectionInfo: &api.ConnectionInfo{}})
	if err != nil {
		t.Fatal(err)
	}
	bundle := `{"data":{"image/png":"iVBORw0KGgo="},"metadata":{}}`
	for p, body := range map[string]string{
		"content/.dsm_outputs/msg-1/out-000.json":   bundle,
		"content/.dsm_outputs/msg-1/.secret":        "hidden inside",
		"content/.env":                              "TOKEN=x",
		"content/sub/.dsm_outputs/msg-2/out-0.json": "elsewhere",
	} {
		f := filepath.Join(dir, "rt-rich", filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
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
