package colabfake

// The control routes: what a test calls on the Server in-process, for a
// person or a script driving `colabdash emulator` from outside (a shell,
// another language's test suite), so that a tool built on Colab can be
// tried against the failures that matter: a runtime reclaimed, a proxy
// token expiring, a tool failing.

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api"
)

// ControlPrefix is the path below which Start serves the control routes,
// on the emulator's own loopback address and behind the same Host, Origin
// and bearer checks as /mcp. Every route takes POST with its parameters
// in the query or an application/x-www-form-urlencoded body (at most 4
// KiB), answers 204 on success and a text/plain line with 400 (a bad
// parameter), 404 (no such runtime) or 405 (not POST):
//
//   - reclaim?runtime=ID: the runtime is gone at once, as when Colab
//     reclaims an idle one (Server.Reclaim);
//   - expire-token?runtime=ID&in=DURATION: its proxy token's expireTime
//     becomes now + DURATION (Go syntax, "0s" by default, negative for a
//     token already expired; Server.ExpireToken);
//   - fail?tool=NAME&code=CODE|status=N[&times=N]: the next call(s) of tool
//     NAME (one of the ten) fail, with the Google error of canonical CODE
//     (NOT_FOUND, UNAVAILABLE, RESOURCE_EXHAUSTED…) as the tool's error
//     result, or with HTTP status N (400-599) before the tool runs; times
//     is how many calls (default 1, -1 until cleared); at most
//     maxControlFaults wait at a time (429 beyond);
//   - clear: every queued failure is dropped (Server.ClearFaults).
//
// A request carrying an Origin header (a web page's, even a loopback
// one) is refused with 403: the routes are for scripts, and a page could
// otherwise drive them with a plain form post under --no-auth.
const ControlPrefix = "/emulator/"

const (
	// maxControlBody bounds a control request's body.
	maxControlBody = 4 << 10
	// maxControlFaults bounds the failures queued and not used up.
	maxControlFaults = 1000
)

// ServeControl serves the control routes (ControlPrefix) of s.
func (s *Server) ServeControl(w http.ResponseWriter, r *http.Request) {
	if !(&frontDoor{s: s}).admit(w, r) {
		return
	}
	if r.Header.Get("Origin") != "" {
		controlError(w, http.StatusForbidden, "the control routes do not answer web pages (a request with an Origin header)")
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		controlError(w, http.StatusMethodNotAllowed, "use POST")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxControlBody)
	if err := r.ParseForm(); err != nil {
		controlError(w, http.StatusBadRequest, "the parameters cannot be read: "+err.Error())
		return
	}
	route := strings.TrimPrefix(r.URL.Path, ControlPrefix)
	var status int
	var msg string
	switch route {
	case "reclaim":
		status, msg = s.controlReclaim(r.Form.Get("runtime"))
	case "expire-token":
		status, msg = s.controlExpire(r.Form.Get("runtime"), r.Form.Get("in"))
	case "fail":
		status, msg = s.controlFail(r.Form.Get("tool"), r.Form.Get("code"), r.Form.Get("status"), r.Form.Get("times"))
	case "clear":
		s.ClearFaults()
		status = http.StatusNoContent
	default:
		status, msg = http.StatusNotFound, fmt.Sprintf("no control route %q (reclaim, expire-token, fail, clear)", route)
	}
	if status != http.StatusNoContent {
		controlError(w, status, msg)
		return
	}
	w.WriteHeader(status)
}

// controlError answers status with msg on one line.
func controlError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprintln(w, msg)
}

// controlRuntime checks a runtime parameter: an id or runtimes/ID.
func controlRuntime(id string) (string, string) {
	if id == "" {
		return "", "runtime is required (runtime=rt-abc)"
	}
	return api.RuntimeName(id), ""
}

func (s *Server) controlReclaim(id string) (int, string) {
	name, bad := controlRuntime(id)
	if bad != "" {
		return http.StatusBadRequest, bad
	}
	if !s.Reclaim(name) {
		return http.StatusNotFound, "no runtime " + strconv.Quote(id)
	}
	return http.StatusNoContent, ""
}

func (s *Server) controlExpire(id, in string) (int, string) {
	name, bad := controlRuntime(id)
	if bad != "" {
		return http.StatusBadRequest, bad
	}
	d := time.Duration(0)
	if in != "" {
		var err error
		if d, err = time.ParseDuration(in); err != nil {
			return http.StatusBadRequest, "in must be a duration (30s, 2m, -1m), not " + strconv.Quote(in)
		}
	}
	if !s.ExpireToken(name, s.clock().Add(d)) {
		return http.StatusNotFound, "no runtime " + strconv.Quote(id) + " with connectionInfo"
	}
	return http.StatusNoContent, ""
}

func (s *Server) controlFail(tool, code, status, times string) (int, string) {
	if !slices.Contains(api.ToolNames(), tool) {
		return http.StatusBadRequest, "tool must be one of " + strings.Join(api.ToolNames(), ", ") + ", not " + strconv.Quote(tool)
	}
	f := Fault{Tool: tool, Times: 1}
	if times != "" {
		n, err := strconv.Atoi(times)
		if err != nil || n == 0 || n < -1 {
			return http.StatusBadRequest, "times must be a positive count or -1 (until the emulator stops), not " + strconv.Quote(times)
		}
		f.Times = n
	}
	switch {
	case (code == "") == (status == ""):
		return http.StatusBadRequest, "give code (a canonical Google error code such as UNAVAILABLE) or status (an HTTP status 400-599), not both"
	case code != "":
		c := api.Code(code)
		if c.Number() == 2 && c != api.Unknown || c == api.OK {
			return http.StatusBadRequest, "code must be a canonical Google error code (NOT_FOUND, UNAVAILABLE, RESOURCE_EXHAUSTED…), not " + strconv.Quote(code)
		}
		f.Kind, f.Text = FaultToolError, GoogleErrorText(c, "injected by the emulator's control route", "", 0)
	default:
		n, err := strconv.Atoi(status)
		if err != nil || n < 400 || n > 599 {
			return http.StatusBadRequest, "status must be an HTTP status from 400 to 599, not " + strconv.Quote(status)
		}
		f.Kind, f.Status = FaultHTTPStatus, n
	}
	if s.PendingFaults() >= maxControlFaults {
		return http.StatusTooManyRequests, fmt.Sprintf("%d failures are queued already (POST %sclear drops them)", maxControlFaults, ControlPrefix)
	}
	s.Inject(f)
	return http.StatusNoContent, ""
}
