//go:build linux

package poll

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake/realjupyter"
	"github.com/colabdash/colabdash/api/colabfake/runtimeproxy"
	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/state/monitor"
	"github.com/colabdash/colabdash/ui/render"
)

// waitForWatch is an IPython startup file for the real server's kernels:
// the kernel waits, before its first status, until a peer is connected
// to its IOPub port (the server's activity watch), at most 10 s.
//
// Why: jupyter-server 1.x learns a kernel's execution_state from a ZMQ
// subscriber on the kernel's IOPub port. When the server restarts a
// killed kernel on the same ports, that subscriber reconnects every 0.1
// to 0.2 s, and a stock ipykernel with no startup work publishes its
// "starting" status within about that time of binding the port: the
// status then goes to nobody and the server's list keeps the dead
// kernel's "idle" though its log says it restarted (measured with
// jupyter_client's own restart and subscriber: 5 restarts of 11 seen;
// with 0.3 s of startup work, 8 of 8). A kernel with startup work
// (extensions, startup files) leaves the subscriber time to join; this
// file is that work, bounded, and it waits for the subscriber instead of
// for a guessed time.
const waitForWatch = `import sys, time
def _colabdash_wait_for_watch():
    from ipykernel.kernelapp import IPKernelApp
    port = IPKernelApp.instance().iopub_port
    start = time.monotonic()
    while time.monotonic() - start < 10:
        with open("/proc/net/tcp") as f:
            rows = [line.split() for line in f.readlines()[1:]]
        if any(r[1].endswith(":%04X" % port) and r[3] == "01" for r in rows):
            time.sleep(0.5)  # the subscription follows the connection
            print("colabdash-wait-for-watch: IOPub %d watched after %.2fs" % (port, time.monotonic() - start), file=sys.__stderr__, flush=True)
            return
        time.sleep(0.02)
    print("colabdash-wait-for-watch: IOPub %d not watched after 10s" % port, file=sys.__stderr__, flush=True)
_colabdash_wait_for_watch()
del _colabdash_wait_for_watch
`

// Restarter timing of jupyter-server 1.x (jupyter_client's
// KernelRestarter defaults): it polls a kernel's process every
// restartPoll, and counts a start as stable once the process has lived
// stableStart past its last death (or its start). A kernel that dies
// before its first stable start is restarted on new random ports, which
// the server's activity watch never follows; a death within stableStart
// of the previous one adds to the restarts in a row, and after
// restartLimit of them the server gives the kernel up.
const (
	restartPoll  = 3 * time.Second
	stableStart  = 10 * time.Second
	restartLimit = 5
)

// killedKernel is a real server behind the emulator's proxy, with one
// kernel that came up (a client asked it for its info, so it read idle)
// and has no connection left, and the monitor's store fed every list.
type killedKernel struct {
	t       *testing.T
	ctx     context.Context
	js      *realjupyter.Server
	ci      api.ConnectionInfo
	kid     string
	started time.Time // when the kernel's current process was seen
	client  *apimon.Client
	store   *monitor.Store
	seen    string
}

// newKilledKernel starts the server and the kernel, in a session of
// notebook when it is not "" (as a notebook's kernel is; its directory is
// made first), and waits until it came up and its client left.
func newKilledKernel(t *testing.T, notebook string) *killedKernel {
	t.Helper()
	ci, js := realRuntime(t, true)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("jupyter-server's log:\n%s", js.Log())
		}
	})
	startup := filepath.Join(js.Home, ".ipython", "profile_default", "startup")
	if err := os.MkdirAll(startup, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(startup, "00-wait-for-watch.py"), []byte(waitForWatch), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	k := &killedKernel{t: t, ctx: ctx, js: js, ci: ci, client: apimon.New(apimon.Options{}), store: monitor.NewStore()}
	if notebook != "" {
		if err := os.MkdirAll(filepath.Join(js.Root, filepath.FromSlash(filepath.Dir(notebook))), 0o755); err != nil {
			t.Fatal(err)
		}
		k.kid = startSession(t, ci, notebook)
	} else {
		k.kid = realjupyter.StartKernel(t, ci)
	}
	k.started = time.Now()
	kernelUp(t, ctx, ci, k.kid)
	k.waitFor("lost its connection", func(ks []apimon.Kernel) bool { return len(ks) == 1 && ks[0].Connections == 0 })
	return k
}

