package colabfake

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
)

// post sends a control request (with a bearer unless noBearer, and an
// Origin header when origin is not "") and
// returns its status and body.
func post(t *testing.T, ep, route string, noBearer bool, origin string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, strings.TrimSuffix(ep, "/mcp")+ControlPrefix+route, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !noBearer {
		req.Header.Set("Authorization", "Bearer fake")
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return resp.StatusCode, string(body)
}

// A script outside the process steers the emulator through its control
// routes: a reclaimed runtime is no longer listed, an expired token reads
// expired in list_runtimes, and a failure injected for get_runtime is what
// the next get_runtime answers, then it works again.
func TestControlRoutesSteerTheEmulator(t *testing.T) {
	s, ep, clk := start(t, Options{})
	cs := connect(t, ep)
	mustAdd(t, s, api.Runtime{Name: "runtimes/rt-gone"})
	mustAdd(t, s, api.Runtime{Name: "runtimes/rt-keep", ConnectionInfo: &api.ConnectionInfo{}})

	if code, body := post(t, ep, "reclaim?runtime=rt-gone", false, ""); code != http.StatusNoContent {
		t.Fatalf("reclaim: %d %q", code, body)
	}
	var listed struct{ Runtimes []api.Runtime }
	decode(t, call(t, cs, api.ToolListRuntimes, nil), &listed)
	if len(listed.Runtimes) != 1 || listed.Runtimes[0].Name != "runtimes/rt-keep" {
		t.Fatalf("after reclaim, list_runtimes gives %+v, want rt-keep alone", listed.Runtimes)
	}

	if code, body := post(t, ep, "expire-token?runtime=rt-keep&in=-1m", false, ""); code != http.StatusNoContent {
		t.Fatalf("expire-token: %d %q", code, body)
	}
	decode(t, call(t, cs, api.ToolListRuntimes, nil), &listed)
	if got := listed.Runtimes[0].ConnectionInfo.ExpireTime; !got.Equal(clk.Now().Add(-time.Minute)) {
		t.Fatalf("expireTime %v, want a minute before %v", got, clk.Now())
	}

	if code, body := post(t, ep, "fail?tool=get_runtime&code=UNAVAILABLE", false, ""); code != http.StatusNoContent {
		t.Fatalf("fail: %d %q", code, body)
	}
	args := map[string]any{"name": "runtimes/rt-keep"}
	if res := call(t, cs, api.ToolGetRuntime, args); !res.IsError || !strings.Contains(text(res), "UNAVAILABLE") {
		t.Fatalf("the failed get_runtime answered %+v, want an UNAVAILABLE error", res)
	}
	if res := call(t, cs, api.ToolGetRuntime, args); res.IsError {
		t.Fatalf("the next get_runtime failed too: %s", text(res))
	}
}

// Bad control requests get a status and one line saying what is wrong,
// and change nothing; a request without a bearer is refused as /mcp
// refuses it.
func TestControlRoutesRefuseBadRequests(t *testing.T) {
	s, ep, _ := start(t, Options{})
	mustAdd(t, s, api.Runtime{Name: "runtimes/rt-keep", ConnectionInfo: &api.ConnectionInfo{}})
	for _, tc := range []struct {
		route    string
		noBearer bool
		status   int
		says     string
	}{
		{"reclaim?runtime=rt-keep", true, http.StatusUnauthorized, "authentication"},
		{"reclaim", false, http.StatusBadRequest, "runtime is required"},
		{"reclaim?runtime=rt-nope", false, http.StatusNotFound, `no runtime "rt-nope"`},
		{"expire-token?runtime=rt-keep&in=soon", false, http.StatusBadRequest, "in must be a duration"},
		{"fail?tool=rm_rf&code=UNAVAILABLE", false, http.StatusBadRequest, "tool must be one of"},
		{"fail?tool=get_runtime", false, http.StatusBadRequest, "give code"},
		{"fail?tool=get_runtime&code=SOMETIMES", false, http.StatusBadRequest, "canonical Google error code"},
		{"fail?tool=get_runtime&status=200", false, http.StatusBadRequest, "400 to 599"},
		{"fail?tool=get_runtime&status=503&times=0", false, http.StatusBadRequest, "times must be"},
		{"explode", false, http.StatusNotFound, "no control route"},
	} {
		code, body := post(t, ep, tc.route, tc.noBearer, "")
		if code != tc.status || !strings.Contains(body, tc.says) {
			t.Errorf("%s: %d %q, want %d saying %q", tc.route, code, body, tc.status, tc.says)
		}
	}
	if len(s.Runtimes()) != 1 || s.PendingFaults() != 0 {
		t.Fatalf("bad requests changed the state: %d runtimes, %d faults", len(s.Runtimes()), s.PendingFaults())
	}
}

// A web page cannot drive the control routes, even from a loopback
// origin (with --no-auth a plain form post would need no preflight), and
// the failures a script may queue are bounded; clear drops them.
func TestControlRoutesRefuseWebPagesAndBoundTheQueue(t *testing.T) {
	s, ep, _ := start(t, Options{NoAuth: true})
	mustAdd(t, s, api.Runtime{Name: "runtimes/rt-keep", ConnectionInfo: &api.ConnectionInfo{}})
	if code, body := post(t, ep, "reclaim?runtime=rt-keep", true, "http://127.0.0.1:3000"); code != http.StatusForbidden || len(s.Runtimes()) != 1 {
		t.Fatalf("a page's post: %d %q, %d runtime(s)", code, body, len(s.Runtimes()))
	}
	for i := range maxControlFaults {
		if code, body := post(t, ep, "fail?tool=get_runtime&status=503&times=-1", false, ""); code != http.StatusNoContent {
			t.Fatalf("fail #%d: %d %q", i+1, code, body)
		}
	}
	if code, body := post(t, ep, "fail?tool=get_runtime&status=503", false, ""); code != http.StatusTooManyRequests || !strings.Contains(body, "clear") {
		t.Fatalf("one failure too many: %d %q", code, body)
	}
	if code, _ := post(t, ep, "clear", false, ""); code != http.StatusNoContent || s.PendingFaults() != 0 {
		t.Fatalf("clear: %d, %d faults left", code, s.PendingFaults())
	}
}
