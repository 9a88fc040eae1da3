package cli

// The verb tests' harness: colabdash run in-process against the emulator,
// with HOME isolated and a token file, and the --json documents they read.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/colabfaketest"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// verbEnv is an emulator and the flags that reach it.
type verbEnv struct {
	t     *testing.T
	srv   *colabfake.Server
	flags []string
	home  string
}

// newVerbEnv starts an emulator with o (demo seed unless o says) for one
// test, with HOME isolated and a bearer token file.
// verbTestToken is the access token newVerbEnv's commands send (the
// redaction tests look for any piece of it in what colabdash writes).
const verbTestToken = "ya29.verbtest0AccessToken7q"

func newVerbEnv(t *testing.T, o colabfake.Options) *verbEnv {
	t.Helper()
	home := isolate(t)
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	t.Setenv("NO_COLOR", "")
	srv, endpoint := colabfaketest.Start(t, o)
	tok := writeFile(t, filepath.Join(home, "token.txt"), verbTestToken+"\n")
	return &verbEnv{t: t, srv: srv, home: home, flags: []string{"--endpoint", endpoint, "--access-token-file", tok}}
}

// demoVerbEnv is newVerbEnv on colabfake.SeedDemo: the Pro tier and the
// demo's three runtimes (rt-t4demo7k2p among them).
func demoVerbEnv(t *testing.T) *verbEnv {
	t.Helper()
	return newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedDemo})
}

// emptyVerbEnv is newVerbEnv on colabfake.SeedEmpty: no runtime, the Free
// tier.
func emptyVerbEnv(t *testing.T) *verbEnv {
	t.Helper()
	return newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedEmpty})
}

// holdCalls makes the emulator hold tool's calls (kind says what the
// call does once let go, times as in colabfake.Fault) until the test
// ends: the command waits on a call that is under way.
func (e *verbEnv) holdCalls(kind colabfake.FaultKind, tool string, times int) {
	hold := make(chan struct{})
	e.t.Cleanup(func() { close(hold) })
	e.srv.Inject(colabfake.Fault{Kind: kind, Tool: tool, Hold: hold, Times: times})
}

// term describes which streams are terminals and what stdin holds.
type term struct {
	in                    string
	stdin                 io.Reader // read instead of in when set
	inTTY, outTTY, errTTY bool
	sigs                  chan os.Signal
	ctx                   context.Context // its end is what ctrl+c or SIGTERM does; nil: never ends
}

// run runs colabdash in-process against the emulator, no terminal
// anywhere and an empty stdin.
func (e *verbEnv) run(args ...string) (int, string, string) {
	e.t.Helper()
	return e.runTerm(term{}, args...)
}

// runTerm runs colabdash in-process with the streams tm describes.
func (e *verbEnv) runTerm(tm term, args ...string) (int, string, string) {
	e.t.Helper()
	var out, errb bytes.Buffer
	var in io.Reader = strings.NewReader(tm.in)
	if tm.stdin != nil {
		in = tm.stdin
	}
	s := &kit.Streams{In: in, Out: &out, Err: &errb, InTTY: tm.inTTY, OutTTY: tm.outTTY, ErrTTY: tm.errTTY}
	if tm.sigs != nil {
		s.Interrupts = func() (<-chan os.Signal, func()) { return tm.sigs, func() {} }
	}
	ctx := tm.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	code := runStreamsContext(ctx, append(args, e.flags...), s)
	return code, out.String(), errb.String()
}

// mustJSON decodes out into v or fails.
func mustJSON(t *testing.T, out string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
}

var requestIDLine = regexp.MustCompile(`requestId ([0-9a-f-]{36})`)

// closeReport is session close --json's document: one entry a session
// named.
type closeReport struct {
	Sessions []struct {
		Name   string
		Closed bool
		Error  string
	}
}

// deleteReport is delete --json's document: one entry a runtime named.
type deleteReport struct {
	Runtimes []struct {
		Name    string
		Deleted bool
		Missing bool
		Error   string
	}
}
