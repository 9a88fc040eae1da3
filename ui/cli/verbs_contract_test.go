package cli

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// Every command's --help names the one exit-code table: a verb
// added without it fails here.
func TestEveryHelpNamesTheExitCodeTable(t *testing.T) {
	var g kit.Globals
	root := newRootCommand(&g, &kit.Streams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard})
	root.InitDefaultHelpCmd()
	n := 0
	walkCommands(root, func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" {
			return
		}
		n++
		if !strings.Contains(c.Long, kit.ExitCodesHelp) {
			t.Errorf("%s --help does not end with the exit-code table (kit.ExitCodesHelp):\n%s", c.CommandPath(), c.Long)
		}
		if c.Flags().Lookup("json") != nil && (c.Flags().Lookup("jq") == nil || !strings.Contains(c.Long, kit.JSONHelp)) {
			t.Errorf("%s has --json but not --jq and the envelope's paragraph (kit.JSONHelp)", c.CommandPath())
		}
		if c.Runnable() && c.Example == "" {
			t.Errorf("%s --help has no examples", c.CommandPath())
		}
	})
	if n < 25 {
		t.Fatalf("walked %d commands, want the whole tree", n)
	}
	// The table in docs/scripting.md lists every code of kit.ExitCodes.
	doc, err := os.ReadFile("../../docs/scripting.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range kit.ExitCodes {
		if !strings.Contains(string(doc), "| `"+r.Word+"` |") {
			t.Errorf("docs/scripting.md's exit-code table has no row for %d %s", r.Code, r.Word)
		}
	}
}

// The examples and exit codes in --help are as true as the docs: the
// connection URL ends in "/", so no example appends a path to it as
// printed (scripting.md strips it), and delete's partial outcome is 7.
func TestHelpExamplesAndCodesTrue(t *testing.T) {
	var g kit.Globals
	root := newRootCommand(&g, &kit.Streams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard})
	walkCommands(root, func(c *cobra.Command) {
		if strings.Contains(c.Example, "url rt-abc)/") {
			t.Errorf("%s --help appends a path to the url as printed, which ends in /:\n%s", c.CommandPath(), c.Example)
		}
		if strings.Contains(c.Long, "exit code 1 means some") {
			t.Errorf("%s --help says exit code 1 for a partial outcome; the table says 7", c.CommandPath())
		}
	})
}

// envelope decodes a --json command's stdout as exactly one document
// with the envelope's fields.
func envelope(t *testing.T, out string) kit.Envelope {
	t.Helper()
	var env kit.Envelope
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&env); err != nil || dec.More() {
		t.Fatalf("stdout is not one JSON document (%v):\n%s", err, out)
	}
	return env
}

// Whatever fails, a --json verb prints one document with "ok" false and
// the error's code word, and exits with the table's code for it.
func TestJSONEnvelopeAndExitCodes(t *testing.T) {
	e := demoVerbEnv(t)
	for _, tc := range []struct {
		args []string
		code int
		word string
	}{
		{[]string{"url", "rt-t4", "--json", "--bogus"}, kit.ExitUsage, "usage"},                                 // a bad flag
		{[]string{"url", "rt-nope", "--json"}, kit.ExitNotFound, "not_found"},                                   // no such runtime
		{[]string{"exec", "rt-t4/colabdash-none", "-c", "1", "--json"}, kit.ExitNotFound, "not_found"},          // no such session
		{[]string{"delete", "rt-cpu", "rt-gone", "--yes", "--json"}, kit.ExitPartial, "partial"},                // one of two targets failed
		{[]string{"create", "--spec", "TPU/V6E1/STANDARD", "--json"}, kit.ExitQuota, "quota"},                   // ineligible on this tier
		{[]string{"exec", "rt-t4", "-c", "raise ValueError('x')", "--json", "--rm"}, kit.ExitFailure, "failed"}, // the code raised
	} {
		if tc.word == "quota" {
			e.srv.SetTier(api.TierFree)
		}
		code, out, errs := e.run(tc.args...)
		env := envelope(t, out)
		if code != tc.code || env.OK || env.Error == nil || env.Error.Code != tc.word || env.Error.Message == "" || kit.CodeWord(code) != tc.word {
			t.Errorf("%v: exit %d (want %d), envelope %+v, stderr %q; want ok false and code %q", tc.args, code, tc.code, env.Error, errs, tc.word)
		}
	}
	// Credentials: a token file that does not exist.
	code, out, _ := runCLI(t, "status", "--json", "--endpoint", e.flags[1], "--access-token-file", e.home+"/missing")
	if env := envelope(t, out); code != kit.ExitCredential || env.Error == nil || env.Error.Code != "credentials" {
		t.Errorf("status with a missing token file: exit %d, %s", code, out)
	}
	// Success: ok true, no error.
	code, out, _ = e.run("sessions", "rt-t4", "--json")
	if env := envelope(t, out); code != 0 || !env.OK || env.Error != nil {
		t.Errorf("sessions --json: exit %d, %s", code, out)
	}
}

