package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/termtext/termtexttest"
)

var openedSession = regexp.MustCompile(`opened session (rt-[a-z0-9]+/colabdash-[0-9a-f]{8})`)

func TestExecVerb(t *testing.T) {
	e := demoVerbEnv(t)
	// A runtime target with --keep: a new session, named on stderr; stdout is the
	// code's output, exactly.
	code, out, errs := e.run("exec", "rt-t4", "--keep", "-c", "print(6*7)")
	m := openedSession.FindStringSubmatch(errs)
	if code != 0 || out != "42\n" || m == nil {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// The session is reused by name: its execution count goes on.
	code, out, _ = e.run("exec", m[1], "-c", "6*7", "--json")
	var rep map[string]any
	mustJSON(t, out, &rep)
	for _, k := range []string{"session", "executionId", "executionCount", "stdout", "stderr", "result", "executionError", "outputTruncated", "richOutputs"} {
		if _, ok := rep[k]; !ok {
			t.Errorf("exec --json lacks %q: %s", k, out)
		}
	}
	if code != 0 || rep["result"] != "42" || rep["executionCount"] != 2.0 || rep["session"] != "runtimes/rt-t4demo7k2p/sessions/"+strings.Split(m[1], "/")[1] ||
		rep["executionError"] != nil {
		t.Fatalf("session target: exit %d %s", code, out)
	}
	// An exception: traceback on stderr without its colour codes, exit 1.
	code, out, errs = e.run("exec", m[1], "-c", `raise ValueError("boom")`)
	if code != kit.ExitFailure || out != "" || !strings.Contains(errs, "Traceback (most recent call last)") || !strings.Contains(errs, "ValueError: boom") {
		t.Fatalf("exception: exit %d %q %q", code, out, errs)
	}
	termtexttest.NoControls(t, "traceback", errs)
	code, out, _ = e.run("exec", m[1], "-c", `raise KeyError`, "--json")
	mustJSON(t, out, &rep)
	if code != kit.ExitFailure || rep["ok"] != false || rep["error"].(map[string]any)["code"] != "failed" || rep["executionError"].(map[string]any)["name"] != "KeyError" {
		t.Fatalf("exception --json: exit %d %s", code, out)
	}
	// Code from a file and from stdin.
	file := writeFile(t, filepath.Join(e.home, "job.py"), "print('from a file')\n")
	if code, out, errs := e.run("exec", m[1], "-f", file); code != 0 || out != "from a file\n" {
		t.Fatalf("-f: exit %d %q %q", code, out, errs)
	}
	if code, out, errs := e.runTerm(term{in: "print(\"piped\")"}, "exec", m[1], "-"); code != 0 || out != "piped\n" {
		t.Fatalf("-: exit %d %q %q", code, out, errs)
	}
	// Usage errors, before any execute_code.
	calls := e.srv.CallCount("execute_code")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"exec", "rt-t4"}, "give the code one way"},
		{[]string{"exec", "rt-t4", "-c", "1", "-f", file}, "give the code one way"},
		{[]string{"exec", "rt-t4", "-c", "  "}, "no code to run"},
		{[]string{"exec", "rt-t4", "x"}, "exec takes TARGET"},
		{[]string{"exec", "rt-t4", "-f", filepath.Join(e.home, "nope.py")}, "nope.py: does not exist"},
		{[]string{"exec", "rt-t4", "-f", e.home}, "is a directory, not a regular file"},
		{[]string{"exec", "rt-t4", "-c", "1", "--execution-id", "5f0c8a1e-3b2d-4c5e-9f6a-7b8c9d0e1f2a"}, "--execution-id needs the session"},
		{[]string{"exec", "rt-t4/colabdash-00000000", "-c", "1"}, "no session rt-t4demo7k2p/colabdash-00000000 open"},
	} {
		code, out, errs := e.run(tc.args...)
		want := kit.ExitUsage
		if strings.HasPrefix(tc.want, "no session") || strings.HasPrefix(tc.want, "no runtime") {
			want = kit.ExitNotFound // no such session or runtime
		}
		if code != want || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d %q %q, want %d and %q", tc.args, code, out, errs, want, tc.want)
		}
	}
	if n := e.srv.CallCount("execute_code"); n != calls {
		t.Fatalf("%d execute_code calls for bad input", n-calls)
	}
	// A runtime id that names no runtime: execute_code is refused
	// (NOT_FOUND, nothing ran), and the listing that reads it as a prefix
	// finds none either.
	if code, out, errs := e.run("exec", "rt-nope", "-c", "1"); code != kit.ExitNotFound || out != "" || !strings.Contains(errs, `no runtime "rt-nope"`) {
		t.Errorf("exec rt-nope: exit %d %q %q, want %d and no runtime", code, out, errs, kit.ExitNotFound)
	}
}

