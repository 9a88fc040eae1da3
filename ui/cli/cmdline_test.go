package cli

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/cli/kit/pastetest"
	"github.com/colabdash/colabdash/ui/termtext/termtexttest"
)

// pastedLine finds the command line after marker in a command's stderr (it
// ends the line) and returns its words as the shell splits them.
func pastedLine(t *testing.T, stderr, marker string) []string {
	t.Helper()
	for _, l := range strings.Split(stderr, "\n") {
		if _, line, ok := strings.Cut(l, marker); ok {
			return pastetest.ShellWords(t, line)
		}
	}
	t.Fatalf("no %q in stderr %q", marker, stderr)
	return nil
}

// The printed line repeats the global flags that chose the server and the
// account, so it reaches the same one.
func TestCommandLineRepeatsGlobalFlags(t *testing.T) {
	isolate(t)
	g := loadForTest(t, "status", "--endpoint", "http://127.0.0.1:9/mcp", "--access-token-file", "/tmp/my tokens/t.txt", "--quota-project", "proj-1")
	line, ok := g.CommandLine("session", "close", "rt-a/colabdash-1")
	want := []string{"session", "close", "rt-a/colabdash-1", "--endpoint", "http://127.0.0.1:9/mcp", "--access-token-file", "/tmp/my tokens/t.txt", "--quota-project", "proj-1"}
	if got := pastetest.ShellWords(t, line); !ok || !slices.Equal(got, want) {
		t.Fatalf("line %q: words %q, want %q", line, got, want)
	}
	g = loadForTest(t, "status", "--demo")
	if got := pastetest.ShellWords(t, g.CommandOr("", "status")); !slices.Equal(got, []string{"status", "--demo"}) {
		t.Fatalf("--demo: %q", got)
	}
	g = loadForTest(t, "status", "--profile", "demo", "--credentials", "/tmp/c.json")
	if got := pastetest.ShellWords(t, g.CommandOr("", "status")); !slices.Equal(got, []string{"status", "--profile", "demo", "--credentials", "/tmp/c.json"}) {
		t.Fatalf("--profile: %q", got)
	}
	g = loadForTest(t, "status")
	if line := g.CommandOr("", "status"); line != "colabdash status" {
		t.Fatalf("no flags: %q", line)
	}
}

// exec's detach line, pasted, reattaches to the same run on the same
// server, and create's --request-id line returns the same runtime.
func TestPrintedCommandsWorkWhenPasted(t *testing.T) {
	e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedDemo, RuntimeLimit: -1})
	hold := make(chan struct{})
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: "execute_code", Hold: hold})
	code := "print('it' + \"'s\", `id`, $HOME, 6*7)" // the emulator echoes code it does not run
	exit, _, errs := e.run("exec", "rt-t4", "--keep", "-c", code, "--timeout", "200ms")
	close(hold)
	if exit != kit.ExitTimeout {
		t.Fatalf("exit %d %q", exit, errs)
	}
	argv := pastedLine(t, errs, "to reattach (or run it if it never started): ")
	if argv[0] != "exec" || !slices.Contains(argv, code) || !slices.Contains(argv, "--endpoint") || !slices.Contains(argv, "--access-token-file") {
		t.Fatalf("reattach line %q", argv)
	}
	e.srv.ClearFaults()
	out, errs2 := e.runPasted(argv)
	if out != colabfake.EmulatedPrefix+"would run: "+code+"\n" {
		t.Fatalf("the pasted reattach line printed %q %q", out, errs2)
	}
	closeLine := pastedLine(t, errs, "close it with: ")
	if out, errs := e.runPasted(append(closeLine, "--yes")); !strings.HasPrefix(out, "closed ") {
		t.Fatalf("the pasted close line: %q %q", out, errs)
	}

	// Code of several lines is given again on stdin: the line ends in "-",
	// with the global flags after it.
	hold = make(chan struct{})
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: "execute_code", Hold: hold})
	multi := "x = 1\nprint(x)"
	_, _, errs = e.run("exec", "rt-t4", "--keep", "-c", multi, "--timeout", "200ms")
	close(hold)
	argv = pastedLine(t, errs, "give the same code on stdin to: ")
	if !slices.Contains(argv, "-") || slices.Contains(argv, multi) {
		t.Fatalf("stdin reattach line %q", argv)
	}
	e.srv.ClearFaults()
	flags := e.flags
	e.flags = nil
	_, out, errs2 = e.runTerm(term{in: multi}, argv...)
	e.flags = flags
	if !strings.Contains(out, "would run: ") {
		t.Fatalf("the pasted stdin reattach line printed %q %q", out, errs2)
	}

	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultReset, Tool: "create_runtime", Unprocessed: true})
	before := e.srv.RuntimesCreated()
	_, _, errs = e.run("create", "--spec", "CPU/HIGHMEM", "--json")
	argv = pastedLine(t, errs, "outcome unknown: the connection was lost after create_runtime was sent, so a runtime may have been created (the same requestId never creates a second); to get it, run: ")
	if out, errs := e.runPasted(argv); !strings.Contains(out, `"requestId"`) || e.srv.RuntimesCreated() != before+1 {
		t.Fatalf("the pasted create line: %q %q; %d created", out, errs, e.srv.RuntimesCreated()-before)
	}
}

