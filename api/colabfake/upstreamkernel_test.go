package colabfake

// execute_code through the emulator's MCP server on a real kernel of a
// real jupyter-server (Options.JupyterUpstream).

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake/realjupyter"
	"github.com/colabdash/colabdash/api/jupyter/transfer"
)

// realRuntime is the runtime every test here runs its code on.
const realRuntime = "runtimes/rt-real"

// realEmulator starts an emulator (opts) in front of up with one runtime
// and connects to it.
func realEmulator(t *testing.T, up *realjupyter.Server, opts Options) (*Server, *mcp.ClientSession) {
	t.Helper()
	opts.JupyterUpstream = up.URL
	s, cs, _ := startConnect(t, opts)
	mustAdd(t, s, api.Runtime{Name: realRuntime, ConnectionInfo: &api.ConnectionInfo{}})
	return s, cs
}

// slowCall is callErr with room for a kernel's cold start on a busy
// machine (call's 10 s are for emulated answers).
func slowCall(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

// run executes code in session sess and returns its result.
func run(t *testing.T, cs *mcp.ClientSession, sess, code string) api.ExecuteCodeResult {
	t.Helper()
	var r api.ExecuteCodeResult
	decode(t, slowCall(t, cs, "execute_code", map[string]any{"session": sess, "code": code}), &r)
	return r
}

// ansiCodes matches IPython's colours in a traceback.
var ansiCodes = regexp.MustCompile("\x1b\\[[0-9;]*m")

// jupyterSessions lists the upstream's Jupyter sessions by path.
func jupyterSessions(t *testing.T, up *realjupyter.Server) map[string]string {
	t.Helper()
	resp, err := http.Get(up.URL + "api/sessions")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list []struct {
		Path   string `json:"path"`
		Kernel struct {
			ID string `json:"id"`
		} `json:"kernel"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, s := range list {
		out[s.Path] = s.Kernel.ID
	}
	return out
}

// running reports whether process pid exists and is not a zombie.
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] != 'Z'
}

// What execute_code answers on a real kernel: stdout and stderr apart,
// the last expression's value, an exception with its traceback, state
// kept from one call to the next in a session, the kernel's working
// directory ROOT/content (Colab's /content), a runtime target's new
// session, and colabdash's own programs (the trash purge and the link
// check) run for real.
func TestExecuteCodeOnARealKernel(t *testing.T) {
	up := realjupyter.Require(t, realjupyter.Options{Kernels: true})
	_, cs := realEmulator(t, up, Options{})
	sess := realRuntime + "/sessions/real-a"
	decode(t, slowCall(t, cs, "create_session", map[string]any{"parent": realRuntime, "sessionId": "real-a"}), &api.Session{})
	if k := jupyterSessions(t, up)["content/real-a"]; k == "" {
		t.Fatalf("create_session made no Jupyter session at content/real-a: %v", jupyterSessions(t, up))
	}

	r := run(t, cs, sess, "import sys\nprint('to stdout')\nprint('to stderr', file=sys.stderr)\nx = 41\nx + 1")
	if r.Stdout != "to stdout\n" || r.Stderr != "to stderr\n" || r.Result != "42" || r.ExecutionError != nil {
		t.Fatalf("first call: %+v", r)
	}
	if r.Session != sess || r.ExecutionCount != 1 {
		t.Errorf("session %q In[%d], want %s and 1", r.Session, r.ExecutionCount, sess)
	}
	r = run(t, cs, sess, "print(x)\n{}['missing']")
	if r.Stdout != "41\n" {
		t.Errorf("state not kept across calls: stdout %q", r.Stdout)
	}
	if e := r.ExecutionError; e == nil || e.Name != "KeyError" || e.Value != "'missing'" {
		t.Fatalf("exception: %+v", e)
	}
	if tb := ansiCodes.ReplaceAllString(strings.Join(r.ExecutionError.Traceback, "\n"), ""); !strings.Contains(tb, "----> 2 {}['missing']") {
		t.Errorf("traceback lacks the failing line: %q", tb)
	}
	r = run(t, cs, sess, "import os\nos.getcwd()")
	if want := fmt.Sprintf("%q", filepath.Join(up.Root, "content")); strings.ReplaceAll(r.Result, "'", "\"") != want {
		t.Errorf("working directory %s, want %s", r.Result, want)
	}

	var rt api.ExecuteCodeResult
	decode(t, slowCall(t, cs, "execute_code", map[string]any{"runtime": realRuntime, "code": "print('new session')"}), &rt)
	if rt.Stdout != "new session\n" || !strings.HasPrefix(rt.Session, realRuntime+"/sessions/") {
		t.Errorf("runtime target: %+v", rt)
	}
	if k := jupyterSessions(t, up)["content/"+api.LastSegment(rt.Session)]; k == "" {
		t.Errorf("the runtime target's session %s has no Jupyter session", rt.Session)
	}

	// The trash purge, for real: a file in the server's trash is freed.
	junk := filepath.Join(up.Home, ".local", "share", "Trash", "files", "junk.bin")
	if err := os.MkdirAll(filepath.Dir(junk), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(junk, make([]byte, 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, cs, sess, transfer.PurgeCode)
	if n, ok := transfer.ParsePurged(r.Stdout); !ok || n < 4096 {
		t.Errorf("purge printed %q (stderr %q), want at least 4096 bytes freed", r.Stdout, r.Stderr)
	}
	if _, err := os.Stat(junk); !os.IsNotExist(err) {
		t.Errorf("the trashed file is still there: %v", err)
	}
	// The link check, for real, on a tree below the kernel's /content.
	bed := filepath.Join(up.Root, "content", "linkbed")
	if err := os.MkdirAll(filepath.Join(bed, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("..", filepath.Join(bed, "d", "up")); err != nil {
		t.Fatal(err)
	}
	code, err := transfer.LinkCode("linkbed")
	if err != nil {
		t.Fatal(err)
	}
	links, err := transfer.ParseLinks(run(t, cs, sess, code).Stdout)
	if err != nil || len(links.Paths) != 1 || links.Paths[0] != "d/up" {
		t.Errorf("link check: %+v, %v; want d/up", links, err)
	}
}

// delete_session ends a session: the code it runs is aborted (ABORTED,
// as the emulated kernel's), its real kernel is shut down and its
// Jupyter session gone by the reply, and a process the code started in
// a session of its own (start_new_session) survives.
func TestDeleteSessionShutsItsRealKernelDown(t *testing.T) {
	up := realjupyter.Require(t, realjupyter.Options{Kernels: true})
	_, cs := realEmulator(t, up, Options{})
	sess := realRuntime + "/sessions/real-del"
	r := run(t, cs, sess, "import os, subprocess\n"+
		"p = subprocess.Popen(['sleep', '600'], start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"+
		"print(os.getpid(), p.pid)")
	var kpid, child int
	if _, err := fmt.Sscan(r.Stdout, &kpid, &child); err != nil || kpid <= 1 || child <= 1 {
		t.Fatalf("pids: %q (%+v)", r.Stdout, r)
	}
	t.Cleanup(func() { _ = syscall.Kill(child, syscall.SIGKILL) })

	long := make(chan *mcp.CallToolResult, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute_code", Arguments: map[string]any{
			"session": sess, "code": "import time\ntime.sleep(600)", "executionId": uuid.NewString()}})
		long <- res
	}()
	// The long run is under way once the kernel says busy.
	for deadline := time.Now().Add(90 * time.Second); !kernelBusy(t, up, jupyterSessions(t, up)["content/real-del"]); {
		if time.Now().After(deadline) {
			t.Fatal("the long run never made the kernel busy")
		}
		time.Sleep(20 * time.Millisecond)
	}
	decode(t, slowCall(t, cs, "delete_session", map[string]any{"name": sess}), &struct{}{})
	if k := jupyterSessions(t, up)["content/real-del"]; k != "" {
		t.Errorf("the Jupyter session outlived delete_session (kernel %s)", k)
	}
	select {
	case res := <-long:
		if res == nil {
			t.Fatal("the long call failed at the transport")
		}
		if e := toolError(t, res); e.Code != api.Aborted || !strings.Contains(e.Message, "deleted") {
			t.Fatalf("the run of a deleted session: %v, want ABORTED", e)
		}
	case <-time.After(90 * time.Second):
		t.Fatal("delete_session did not end the run")
	}
	for deadline := time.Now().Add(60 * time.Second); running(kpid); {
		if time.Now().After(deadline) {
			t.Fatalf("the kernel (pid %d) still runs after delete_session", kpid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !running(child) {
		t.Errorf("the process started with start_new_session (pid %d) did not survive its kernel", child)
	}
}

// kernelBusy reports whether the upstream's kernel id is busy.
func kernelBusy(t *testing.T, up *realjupyter.Server, id string) bool {
	t.Helper()
	if id == "" {
		return false
	}
	resp, err := http.Get(up.URL + "api/kernels/" + id)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var k struct {
		State string `json:"execution_state"`
	}
	return json.NewDecoder(resp.Body).Decode(&k) == nil && k.State == "busy"
}

// Colab's cut-off on a real kernel: a run longer than
// Options.ExecuteCutoff answers DEADLINE_EXCEEDED and goes on; the
// identical call (same session and executionId) reattaches until it gets
// the one run's whole output.
func TestExecuteCodeCutoffReattachesOnARealKernel(t *testing.T) {
	up := realjupyter.Require(t, realjupyter.Options{Kernels: true})
	_, cs := realEmulator(t, up, Options{ExecuteCutoff: 300 * time.Millisecond})
	sess := realRuntime + "/sessions/real-cut"
	args := map[string]any{"session": sess, "executionId": uuid.NewString(),
		"code": "import time\nprint('start', flush=True)\ntime.sleep(1.5)\nprint('done')\nimport os\nos.getpid()"}
	e := toolError(t, slowCall(t, cs, "execute_code", args))
	if e.Code != api.DeadlineExceeded || !strings.Contains(e.Message, "reattach") {
		t.Fatalf("a run longer than the cut-off: %v", e)
	}
	var r api.ExecuteCodeResult
	for cuts, deadline := 1, time.Now().Add(2*time.Minute); ; cuts++ {
		res := slowCall(t, cs, "execute_code", args)
		if !res.IsError {
			decode(t, res, &r)
			break
		}
		if e := toolError(t, res); e.Code != api.DeadlineExceeded {
			t.Fatalf("reattach: %v", e)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no result after %d reattaches", cuts)
		}
	}
	if r.Stdout != "start\ndone\n" || r.ExecutionCount != 1 {
		t.Fatalf("reattached result %+v, want the one run's output", r)
	}
	if _, err := strconv.Atoi(r.Result); err != nil {
		t.Errorf("result %q, want the kernel's pid", r.Result)
	}
}