// The code's output is the user's: exact bytes into a pipe, sanitized on
// a terminal (execute_code output is untrusted for a terminal).
func TestExecOutputPipeExactTerminalSanitized(t *testing.T) {
	e := demoVerbEnv(t)
	stdout := "row1\r\nbar 50%\rbar 100%\n\x1b]52;c;cHduZWQ=\x07\x1b[2Jbinary\x00\xff\n"
	stderr := "warn\x1b]0;title\x07\n"
	res, _ := json.Marshal(map[string]any{"session": "runtimes/rt-t4demo7k2p/sessions/notebook-ab12cd34", "executionId": "x",
		"stdout": stdout, "stderr": stderr})
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultOutput, Tool: "execute_code", Output: res, Times: 2})
	code, out, errs := e.run("exec", "rt-t4/notebook-ab12cd34", "-c", "print(1)")
	if code != 0 || out != strings.ToValidUTF8(stdout, "\uFFFD") || !strings.HasSuffix(errs, stderr) {
		t.Fatalf("pipe: exit %d\nstdout %q\nstderr %q", code, out, errs)
	}
	code, out, errs = e.runTerm(term{outTTY: true, errTTY: true}, "exec", "rt-t4/notebook-ab12cd34", "-c", "print(1)")
	termtexttest.NoControls(t, "terminal stdout", out)
	termtexttest.NoControls(t, "terminal stderr", errs)
	if code != 0 || !strings.Contains(out, "row1\nbar 50%\nbar 100%\n") || !strings.Contains(out, "binary") || !strings.Contains(errs, "warn") {
		t.Fatalf("terminal: exit %d %q %q", code, out, errs)
	}
}

// Cut off at the server's deadline past the client's own re-sends, and
// dropped connections: exec repeats the identical call and the code runs
// once; a connection that stays down ends with how to reattach.
func TestExecReattaches(t *testing.T) {
	skipWaits(t)
	e := demoVerbEnv(t)
	_, out, _ := e.run("session", "open", "rt-t4", "--id", "colabdash-reattach")
	sess := strings.TrimSpace(out)

	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: "execute_code", Times: kit.RetryAttempts + 1})
	code, out, errs := e.run("exec", sess, "-c", "print(6*7)", "--json")
	var rep struct {
		Stdout         string
		ExecutionCount int
	}
	mustJSON(t, out, &rep)
	if code != 0 || rep.Stdout != "42\n" || rep.ExecutionCount != 1 || e.srv.CallCount("execute_code") != kit.RetryAttempts+2 {
		t.Fatalf("deadline: exit %d %s %q, %d calls", code, out, errs, e.srv.CallCount("execute_code"))
	}

	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultReset, Tool: "execute_code", Times: kit.RetryAttempts + 1})
	code, out, errs = e.run("exec", sess, "-c", "print(1)")
	if code != 0 || out != "1\n" {
		t.Fatalf("reset: exit %d %q %q", code, out, errs)
	}

	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultReset, Tool: "execute_code", Times: -1})
	code, out, errs = e.run("exec", sess, "-c", "print(2)")
	if code != kit.ExitAPI || out != "" || !strings.Contains(errs, "may still be running") ||
		!regexp.MustCompile(`colabdash exec rt-t4demo7k2p/colabdash-reattach --execution-id [0-9a-f-]{36} -c 'print\(2\)'`).MatchString(errs) {
		t.Fatalf("down: exit %d %q %q", code, out, errs)
	}
	e.srv.ClearFaults()
}