// startSession creates a notebook session at path with a python3 kernel
// (Jupyter's POST api/sessions) and returns its kernel's id.
func startSession(t *testing.T, ci api.ConnectionInfo, path string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"path": path, "name": filepath.Base(path), "type": "notebook", "kernel": map[string]string{"name": "python3"}})
	req, _ := http.NewRequest(http.MethodPost, ci.URL+"api/sessions", bytes.NewReader(body))
	req.Header.Set(runtimeproxy.TokenHeader, ci.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		ID     string `json:"id"`
		Kernel struct {
			ID string `json:"id"`
		} `json:"kernel"`
	}
	err = json.NewDecoder(resp.Body).Decode(&s)
	resp.Body.Close()
	if err != nil || s.Kernel.ID == "" {
		t.Fatalf("POST api/sessions: HTTP %d, %v", resp.StatusCode, err)
	}
	t.Cleanup(func() {
		req, _ := http.NewRequest(http.MethodDelete, ci.URL+"api/sessions/"+s.ID, nil)
		req.Header.Set(runtimeproxy.TokenHeader, ci.Token)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	})
	return s.Kernel.ID
}

// list records one kernel list in the store, logging what changed.
func (k *killedKernel) list() []apimon.Kernel {
	k.t.Helper()
	ks, err := k.client.Kernels(k.ctx, k.ci)
	if err != nil {
		k.t.Fatalf("api/kernels: %v", err)
	}
	k.store.RecordKernels("rt-real", time.Now(), ks, nil)
	seen := "no kernel"
	if len(ks) > 0 {
		seen = ks[0].ExecutionState + " " + strconv.Itoa(ks[0].Connections) + " " + ks[0].LastActivity.Format("15:04:05.000")
	}
	if seen != k.seen {
		k.t.Logf("%s: %s", time.Now().Format("15:04:05.000"), seen)
		k.seen = seen
	}
	return ks
}

// waitUntil lists the kernels until ok says so, at most until until (the
// test's deadline when zero); it reports whether ok did.
func (k *killedKernel) waitUntil(until time.Time, ok func([]apimon.Kernel) bool) bool {
	k.t.Helper()
	for {
		if ok(k.list()) {
			return true
		}
		if !until.IsZero() && time.Now().After(until) {
			return false
		}
		select {
		case <-k.ctx.Done():
			return false
		case <-time.After(200 * time.Millisecond): // the next list
		}
	}
}

// waitFor is waitUntil the test's deadline, failing the test there.
func (k *killedKernel) waitFor(what string, ok func([]apimon.Kernel) bool) {
	k.t.Helper()
	if !k.waitUntil(time.Time{}, ok) {
		k.t.Fatalf("the kernel never %s (last: %s)", what, k.seen)
	}
}

// pids are the kernel's processes (its command line names its
// connection file).
func (k *killedKernel) pids() []string {
	out, _ := exec.CommandContext(k.ctx, "pgrep", "-f", "kernel-"+k.kid).Output()
	return strings.Fields(string(out))
}

// kill kills every process of the kernel with SIGKILL, as the
// out-of-memory killer does, waits until the server reaped them (its
// restarter polls), then until it started a new process (recording
// lists meanwhile) or, when gone is true, dropped the kernel; it returns
// whether a new process started.
func (k *killedKernel) kill(gone bool) bool {
	k.t.Helper()
	killed := k.pids()
	if len(killed) == 0 {
		k.t.Fatal("no process of the kernel found")
	}
	for _, p := range killed {
		pid, _ := strconv.Atoi(p)
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			k.t.Fatalf("kill -9 %d: %v", pid, err)
		}
	}
	restarted := false
	k.waitFor("was restarted or dropped after kill -9", func(ks []apimon.Kernel) bool {
		for _, p := range killed {
			if procState(p) != "" { // a zombie until the restarter polls
				return false
			}
		}
		if now := k.pids(); len(now) > 0 && !slices.Contains(killed, now[0]) {
			restarted = true
			return true
		}
		return gone && len(ks) == 0
	})
	if restarted {
		k.started = time.Now()
	}
	return restarted
}

