//go:build unix

package plugin

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/ui/plugin/plugintest"
)

// hostile is a runtime name a server could send: shell syntax of every
// kind, which would run if anything put it through a shell.
const hostile = `rt-x"; touch PWNED; echo "$(touch PWNED2)` + "`touch PWNED3`" + `'; touch PWNED4 #`

// A plugin runs its command with its args exactly as configured, without
// a shell: a hostile runtime name reaches it only as COLABDASH_RUNTIME,
// byte for byte, and runs nothing; the proxy token is in its environment
// only when it asks (token: true), never in argv, and a COLABDASH_TOKEN
// inherited from the dashboard's environment is not passed on.
func TestPluginRunsWithoutShellOrInjection(t *testing.T) {
	dir := t.TempDir()
	cmd := plugintest.Recorder(t, dir)
	args := []string{"--runtime", "$COLABDASH_RUNTIME", "a b", "$(touch PWNED5)"}
	sel := Selection{Runtime: hostile, Session: "s-1", URL: "https://127.0.0.1:9/proxy/" + hostile, Token: "ya29.proxy-secret",
		Endpoint: "https://127.0.0.1:8/mcp", Profile: "work"}
	base := []string{"PATH=" + os.Getenv("PATH"), "REC_DIR=" + dir, "COLABDASH_TOKEN=inherited", "COLABDASH_RUNTIME=stale"}
	for _, token := range []bool{false, true} {
		p := config.Plugin{Name: "rec", Command: cmd, Args: args, Background: true, Token: token, Timeout: time.Minute}
		msg := Background(context.Background(), p, sel, base)().(DoneMsg)
		if msg.Err != nil || msg.TimedOut || msg.Output != "recorded "+hostile+"\n" || msg.Target != hostile {
			t.Fatalf("token %v: %+v", token, msg)
		}
		argv, env := plugintest.Recorded(t, dir)
		if strings.Join(argv, "|") != strings.Join(args, "|") {
			t.Errorf("argv %q, want the configured args %q", argv, args)
		}
		for k, want := range map[string]string{EnvRuntime: hostile, EnvSession: "s-1", EnvURL: sel.URL, EnvEndpoint: sel.Endpoint, EnvProfile: "work"} {
			if env[k] != want {
				t.Errorf("%s=%q, want %q", k, env[k], want)
			}
		}
		if tok, ok := env[EnvToken]; token != ok || ok && tok != sel.Token {
			t.Errorf("token: %v: COLABDASH_TOKEN=%q (set %v)", token, tok, ok)
		}
		for _, a := range argv {
			if strings.Contains(a, "ya29") {
				t.Errorf("the token is in argv: %q", argv)
			}
		}
	}
	for _, p := range plugintest.Created([]string{dir, "."}, "PWNED", "PWNED2", "PWNED3", "PWNED4", "PWNED5") {
		t.Errorf("%s was created: the runtime name ran as code", p)
	}
}

// A background plugin that outlives its timeout is ended and says so;
// only the last MaxOutput bytes of a flood are kept.
func TestBackgroundPluginIsBounded(t *testing.T) {
	p := config.Plugin{Name: "slow", Command: "/bin/sh", Args: []string{"-c", "echo started; exec sleep 60"}, Background: true, Timeout: 200 * time.Millisecond}
	start := time.Now()
	msg := Background(context.Background(), p, Selection{}, []string{"PATH=" + os.Getenv("PATH")})().(DoneMsg)
	if !msg.TimedOut || msg.Err == nil || time.Since(start) > 30*time.Second || !strings.Contains(msg.Output, "started") {
		t.Errorf("a plugin past its timeout: %+v after %v", msg, time.Since(start))
	}
	p = config.Plugin{Name: "flood", Command: "/bin/sh", Args: []string{"-c", "head -c 1000000 /dev/zero | tr '\\0' x; echo END"}, Background: true, Timeout: time.Minute}
	msg = Background(context.Background(), p, Selection{}, []string{"PATH=" + os.Getenv("PATH")})().(DoneMsg)
	if msg.Err != nil || len(msg.Output) != MaxOutput || !strings.HasSuffix(msg.Output, "xEND\n") {
		t.Errorf("a flood: %d bytes kept (want %d), ends %q, err %v", len(msg.Output), MaxOutput, msg.Output[max(0, len(msg.Output)-8):], msg.Err)
	}
}