// interruptAtCall sends SIGINT twice on sigs once the emulator has
// counted more than calls execute_code calls: the first interrupts the
// kernel, the second detaches or asks. The returned channel says (once) whether
// that call came within a minute: the signal is sent either way, so the
// command still ends, and the test reports a call that never came rather
// than whatever an early interrupt leads to.
func interruptAtCall(e *verbEnv, calls int, sigs chan<- os.Signal) <-chan bool {
	reached := make(chan bool, 1)
	go func() {
		for deadline := time.Now().Add(time.Minute); e.srv.CallCount("execute_code") == calls && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		reached <- e.srv.CallCount("execute_code") != calls
		sigs <- syscall.SIGINT
		sigs <- syscall.SIGINT
	}()
	return reached
}

// A second ctrl+c (the first interrupts the kernel, which this held call
// ignores): without a terminal it detaches, printing how to reattach and
// how to close the session, and the printed command picks the run up; on
// a terminal, s stops the code by closing its session.
func TestExecInterrupt(t *testing.T) {
	e := demoVerbEnv(t)
	// The emulator holds the call until the command has ended, however
	// slowly a busy machine delivers the signal.
	interrupt := func(tm term, args ...string) (int, string, string) {
		t.Helper()
		hold := make(chan struct{})
		defer close(hold)
		e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: "execute_code", Hold: hold})
		calls := e.srv.CallCount("execute_code")
		tm.sigs = make(chan os.Signal, 2)
		reached := interruptAtCall(e, calls, tm.sigs)
		code, out, errs := e.runTerm(tm, args...)
		if !<-reached {
			t.Fatalf("%v: execute_code never reached the emulator within a minute (exit %d %q %q)", args, code, out, errs)
		}
		return code, out, errs
	}
	code, out, errs := interrupt(term{}, "exec", "rt-t4", "--keep", "-c", "print(6*7)")
	m := regexp.MustCompile(`colabdash exec (\S+) --execution-id (\S+) -c 'print\(6\*7\)'`).FindStringSubmatch(errs)
	if code != kit.ExitInterrupted || out != "" || !strings.Contains(errs, "detached") || m == nil ||
		!strings.Contains(errs, "interrupting the kernel") || !strings.Contains(errs, "the session stays open; close it with: colabdash session close "+m[1]) {
		t.Fatalf("detach: exit %d %q %q", code, out, errs)
	}
	e.srv.ClearFaults()
	code, out, errs = e.run("exec", m[1], "--execution-id", m[2], "-c", "print(6*7)")
	if code != 0 || out != "42\n" {
		t.Fatalf("reattach: exit %d %q %q", code, out, errs)
	}

	_, out, _ = e.run("session", "open", "rt-t4")
	sess := strings.TrimSpace(out)
	tty := term{in: "s\n", inTTY: true, errTTY: true}
	code, out, errs = interrupt(tty, "exec", sess, "-c", "print(1)")
	if code != kit.ExitInterrupted || out != "" || !strings.Contains(errs, "Stop the code (s: closes session "+sess) || !strings.Contains(errs, "stopped: closed session") {
		t.Fatalf("stop: exit %d %q %q", code, out, errs)
	}
	// Where no single key can be read (stdin is no real terminal here),
	// the question says the answer needs Enter.
	if !strings.Contains(errs, "Type s or d, then Enter") {
		t.Errorf("the line question does not say Enter: %q", errs)
	}
	for _, s := range e.srv.Sessions("rt-t4demo7k2p") {
		if strings.HasSuffix(s.Name, strings.Split(sess, "/")[1]) {
			t.Fatalf("session %s still open after stop", sess)
		}
	}
	e.srv.ClearFaults()
}