// --jq filters every --json document as gh's does: strings bare, one per
// line; a bad expression is one line on stderr, nothing on stdout, and
// exit 2 before anything is done.
func TestJQ(t *testing.T) {
	e := demoVerbEnv(t)
	code, out, errs := e.run("status", "--jq", ".runtimes[].name")
	if code != 0 || out != "runtimes/rt-t4demo7k2p\nruntimes/rt-cpudemo4qx\nruntimes/rt-v6edemo2mw\n" {
		t.Errorf("status --jq: exit %d %q %q", code, out, errs)
	}
	code, out, _ = e.run("specs", "--jq", "[.runtimeSpecs[] | select(.eligible)] | length")
	if code != 0 || strings.TrimSpace(out) == "" || strings.TrimSpace(out) == "0" {
		t.Errorf("specs --jq: exit %d %q", code, out)
	}
	// The failure envelope goes through the filter too.
	code, out, _ = e.run("url", "rt-nope", "--jq", ".error.code")
	if code != kit.ExitNotFound || out != "not_found\n" {
		t.Errorf("url rt-nope --jq .error.code: exit %d %q", code, out)
	}
	calls := e.srv.CreateCalls()
	for _, expr := range []string{".runtimes[", "nosuchfunction(1)"} {
		code, out, errs = e.run("create", "--spec", "CPU", "--jq", expr)
		if code != kit.ExitUsage || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "--jq") {
			t.Errorf("--jq %q: exit %d, stderr %q; want one line and exit 2", expr, code, errs)
		}
		// With --jq stdout holds only the filter's results: none here.
		if out != "" {
			t.Errorf("--jq %q: stdout %q, want nothing", expr, out)
		}
	}
	if e.srv.CreateCalls() != calls {
		t.Error("a bad --jq expression still created a runtime")
	}
	// An expression that fails on the document is exit 2 as well.
	code, _, errs = e.run("status", "--jq", ".runtimes | error")
	if code != kit.ExitUsage || strings.Count(errs, "\n") != 1 {
		t.Errorf("--jq error at run time: exit %d %q", code, errs)
	}
}

