package forward

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/internal/proxytest"
)

// Guards the local token's minimum length at its edge: 16 characters
// are accepted and used as given, 15 are refused.
func TestForwardTokenLengthEdge(t *testing.T) {
	e := proxytest.NewEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.Client()
	if _, err := New(c, Options{Port: 1, LocalToken: strings.Repeat("x", 15)}); err == nil {
		t.Error("a 15-character local token was accepted")
	}
	tok := strings.Repeat("y", 16)
	f, err := New(c, Options{Port: 8888, LocalToken: tok})
	if err != nil || f.Token() != tok || f.URL("localhost") != "http://localhost:8888/?token="+tok {
		t.Fatalf("a 16-character local token: %v, token %q, URL %q", err, f.Token(), f.URL("localhost"))
	}
}

// Guards KeepFresh's default interval: called with none (0), it still
// renews a token inside the renewal lead at once, and returns when its
// context ends.
func TestForwardKeepFreshDefaultInterval(t *testing.T) {
	e := proxytest.NewEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.Client()
	f, err := New(c, Options{Port: 1})
	if err != nil {
		t.Fatal(err)
	}
	old := c.Info().Token
	e.Clk.Advance(57 * time.Minute) // 3 min left: inside the 5 min lead
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { f.KeepFresh(ctx, 0); close(done) }()
	deadline := time.Now().Add(30 * time.Second)
	for c.Info().Token == old && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("KeepFresh did not return when its context ended")
	}
	if c.Info().Token == old {
		t.Fatal("KeepFresh(ctx, 0) did not renew the proxy token inside the renewal lead")
	}
}
