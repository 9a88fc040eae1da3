//go:build linux

package poll

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/realjupyter"
	"github.com/colabdash/colabdash/api/colabfake/runtimeproxy"
	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/state/monitor"
)

// Against a real jupyter-server: a kernel that was up (a client asked it
// for its info, so it read idle) and is then killed with kill -9, as an
// out-of-memory kill does, is restarted by the server and waits
// "starting" with no connection. The monitor reads it "restarted", not
// "never connected", however long it waits.
func TestKilledKernelReadsRestarted(t *testing.T) {
	js := realjupyter.Require(t, realjupyter.Options{Kernels: true})
	up := js.URL
	defer func() {
		if t.Failed() {
			t.Logf("jupyter-server's log:\n%s", js.Log())
		}
	}()
	srv, _, err := colabfake.Start(context.Background(), "127.0.0.1:0", colabfake.Options{Seed: colabfake.SeedEmpty, JupyterUpstream: up})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	rt, err := srv.AddRuntime(api.Runtime{Name: "runtimes/rt-real", ConnectionInfo: &api.ConnectionInfo{}})
	if err != nil {
		t.Fatal(err)
	}
	ci := *rt.ConnectionInfo
	kid := realjupyter.StartKernel(t, ci)
	started := time.Now() // the server answered: the kernel's process runs
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	client, store := apimon.New(apimon.Options{}), monitor.NewStore()
	lastSeen := ""
	// list records one kernel list in the store and returns the kernel.
	list := func() apimon.Kernel {
		t.Helper()
		ks, err := client.Kernels(ctx, ci)
		if err != nil || len(ks) != 1 {
			t.Fatalf("api/kernels: %+v, %v", ks, err)
		}
		store.RecordKernels("rt-real", time.Now(), ks, nil)
		if seen := ks[0].ExecutionState + " " + strconv.Itoa(ks[0].Connections) + " " + ks[0].LastActivity.Format("15:04:05.000"); seen != lastSeen {
			t.Logf("%s: %s", time.Now().Format("15:04:05.000"), seen)
			lastSeen = seen
		}
		return ks[0]
	}
	waitFor := func(what string, ok func(apimon.Kernel) bool) apimon.Kernel {
		t.Helper()
		var k apimon.Kernel
		for {
			if k = list(); ok(k) {
				return k
			}
			select {
			case <-ctx.Done():
				t.Fatalf("the kernel never %s: %+v", what, k)
			case <-time.After(200 * time.Millisecond):
			}
		}
	}

	// A client asks the kernel for its info: it comes up, idle.
	ws := "ws" + strings.TrimPrefix(ci.URL, "http") + "api/kernels/" + kid + "/channels?" + runtimeproxy.TokenQuery + "=" + ci.Token
	c, _, err := websocket.Dial(ctx, ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The kernel may not listen yet when the socket opens: the request is
	// sent again until the kernel reads idle.
	n := 0
	waitFor("came up", func(k apimon.Kernel) bool {
		if k.ExecutionState == "idle" {
			return true
		}
		n++
		info := `{"header":{"msg_id":"info-` + strconv.Itoa(n) + `","username":"test","session":"s-1","msg_type":"kernel_info_request","version":"5.3"},` +
			`"parent_header":{},"metadata":{},"content":{},"channel":"shell","buffers":[]}`
		if err := c.Write(ctx, websocket.MessageText, []byte(info)); err != nil {
			t.Fatal(err)
		}
		return false
	})
	_ = c.Close(websocket.StatusNormalClosure, "")
	waitFor("lost its connection", func(k apimon.Kernel) bool { return k.Connections == 0 })

	// jupyter-server (1.x) restarts a kernel that dies before its
	// restarter counts the start as stable on new ports, which the
	// server's own activity watch does not follow: its list then keeps the
	// dead kernel's last state ("idle") though the kernel was restarted
	// (its log says "restarting kernel (1/5), new random ports"). The
	// restarter (jupyter_client's KernelRestarter) polls every
	// time_to_dead (3 s) and counts the start as stable stable_start_time
	// (10 s) after its first poll: up to about 16 s after the start, and
	// later on a loaded machine. That is what made this test fail when it
	// killed the kernel within a second of its start. An out-of-memory
	// kill comes later in a kernel's life, so the kill waits past that
	// threshold of the server (with room for a busy machine), not for a
	// guess at how long something takes.
	const stableStart = 30 * time.Second
	if wait := time.Until(started.Add(stableStart)); wait > 0 {
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(wait):
		}
	}
	// kill -9, as the out-of-memory killer does, of every process of the
	// kernel (the launcher's and the interpreter's).
	pids := func() []string {
		out, _ := exec.CommandContext(ctx, "pgrep", "-f", "kernel-"+kid).Output()
		return strings.Fields(string(out))
	}
	killed := pids()
	if len(killed) == 0 {
		t.Fatal("no process of the kernel found")
	}
	ps, _ := exec.CommandContext(ctx, "ps", "-o", "pid,ppid,user,args", "-p", strings.Join(killed, ",")).Output()
	t.Logf("killing:\n%s", ps)
	for _, p := range killed {
		pid, _ := strconv.Atoi(p)
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatalf("kill -9 %d: %v", pid, err)
		}
	}
	// The server's restarter polls its kernel process every 3 s; polling
	// reaps the killed process. A process left a zombie means the
	// restarter did not poll (the server's log, printed on failure, then
	// says no "restarting kernel"), not that the kill missed.
	for _, p := range killed {
		for procState(p) != "" {
			select {
			case <-ctx.Done():
				t.Fatalf("the killed kernel process %s was never reaped by the server (state %q)", p, procState(p))
			case <-time.After(100 * time.Millisecond): // the next look at /proc
			}
		}
	}
	// The server's list shows the restart only when its activity watch
	// (a ZMQ subscriber that reconnects to the kernel's ports) catches the
	// new kernel's first "starting" status; a reconnect that comes after
	// it misses it, and the list then keeps the dead kernel's "idle" and
	// last_activity though the server logged the restart. That race is
	// the server's (jupyter-server 1.x): no client of api/kernels can see
	// such a restart, so the test skips, saying so, rather than fail.
	var restartLogged time.Time
	waitFor("was restarted", func(k apimon.Kernel) bool {
		now := pids()
		if k.ExecutionState == "starting" && len(now) > 0 && !slices.Contains(killed, now[0]) {
			return true
		}
		if restartLogged.IsZero() && strings.Contains(js.Log(), "restarting kernel (1/") {
			restartLogged = time.Now()
		}
		if !restartLogged.IsZero() && time.Since(restartLogged) > 30*time.Second {
			t.Skipf("SKIP: the server restarted the kernel (its log says so) but its list never showed it: " +
				"its activity watch missed the new kernel's first status (a race of jupyter-server 1.x)")
		}
		return false
	})
	// Long past the minute after which a kernel that never came up reads
	// "never connected".
	a := store.Get("rt-real").Activity(time.Now().Add(10 * time.Minute))
	if a.State != monitor.StateRestarted || a.Restarted != 1 {
		t.Errorf("a kernel killed and restarted reads %s: %+v", a.State, a)
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