// ctrl+c interrupts the kernel as jupyter console does: the code raises
// KeyboardInterrupt, exec exits 130 and the session stays open with its
// state; --session reuses it and --rm closes it afterwards.
func TestExecCtrlCInterruptsKernel(t *testing.T) {
	e := demoVerbEnv(t)
	const name = "runtimes/rt-t4demo7k2p/sessions/colabdash-intr"
	if code, _, errs := e.run("session", "open", "rt-t4", "--id", "colabdash-intr"); code != 0 {
		t.Fatalf("session open: %d %q", code, errs)
	}
	tm := term{sigs: make(chan os.Signal, 1)}
	go func() {
		for deadline := time.Now().Add(time.Minute); e.srv.RunningCode(name) == 0 && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		tm.sigs <- syscall.SIGINT
	}()
	start := time.Now()
	code, out, errs := e.runTerm(tm, "exec", "rt-t4", "--session", "colabdash-intr", "-c", "import time; time.sleep(30); print(1)", "--json")
	var rep struct {
		kit.Envelope
		ExecutionError struct{ Name string }
	}
	mustJSON(t, out, &rep)
	if code != kit.ExitInterrupted || rep.ExecutionError.Name != "KeyboardInterrupt" || rep.Error == nil || rep.Error.Code != "interrupted" ||
		time.Since(start) > 20*time.Second || !strings.Contains(errs, "interrupting the kernel") {
		t.Fatalf("exec interrupted: exit %d after %v, %s, stderr %q", code, time.Since(start), out, errs)
	}
	if k := e.srv.KernelID(name); k == "" || e.srv.Interrupts(k) != 1 {
		t.Fatalf("kernel %q of the session interrupted %d times, want once and the session open", k, e.srv.Interrupts(k))
	}
	// ctrl+c with --rm (hidden, still accepted): the session is closed
	// afterwards, and the last line says so rather than that it keeps its state.
	go func() {
		for deadline := time.Now().Add(time.Minute); e.srv.RunningCode(name) == 0 && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		tm.sigs <- syscall.SIGINT
	}()
	code, _, errs = e.runTerm(tm, "exec", "rt-t4", "--session", "colabdash-intr", "--rm", "-c", "import time; time.sleep(30)")
	if code != kit.ExitInterrupted || strings.Contains(errs, "keeps its state") || !strings.Contains(errs, "closed session rt-t4demo7k2p/colabdash-intr") ||
		e.srv.KernelID(name) != "" {
		t.Fatalf("exec --rm interrupted: exit %d, stderr %q, session open afterwards: %v", code, errs, e.srv.KernelID(name) != "")
	}
	if code, _, errs := e.run("session", "open", "rt-t4", "--id", "colabdash-intr"); code != 0 {
		t.Fatalf("session open again: %d %q", code, errs)
	}
	// --session reuses it; --rm closes it afterwards.
	code, out, errs = e.run("exec", "rt-t4", "--session", "colabdash-intr", "--rm", "-c", "print(6*7)")
	if code != 0 || out != "42\n" || e.srv.KernelID(name) != "" {
		t.Fatalf("--session --rm: exit %d %q %q, session open afterwards: %v", code, out, errs, e.srv.KernelID(name) != "")
	}
	code, _, errs = e.run("exec", "rt-t4", "--session", "colabdash-intr", "-c", "1")
	if code != kit.ExitNotFound {
		t.Errorf("--session of a closed session: exit %d %q", code, errs)
	}
	// --rm never closes a notebook's session.
	code, _, errs = e.run("exec", "rt-t4", "--session", "notebook-ab12cd34", "--rm", "-c", "1")
	if code != kit.ExitUsage || !strings.Contains(errs, "--rm closes only a session colabdash opened") {
		t.Errorf("--rm on a notebook session: exit %d %q", code, errs)
	}
	// With --keep the new session stays open, and stderr says so and how
	// to close it.
	before := len(e.srv.Sessions("runtimes/rt-t4demo7k2p"))
	code, _, errs = e.run("exec", "rt-t4", "--keep", "-c", "1")
	if code != 0 || !strings.Contains(errs, "it stays open after exec") || !strings.Contains(errs, "close it with: colabdash session close rt-t4demo7k2p/colabdash-") ||
		len(e.srv.Sessions("runtimes/rt-t4demo7k2p")) != before+1 {
		t.Errorf("exec --keep: exit %d %q", code, errs)
	}
}

// A --jq filter that never ends is stopped by the signal that ends the
// run (here the run's context, as ctrl+c ends it): exit 130 at once
// (the failure envelope printed plain, as for any filter that fails on
// it); and one that outruns its time limit is exit 2 saying so.
func TestJqFilterEndsWithTheRun(t *testing.T) {
	e := emptyVerbEnv(t)
	type result struct {
		code      int
		out, errs string
	}
	run := func(tm term, args ...string) result {
		t.Helper()
		done := make(chan result, 1)
		go func() {
			code, out, errs := e.runTerm(tm, args...)
			done <- result{code, out, errs}
		}()
		select {
		case r := <-done:
			return r
		case <-time.After(time.Minute):
			t.Fatalf("%v: still running after a minute", args)
		}
		return result{}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r := run(term{ctx: ctx}, "specs", "--jq", "last(range(1e12))"); r.code != kit.ExitInterrupted || !strings.Contains(r.out, `"interrupted"`) {
		t.Errorf("specs --jq on an interrupted run: exit %d, stdout %q, stderr %q; want 130", r.code, r.out, r.errs)
	}
	old := kit.JqTimeout
	kit.JqTimeout = 300 * time.Millisecond
	t.Cleanup(func() { kit.JqTimeout = old })
	if r := run(term{}, "specs", "--jq", "last(range(1e12))"); r.code != kit.ExitUsage || !strings.Contains(r.errs, "the limit on a filter's time") {
		t.Errorf("specs --jq that never ends: exit %d, stderr %q; want 2 naming the time limit", r.code, r.errs)
	}
}