// waitLines are the lines waitForWatch wrote to the server's log.
func (k *killedKernel) waitLines() string {
	var out []string
	for _, l := range strings.Split(k.js.Log(), "\n") {
		if strings.HasPrefix(l, "colabdash-wait-for-watch:") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// iopubPort is the kernel's IOPub port in its connection file (the
// server rewrites it when a restart takes new ports).
func (k *killedKernel) iopubPort() int {
	b, err := os.ReadFile(filepath.Join(k.js.Home, "kernel-"+k.kid+".json"))
	var cf struct {
		IOPub int `json:"iopub_port"`
	}
	if err != nil || json.Unmarshal(b, &cf) != nil {
		k.t.Fatalf("the kernel's connection file: %v", err)
	}
	return cf.IOPub
}

// sleepUntil waits until t (the server's restarter's own schedule, which
// no reply tells), or the test's deadline.
func (k *killedKernel) sleepUntil(t time.Time) {
	select {
	case <-k.ctx.Done():
		k.t.Fatal(k.ctx.Err())
	case <-time.After(time.Until(t)):
	}
}

// Against a real jupyter-server: a kernel that was up and is then killed
// with kill -9, as an out-of-memory kill does, is restarted by the server
// and waits "starting" with no connection. The monitor reads it
// "restarted", not "never connected", however long it waits.
func TestKilledKernelReadsRestarted(t *testing.T) {
	t.Parallel() // mostly waiting for the server's restarter: beside the test below
	k := newKilledKernel(t, "")
	begun := time.Now()
	// An out-of-memory kill comes after a kernel's start counts as stable
	// (a restart before it takes new ports, which the server's activity
	// watch does not follow): the restarter's threshold, two of its polls
	// for a busy machine. Should a restart still take new ports, or the
	// list not show it, the kernel is killed again once its new start is
	// stable (counted as a first restart again), a few times at most.
	for attempt := 1; ; attempt++ {
		k.sleepUntil(k.started.Add(stableStart + 2*restartPoll))
		port := k.iopubPort()
		if !k.kill(false) {
			t.Fatal("the server did not restart the killed kernel")
		}
		if moved := k.iopubPort(); moved != port {
			t.Logf("attempt %d: the restart took new ports (IOPub %d, was %d)", attempt, moved, port)
		} else if k.waitUntil(k.started.Add(realWait/3), func(ks []apimon.Kernel) bool {
			return len(ks) == 1 && ks[0].ExecutionState == "starting"
		}) {
			break
		} else {
			t.Logf("attempt %d: the server's list never showed the restart; the kernel's startup said:\n%s", attempt, k.waitLines())
		}
		if attempt == 3 {
			t.Fatalf("after %d kills the server's list never showed the kernel restarted (see the log)", attempt)
		}
	}
	t.Logf("killed and seen restarted %v after the kernel came up", time.Since(begun).Round(time.Second))
	// Long past the minute after which a kernel that never came up reads
	// "never connected".
	later := time.Now().Add(10 * time.Minute)
	v := k.store.Get("rt-real").Verdict(later)
	if v.State != monitor.StateRestarted || v.Restarted != 1 || v.By != monitor.SignalKernel {
		t.Errorf("a kernel killed and restarted reads %s by %q: %+v", v.State, v.By, v)
	}
	if w, c := render.VerdictWord(v), render.KernelsCell(v.Activity); !strings.HasPrefix(w, "restarted ") || c != "0 busy 0 idle 1 restarted" {
		t.Errorf("row: %q, kernels %q", w, c)
	}
}

// Against a real jupyter-server: a notebook's kernel killed with kill -9
// every time the server restarts it, until the server gives up
// (restartLimit restarts in a row), is dropped by the server with its
// session, so the runtime lists no kernel and no session; the monitor,
// which saw the kernel up, reads the runtime "dead", not "no kernels".
func TestKernelKilledUntilTheServerGivesUpReadsDead(t *testing.T) {
	t.Parallel() // mostly waiting for the server's restarter: beside the test above
	k := newKilledKernel(t, "content/dies.ipynb")
	begun := time.Now()
	// Each death comes within stableStart of the one before (the kill
	// follows each new process at once), so the restarts count in a row.
	for n := 0; k.kill(true); n++ {
		if n > restartLimit {
			t.Fatalf("the server restarted the kernel %d times; it gives up after %d", n, restartLimit)
		}
	}
	t.Logf("the server gave the kernel up %v after the first kill", time.Since(begun).Round(time.Second))
	ss, err := k.client.Sessions(k.ctx, k.ci)
	if err != nil || len(ss) != 0 {
		t.Errorf("sessions once the kernel was given up: %+v, %v", ss, err)
	}
	now := time.Now()
	v := k.store.Get("rt-real").Verdict(now.Add(time.Minute))
	if v.State != monitor.StateDead || v.By != monitor.SignalKernel || v.Vanished != 1 || v.For < time.Minute {
		t.Errorf("a kernel the server gave up reads %s by %q: %+v", v.State, v.By, v)
	}
	if w, c := render.VerdictWord(v), render.KernelsCell(v.Activity); w != "dead" || c != "0 busy 0 idle 1 dead" {
		t.Errorf("row: %q, kernels %q", w, c)
	}
}

// Against a real jupyter-server: when the server cannot start a killed
// kernel again (here the notebook's directory, the kernel's working
// directory, was deleted before the kill -9), it keeps listing the dead
// kernel's last state until a client (the notebook's tab reconnecting)
// connects: the connection fails and the server lists the kernel "dead".
// The monitor reads the runtime dead, by the kernel.
func TestKernelWhoseRestartFailedReadsDead(t *testing.T) {
	t.Parallel() // mostly waiting for the server's restarter: beside the tests above
	k := newKilledKernel(t, "content/work/fails.ipynb")
	if err := os.RemoveAll(filepath.Join(k.js.Root, "content", "work")); err != nil {
		t.Fatal(err)
	}
	killed := k.pids()
	for _, p := range killed {
		pid, _ := strconv.Atoi(p)
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatalf("kill -9 %d: %v", pid, err)
		}
	}
	// Reaped: the restarter polled, and tried to start the kernel again.
	k.waitFor("was reaped by the server", func([]apimon.Kernel) bool {
		return !slices.ContainsFunc(killed, func(p string) bool { return procState(p) != "" })
	})
	ws := "ws" + strings.TrimPrefix(k.ci.URL, "http") + "api/kernels/" + k.kid + "/channels?" + runtimeproxy.TokenQuery + "=" + k.ci.Token
	k.waitFor("refused a client after its failed restart", func([]apimon.Kernel) bool {
		c, resp, err := websocket.Dial(k.ctx, ws, nil)
		if err == nil { // the restart had not failed yet: a connection to nothing
			c.CloseNow()
			return false
		}
		return resp != nil && resp.StatusCode == http.StatusInternalServerError
	})
	k.waitFor("was listed dead", func(ks []apimon.Kernel) bool { return len(ks) == 1 && ks[0].ExecutionState == "dead" })
	v := k.store.Get("rt-real").Verdict(time.Now())
	if v.State != monitor.StateDead || v.By != monitor.SignalKernel || v.Dead != 1 || v.Vanished != 0 {
		t.Errorf("a kernel the server lists dead reads %s by %q: %+v", v.State, v.By, v)
	}
	if w, c := render.VerdictWord(v), render.KernelsCell(v.Activity); w != "dead" || c != "0 busy 0 idle 1 dead" {
		t.Errorf("row: %q, kernels %q", w, c)
	}
}

// procState is process pid's state letter from /proc ("Z" a zombie), ""
// when there is no such process.
func procState(pid string) string {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return ""
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 || i+2 >= len(b) {
		return ""
	}
	return string(b[i+2])
}