// Field trial: detaching (ctrl+c without a terminal, d, a second ctrl+c)
// took 5 s every time: exec waited for the MCP session's DELETE, which the
// server held while the abandoned call was still in flight, until go-sdk
// gave up on it. Detaching leaves the run going server-side, so there is
// nothing to wait for: here the server holds both the call and the
// DELETE, and exec must return while the DELETE is still pending (the
// client has not given up on it).
func TestExecDetachesAtOnce(t *testing.T) {
	e := demoVerbEnv(t)
	hold := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(hold) }) }
	type del struct{ gaveUp bool }
	deletes := make(chan del, 8)
	arrived := make(chan struct{}, 8)
	inner := e.srv.Handler()
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			arrived <- struct{}{}
			select {
			case <-hold:
			case <-r.Context().Done():
			}
			if r.Context().Err() != nil {
				deletes <- del{gaveUp: true}
				return
			}
			deletes <- del{}
		}
		inner.ServeHTTP(w, r)
	}))
	defer front.Close()
	defer release() // before front.Close, which waits for held requests
	e.flags[1] = front.URL + "/mcp"
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: "execute_code", Hold: hold})
	defer e.srv.ClearFaults()

	tm := term{sigs: make(chan os.Signal, 2)}
	reached := interruptAtCall(e, 0, tm.sigs)
	code, out, errs := e.runTerm(tm, "exec", "rt-t4", "--keep", "-c", "import time; time.sleep(60); print(1)")
	if !<-reached {
		t.Fatalf("execute_code never reached the emulator within a minute (exit %d %q %q)", code, out, errs)
	}
	if code != kit.ExitInterrupted || out != "" || !strings.Contains(errs, "detached; ") {
		t.Fatalf("exit %d %q %q", code, out, errs)
	}
	// The session's DELETE (sent in the background now) reaches the server
	// and is still waited for by the client when the server answers it.
	select {
	case <-arrived:
	case <-time.After(time.Minute):
		t.Fatal("the MCP session was never closed")
	}
	release()
	if d := <-deletes; d.gaveUp {
		t.Fatalf("exec returned only after the client gave up on closing the MCP session: %q", errs)
	}
}

// --timeout in a kept session detaches like ctrl+c without a terminal, with exit code 124.
func TestExecTimeout(t *testing.T) {
	e := demoVerbEnv(t)
	e.holdCalls(colabfake.FaultDeadline, "execute_code", 0)
	code, out, errs := e.run("exec", "rt-t4", "--keep", "-c", "print(1)", "--timeout", "300ms", "--json")
	var doc kit.Envelope
	if code != kit.ExitTimeout || json.Unmarshal([]byte(out), &doc) != nil || doc.OK || doc.Error == nil || doc.Error.Code != "timeout" ||
		!strings.Contains(errs, "gave up waiting after --timeout 300ms") || !strings.Contains(errs, "--execution-id") {
		t.Fatalf("exit %d %q %q", code, out, errs)
	}
}

// Every id printed in a hint passes the paste rule, not only those in a
// command line: a session id create_session answers with that would run
// a command in a shell is not offered as "reuse it with --session …";
// the line says the id is unusual instead.
func TestExecDoesNotOfferAnUnusualSessionIDForReuse(t *testing.T) {
	e := demoVerbEnv(t)
	bad := "nb;touch${IFS}pwned"
	out, _ := json.Marshal(map[string]any{"name": "runtimes/rt-t4demo7k2p/sessions/" + bad})
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultOutput, Tool: api.ToolCreateSession, Output: out})
	_, _, errs := e.run("exec", "rt-t4", "--keep", "-c", "print(1)")
	if !strings.Contains(errs, "opened session") {
		t.Fatalf("no session line: %q", errs)
	}
	if strings.Contains(errs, "--session "+bad) || strings.Contains(errs, "--session nb") || !strings.Contains(errs, "the session id "+bad+" is unusual") {
		t.Errorf("stderr %q", errs)
	}
}