// runPasted runs argv as a pasted line gives it: the words only, none of
// the test's own flags added.
func (e *verbEnv) runPasted(argv []string) (string, string) {
	e.t.Helper()
	flags := e.flags
	e.flags = nil
	defer func() { e.flags = flags }()
	_, out, errs := e.run(argv...)
	return out, errs
}

// A server's id that is no RFC 1034 label is never printed as a command:
// the lines say the id is unusual instead.
func TestHostileIDsAreNotPrintedAsCommands(t *testing.T) {
	skipWaits(t)
	e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedHostile})
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultReset, Tool: "execute_code", Times: -1})
	// rt-x… is the hostile seed's 5,000-character runtime id.
	_, _, errs := e.run("exec", "rt-x", "--keep", "-c", "print(1)")
	if strings.Contains(errs, "colabdash exec") || strings.Contains(errs, "colabdash session close rt-") ||
		!regexp.MustCompile(`the runtime id rt-x+… is unusual`).MatchString(errs) || !strings.Contains(errs, "executionId ") {
		t.Fatalf("stderr %q", errs)
	}
	termtexttest.NoControls(t, "stderr", errs)
	_, _, errs = e.run("session", "close", "rt-x/nope", "--yes")
	if strings.Contains(errs, "colabdash sessions rt-") || !strings.Contains(errs, "is unusual") {
		t.Fatalf("session close: %q", errs)
	}

	// A notebook session whose id would run a command in a shell.
	d := demoVerbEnv(t)
	if _, err := d.srv.AddNotebookSession("runtimes/rt-t4demo7k2p", "nb;touch${IFS}pwned"); err != nil {
		t.Fatal(err)
	}
	d.srv.Inject(colabfake.Fault{Kind: colabfake.FaultReset, Tool: "execute_code", Times: -1})
	_, _, errs = d.run("exec", "rt-t4/nb;touch${IFS}pwned", "-c", "print(1)")
	if strings.Contains(errs, "colabdash exec") || !strings.Contains(errs, "the session id nb;touch${IFS}pwned is unusual") {
		t.Fatalf("hostile session: %q", errs)
	}
}

// status with no runtimes names the dashboard on the same server.
func TestStatusNamesTheDashboardOnTheSameServer(t *testing.T) {
	e := emptyVerbEnv(t)
	_, out, errs := e.run("status")
	argv := pastedLine(t, out, "No runtimes. Create one with the dashboard: ")
	if !slices.Equal(argv, e.flags) {
		t.Fatalf("dashboard line %q (stderr %q), want the flags %q", argv, errs, e.flags)
	}
}
