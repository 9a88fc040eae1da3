package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/secrettest"
)

// Field case S2 on the dashboard: a server that echoes the bearer token
// (not shaped like a Google token, so only its registration can catch it)
// and the proxy tokens, bare, in every error: refresh failures (the status
// line and header), a failed renewal (the row, the details panel, the
// status line) and the event log show no 8-byte piece of any of them.
func TestEchoedSecretsNotOnAnyScreen(t *testing.T) {
	const bearer = "BEARq8Zx3Kw7Nm2Vt"
	red := &api.Redactor{}
	red.Add(bearer) // as api/auth does when it reads or mints the token
	s := newStack(t, stackOpts{bearer: bearer, redactor: red, ui: Options{Redact: red.Redact},
		emu: colabfake.Options{TokenTTL: 10 * time.Minute}})
	if _, err := s.srv.AddRuntime(api.Runtime{Name: "r-alpha", RuntimeSpec: stackT4,
		ConnectionInfo: &api.ConnectionInfo{Token: "PRXYw4Jd9Qs2Lc7Hn"}}); err != nil {
		t.Fatal(err)
	}
	s.start()
	var proxies []string
	for _, rt := range s.srv.Runtimes() {
		proxies = append(proxies, rt.ConnectionInfo.Token)
	}
	echo := "caller " + bearer + " proxy " + strings.Join(proxies, " ")
	var frames []string
	frame := func() { frames = append(frames, s.view()) }

	s.srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: "list_runtimes", Times: -1, Text: "INTERNAL: " + echo})
	s.m, _ = update(s.m, keyMsg("r"))
	s.tick(time.Second)
	frame()
	s.srv.ClearFaults()
	s.srv.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: "get_runtime", Status: 503, Times: -1, Body: "overloaded: " + echo})
	s.srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: "list_runtimes", Times: -1, Text: "UNAVAILABLE: " + echo})
	for i := 0; i < 10; i++ { // renewals fall due and fail
		s.tick(time.Minute)
		frame()
	}
	if s.srv.CallCount("get_runtime") == 0 && !strings.Contains(strings.Join(frames, ""), "renew") {
		t.Fatalf("no renewal was attempted: the scan proves little")
	}
	s.m, _ = update(s.m, keyMsg("enter")) // details panel
	frame()
	s.m, _ = update(s.m, keyMsg("esc"))
	s.m, _ = update(s.m, keyMsg("L")) // event log
	frame()
	all := strings.Join(frames, "\n")
	if !strings.Contains(all, "caller") {
		t.Fatalf("no echo reached the screen: the scan proves little\n%s", all)
	}
	secrettest.Check(t, "a frame", all, append([]string{bearer}, proxies...)...)
}
