package realjupyter

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake/runtimeproxy"
)

// StartKernel starts a kernel of the server's default kernelspec
// (python3) through the runtime proxy of ci (its url, its proxy token) by
// Jupyter's POST api/kernels, and returns the kernel's id; the kernel is
// shut down again when the test ends. A failure to start one fails the
// test.
func StartKernel(t testing.TB, ci api.ConnectionInfo) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, ci.URL+"api/kernels", nil)
	req.Header.Set(runtimeproxy.TokenHeader, ci.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var started struct {
		ID string `json:"id"`
	}
	err = json.NewDecoder(resp.Body).Decode(&started)
	resp.Body.Close()
	if err != nil || started.ID == "" {
		t.Fatalf("starting a kernel: HTTP %d, %v", resp.StatusCode, err)
	}
	t.Cleanup(func() {
		req, _ := http.NewRequest(http.MethodDelete, ci.URL+"api/kernels/"+started.ID, nil)
		req.Header.Set(runtimeproxy.TokenHeader, ci.Token)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	})
	return started.ID
}
