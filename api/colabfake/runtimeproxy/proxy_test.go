package runtimeproxy

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake/testkit"
)

// fakeRuntimes is a Runtimes of one runtime, "rt-a", with one session
// whose kernel is "k-1"; it records the interrupts it was asked for.
type fakeRuntimes struct {
	mu         sync.Mutex
	now        time.Time
	token      string
	expire     time.Time
	interrupts []string
}

func (f *fakeRuntimes) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeRuntimes) Token(id string) (string, time.Time, bool) {
	if id != "rt-a" {
		return "", time.Time{}, false
	}
	return f.token, f.expire, true
}

func (f *fakeRuntimes) Earlier(string) []api.ConnectionInfo { return nil }

func (f *fakeRuntimes) Exists(id string) bool { return id == "rt-a" }

func (f *fakeRuntimes) Kernels(id string) []Kernel {
	if id != "rt-a" {
		return nil
	}
	return []Kernel{{Session: "nb-1", ID: "k-1"}}
}

func (f *fakeRuntimes) HasKernel(id, kid string) bool { return id == "rt-a" && kid == "k-1" }

func (f *fakeRuntimes) InterruptKernel(id, kid string) bool {
	if !f.HasKernel(id, kid) {
		return false
	}
	f.mu.Lock()
	f.interrupts = append(f.interrupts, kid)
	f.mu.Unlock()
	return true
}

func (f *fakeRuntimes) TouchKernel(id, kid string) {}

func (f *fakeRuntimes) Activity(id string) (Activity, bool) {
	if id != "rt-a" {
		return Activity{}, false
	}
	return Activity{Spec: api.RuntimeSpecKey{Variant: api.VariantGPU, Accelerator: "T4", Shape: api.ShapeStandard}, Sessions: 1}, true
}

// startProxy serves a proxy over rt on loopback and returns its base URL
// ("http://127.0.0.1:PORT/proxy/").
func startProxy(t *testing.T, rt Runtimes) (*Server, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	p, err := New(Config{Context: ctx, FilesDir: t.TempDir()}, rt)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(func() { cancel(); srv.Close(); p.Close() })
	return p, srv.URL + Prefix
}

func do(t *testing.T, method, url, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set(TokenHeader, token)
	}
	return testkit.Do(t, req)
}

// The proxy answers only a runtime's current, unexpired token, with
// Colab's bare 404 otherwise, and counts what it refused.
func TestTokenCheckThroughRuntimes(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC)
	rt := &fakeRuntimes{now: t0, token: "good", expire: t0.Add(time.Hour)}
	p, base := startProxy(t, rt)
	for _, c := range []struct {
		name, url, token string
		status           int
	}{
		{"no token", base + "rt-a/api/contents/content", "", 404},
		{"wrong token", base + "rt-a/api/contents/content", "bad", 404},
		{"unknown runtime", base + "rt-b/api/contents/content", "good", 404},
		{"good token", base + "rt-a/api/contents/content", "good", 200},
	} {
		status, body := do(t, http.MethodGet, c.url, c.token)
		if status != c.status {
			t.Errorf("%s: status %d, want %d (%q)", c.name, status, c.status, body)
		}
		if status == 404 && body != "" {
			t.Errorf("%s: a refused request has a body %q; Colab's 404 is empty", c.name, body)
		}
	}
	rt.mu.Lock()
	rt.now = t0.Add(time.Hour) // the token's expireTime: expired
	rt.mu.Unlock()
	if status, _ := do(t, http.MethodGet, base+"rt-a/api/contents/content", "good"); status != 404 {
		t.Errorf("expired token: status %d, want 404", status)
	}
	if total, refused := p.Requests(); total != 5 || refused != 4 {
		t.Errorf("Requests() = %d, %d; want 5, 4", total, refused)
	}
}

// Sessions and kernels come from Runtimes: api/sessions lists the
// session's kernel, and an interrupt reaches InterruptKernel for a known
// kernel only.
func TestKernelsThroughRuntimes(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC)
	rt := &fakeRuntimes{now: t0, token: "good", expire: t0.Add(time.Hour)}
	_, base := startProxy(t, rt)
	status, body := do(t, http.MethodGet, base+"rt-a/api/sessions", "good")
	if status != 200 || !strings.Contains(body, `"id":"k-1"`) || !strings.Contains(body, `"path":"nb-1"`) {
		t.Errorf("api/sessions: %d %s", status, body)
	}
	if status, _ := do(t, http.MethodPost, base+"rt-a/api/kernels/k-1/interrupt", "good"); status != http.StatusNoContent {
		t.Errorf("interrupt k-1: status %d, want 204", status)
	}
	if status, _ := do(t, http.MethodPost, base+"rt-a/api/kernels/k-9/interrupt", "good"); status != 404 {
		t.Errorf("interrupt of an unknown kernel: status %d, want 404", status)
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if len(rt.interrupts) != 1 || rt.interrupts[0] != "k-1" {
		t.Errorf("interrupts %q, want [k-1]", rt.interrupts)
	}
}
