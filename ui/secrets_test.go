package ui

import (
	"bytes"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/secrettest"
	"github.com/colabdash/colabdash/state/config"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestNoSecretOnScreenOrInLogs drives the dashboard through loading,
// renewals (new proxy tokens), failures whose bodies echo a proxy token or
// the bearer, and recovery, with the client's debug log on. Every frame
// (sessions and details panels open) and the whole log are scanned for
// every proxy token the emulator ever issued and for the OAuth token, and
// any piece of them (secrettest.Piece characters).
func TestNoSecretOnScreenOrInLogs(t *testing.T) {
	var logs lockedBuffer
	s := newStack(t, stackOpts{logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		emu: colabfake.Options{TokenTTL: 10 * time.Minute}})
	s.addRuntime(t, "r-alpha", stackT4)
	s.addRuntime(t, "r-bravo", stackCPU)
	s.srv.AddNotebookSession("r-alpha", "nb")
	secrets := map[string]bool{stackOAuthToken: true}
	collect := func() {
		for _, rt := range s.srv.Runtimes() {
			if rt.ConnectionInfo != nil && rt.ConnectionInfo.Token != "" {
				secrets[rt.ConnectionInfo.Token] = true
			}
		}
	}
	var frames []string
	frame := func() { collect(); frames = append(frames, s.view()) }

	s.start()
	frame()
	s.m, _ = update(s.m, keyMsg("enter")) // details panel
	frame()
	tok := s.srv.Runtimes()[0].ConnectionInfo.Token
	s.srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: "list_runtimes", Times: 3,
		Text: `{"error":{"code":500,"status":"INTERNAL","message":"backend error","details":[{"token":"` + tok + `"}]}}`})
	s.tick(config.DefaultRefreshInterval + time.Second)
	frame()
	s.srv.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: "list_runtimes", Status: 401, Times: -1,
		Body: `{"error":{"code":401,"status":"UNAUTHENTICATED","message":"bad credentials"},"echo":"Authorization: Bearer ` + stackOAuthToken + `"}`})
	s.tick(MaxBackoff)
	frame()
	s.srv.ClearFaults()
	s.srv.Inject(colabfake.Fault{Kind: colabfake.FaultMalformed, Tool: "get_runtime", Body: `{"connectionInfo":{"token":"` + tok + `"`})
	// Ten minutes of idling: both tokens renew (get_runtime), the first
	// renewal's reply is malformed and echoes a token.
	for i := 0; i < 12; i++ {
		s.tick(time.Minute)
		frame()
	}
	if s.srv.CallCount("get_runtime") < 2 {
		t.Fatalf("only %d renewals: the scan did not see renewed tokens", s.srv.CallCount("get_runtime"))
	}
	if len(secrets) < 4 {
		t.Fatalf("only %d distinct secrets seen", len(secrets))
	}
	all := strings.Join(frames, "\n")
	logText := logs.String()
	if testing.Verbose() {
		t.Log(logText)
	}
	if !strings.Contains(logText, "list_runtimes") {
		t.Fatalf("the debug log is empty; the scan would prove nothing:\n%s", logText)
	}
	list := slices.Collect(maps.Keys(secrets))
	secrettest.Check(t, "a frame", all, list...)
	secrettest.Check(t, "the debug log", logText, list...)
}
