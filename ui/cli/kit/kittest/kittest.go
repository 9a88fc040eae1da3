// Package kittest runs one verb package's commands in-process against the
// emulator (api/colabfake) on loopback, for that package's own tests: the
// exit code, stdout and stderr a user would see, and what the emulator
// saw. It never touches the network beyond 127.0.0.1, and isolates HOME
// and the state directory in the test's temporary directory.
package kittest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/colabfaketest"
	"github.com/colabdash/colabdash/api/colabfake/testkit"
	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/ops"
)

// Env is the emulator a test's commands reach, and the account files.
type Env struct {
	T   testing.TB
	Srv *colabfake.Server
	// Endpoint is the emulator's MCP URL; TokenFile the access token file.
	Endpoint, TokenFile string
}

// New starts the emulator with o (per-minute create quota off unless
// set) and isolates the environment: HOME, the XDG directories and the
// credentials variables point into t's temporary directory.
func New(t testing.TB, o colabfake.Options) *Env {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", filepath.Join(home, "none.json"))
	t.Setenv("NO_COLOR", "")
	if o.CreatesPerMinute == 0 {
		o.CreatesPerMinute = -1
	}
	srv, ep := colabfaketest.Start(t, o)
	tok := filepath.Join(home, "token.txt")
	if err := os.WriteFile(tok, []byte("kittest-access-token-4f9c2a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return &Env{T: t, Srv: srv, Endpoint: ep, TokenFile: tok}
}

// Empty is New with colabfake.SeedEmpty: no runtime, the Free tier, the
// per-minute create quota off. For a test that creates what it needs.
func Empty(t testing.TB) *Env {
	t.Helper()
	return New(t, colabfake.Options{Seed: colabfake.SeedEmpty})
}

// Demo is New with colabfake.SeedDemo: the Pro tier and the demo's three
// runtimes (rt-t4demo7k2p, a T4 whose proxy token is live, among them),
// the per-minute create quota off.
func Demo(t testing.TB) *Env {
	t.Helper()
	return New(t, colabfake.Options{Seed: colabfake.SeedDemo})
}

// SkipWaits makes the operations layer's waits between re-sends end at
// once for the rest of the test (the decisions stay state's).
func SkipWaits(t testing.TB) {
	old := ops.Sleep
	ops.Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	t.Cleanup(func() { ops.Sleep = old })
}

// Term says which streams are terminals and what stdin holds; Sigs, when
// set, is what the command receives as SIGINT, SIGTERM and SIGHUP.
type Term struct {
	In                    string
	InTTY, OutTTY, ErrTTY bool
	Sigs                  chan os.Signal
	// Ctx, when set, is the command's context: a test cancels it to end
	// a command that runs until ctrl+c (top --watch).
	Ctx context.Context
}

// Result is what a user sees of one command: its exit code, stdout and
// stderr (each error line as the program prints it, "colabdash: …").
type Result struct {
	Code     int
	Out, Err string
}

// Command builds one verb's command from the globals and streams.
type Command func(g *kit.Globals, s *kit.Streams) *cobra.Command

// Run runs the command mk builds with args, no terminal anywhere.
func (e *Env) Run(mk Command, args ...string) Result {
	e.T.Helper()
	return e.RunTerm(Term{}, mk, args...)
}

// RunTerm runs the command mk builds with args and the streams tm
// describes, with the global flags --endpoint and --access-token-file
// as the user gave them.
func (e *Env) RunTerm(tm Term, mk Command, args ...string) Result {
	e.T.Helper()
	var out, errb bytes.Buffer
	s := &kit.Streams{In: strings.NewReader(tm.In), Out: &out, Err: &errb, InTTY: tm.InTTY, OutTTY: tm.OutTTY, ErrTTY: tm.ErrTTY,
		Signals: &kit.SignalState{}}
	if tm.Sigs != nil {
		s.Interrupts = func() (<-chan os.Signal, func()) { return tm.Sigs, func() {} }
	}
	g := e.Globals()
	cmd := mk(g, s)
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	ctx := tm.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	err := cmd.ExecuteContext(ctx)
	code := kit.ExitOK
	if err != nil {
		var ee *kit.ExitError
		if !errors.As(err, &ee) {
			ee = &kit.ExitError{Code: kit.ExitUsage, Msg: err.Error()}
		}
		code = ee.Code
		if ee.Msg != "" { // as the CLI says it: the line, then its fix
			errb.WriteString("colabdash: " + g.Logs.Red.Redact(ee.Msg) + "\n")
			if ee.Fix != "" {
				errb.WriteString("colabdash: " + g.Logs.Red.Redact(ee.Fix) + "\n")
			}
		}
	}
	return Result{Code: s.Signals.ExitCode(code), Out: out.String(), Err: errb.String()}
}

// Globals are the global flags of one command as RunTerm gives them: the
// emulator's --endpoint and --access-token-file as the user gave them, the
// default profile on them, a fresh redactor and a log that discards. For
// a test that calls a verb package's function (a completion) directly.
func (e *Env) Globals() *kit.Globals {
	given := map[string]bool{"endpoint": true, "access-token-file": true}
	return &kit.Globals{Endpoint: e.Endpoint, AccessTokenFile: e.TokenFile,
		Profile: config.Profile{Name: "default", Credentials: config.CredentialsAccessToken, AccessTokenFile: e.TokenFile, Endpoint: e.Endpoint},
		Logs:    kit.Logs{Log: slog.New(slog.DiscardHandler), Red: &api.Redactor{}},
		Changed: func(name string) bool { return given[name] }}
}

// Buffer is a bytes.Buffer that a test may read (String) while a command
// running in another goroutine writes to it: stdout or stderr of a
// command that runs until it is interrupted. The zero value is empty and
// ready.
type Buffer = testkit.SyncBuffer
