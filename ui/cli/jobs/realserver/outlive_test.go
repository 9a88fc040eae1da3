package realserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/realjupyter"
	"github.com/colabdash/colabdash/api/colabfake/runtimeproxy"
	"github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/ui/cli/internal/clitest"
)

// realJobEnv is the real binary against the emulator fronting a real
// jupyter-server, with what these tests read of a job on its disk.
type realJobEnv struct{ *clitest.RealServer }

func newRealJobEnv(t *testing.T) *realJobEnv {
	return &realJobEnv{clitest.StartRealServer(t)}
}

// jobDir is job id's directory on the jupyter-server's disk.
func (e *realJobEnv) jobDir(id string) string {
	return filepath.Join(e.Jup.Root, filepath.FromSlash(jobs.Dir(id)))
}

// reapAtEnd kills job id's process group when the test ends, should the
// job still run then (a test that failed half-way): a detached job
// outlives the jupyter-server by design.
func (e *realJobEnv) reapAtEnd(id string) {
	e.T.Cleanup(func() {
		if st := e.status(id); st != nil && st.Pid > 0 && st.Ended.IsZero() {
			_ = syscall.Kill(-st.Pid, syscall.SIGKILL)
		}
	})
}

// status reads job id's status.json from the runtime's disk (nil before
// the supervisor wrote one).
func (e *realJobEnv) status(id string) *jobs.Status {
	b, err := os.ReadFile(filepath.Join(e.jobDir(id), jobs.StatusFile))
	if err != nil {
		return nil
	}
	var st jobs.Status
	if json.Unmarshal(b, &st) != nil {
		return nil
	}
	return &st
}

// lastLine is the number of the last "line N" the job's log holds on the
// runtime's disk (0: none yet).
func (e *realJobEnv) lastLine(id string) int {
	b, _ := os.ReadFile(filepath.Join(e.jobDir(id), jobs.LogFile))
	m := numbered.FindAllSubmatch(b, -1)
	if len(m) == 0 {
		return 0
	}
	n, _ := strconv.Atoi(string(m[len(m)-1][1]))
	return n
}

var numbered = regexp.MustCompile(`(?m)^line ([0-9]+)$`)

// stillRunning fails the test unless job id has not ended, its process
// is alive, and its log grows past what it held when called (within
// clitest.WaitTimeout): after says what the job just went through.
func (e *realJobEnv) stillRunning(id, after string) {
	e.T.Helper()
	from := e.lastLine(id)
	for deadline := time.Now().Add(clitest.WaitTimeout); e.lastLine(id) <= from+1; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			e.T.Fatalf("after %s the log stopped growing at line %d", after, from)
		}
	}
	st := e.status(id)
	if st == nil || !st.Ended.IsZero() || st.Pid <= 0 || syscall.Kill(st.Pid, 0) != nil {
		e.T.Fatalf("after %s the job is not running: %+v", after, st)
	}
}

// lockedBuffer is a bytes.Buffer a process writes while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// follow starts `logs id -f` with its stdout and stderr in buffers.
func (e *realJobEnv) follow(id string) (*exec.Cmd, *lockedBuffer, *lockedBuffer) {
	e.T.Helper()
	cmd := e.Command("logs", id, "-f")
	out, errb := &lockedBuffer{}, &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, errb
	if err := cmd.Start(); err != nil {
		e.T.Fatal(err)
	}
	e.T.Cleanup(func() { _ = cmd.Process.Kill() })
	return cmd, out, errb
}

// waitPrinted waits until the follower's stdout holds line n.
func waitPrinted(t *testing.T, cmd *exec.Cmd, out, errb *lockedBuffer, n int) {
	t.Helper()
	want := fmt.Sprintf("line %d\n", n)
	clitest.WaitReady(t, cmd, func() string {
		return fmt.Sprintf("logs -f never printed %q: stdout ends %q, stderr %q", want, tail(out.String()), errb.String())
	}, func() bool { return strings.Contains(out.String(), want) })
}

func tail(s string) string {
	if len(s) > 200 {
		return "…" + s[len(s)-200:]
	}
	return s
}

// everyLineOnce fails the test unless log is "line 1" … "line N" in
// order, each once, then "done".
func everyLineOnce(t *testing.T, what, log string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(log, "\n"), "\n")
	if len(lines) < 2 || lines[len(lines)-1] != "done" {
		t.Fatalf("%s: does not end with the job's last line: %q", what, tail(log))
	}
	for i, l := range lines[:len(lines)-1] {
		if l != fmt.Sprintf("line %d", i+1) {
			t.Fatalf("%s: line %d is %q, want %q (lost or repeated)", what, i+1, l, fmt.Sprintf("line %d", i+1))
		}
	}
}

// restartKernel restarts kernel id of runtime rt through its proxy
// (Jupyter's POST api/kernels/ID/restart) with the current proxy token.
func (e *realJobEnv) restartKernel(rt, id string) {
	e.T.Helper()
	var ci api.ConnectionInfo
	for _, r := range e.Srv.Runtimes() {
		if r.Name == rt && r.ConnectionInfo != nil {
			ci = *r.ConnectionInfo
		}
	}
	req, _ := http.NewRequest(http.MethodPost, ci.URL+"api/kernels/"+id+"/restart", nil)
	req.Header.Set(runtimeproxy.TokenHeader, ci.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.T.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		e.T.Fatalf("restarting kernel %s: HTTP %d", id, resp.StatusCode)
	}
}

// The numbered job: a line every quarter second until a file named
// release appears beside it, then "done" and the exit code it holds.
const numberedJob = `import os, sys, time
release = os.path.join(os.path.dirname(os.path.abspath(__file__)), "release")
i = 0
while True:
    if os.path.exists(release):
        print("done")
        sys.exit(int(open(release).read()))
    i += 1
    print("line %d" % i)
    time.sleep(0.25)
`

// A job started by run --detach on a real jupyter-server is a process of
// its own: it runs on, its log growing, after a logs -f client is killed
// with kill -9, after the runtime's proxy drops every request for 60 s,
// after the proxy token expires and after a kernel of the runtime is
// restarted. A logs -f that followed through all of that, and one started
// afterwards, each print every line from the first, in order, once, and
// follow to the end; wait exits with the job's status.
func TestDetachedJobOutlivesClientNetworkTokenAndKernel(t *testing.T) {
	t.Parallel()
	e := newRealJobEnv(t)
	script := clitest.WriteFile(t, filepath.Join(t.TempDir(), "count.py"), numberedJob)
	code, out, errs := e.Run("run", script, "--spec", "CPU", "--detach")
	id := strings.TrimSpace(out)
	if code != 0 || jobs.ValidID(id) != nil {
		t.Fatalf("run --detach: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	e.reapAtEnd(id)
	rts := e.Srv.Runtimes()
	if len(rts) != 1 {
		t.Fatalf("runtimes after run --detach: %+v", rts)
	}
	rt := rts[0]
	kernel := realjupyter.StartKernel(t, *rt.ConnectionInfo)
	e.stillRunning(id, "run --detach returned")

	// A follower killed with kill -9 mid-way.
	killed, kout, kerr := e.follow(id)
	waitPrinted(t, killed, kout, kerr, 2)
	_ = killed.Process.Signal(syscall.SIGKILL)
	_ = killed.Wait()
	e.stillRunning(id, "logs -f was killed with kill -9")

	// A follower that goes through the rest.
	through, tout, terr := e.follow(id)
	waitPrinted(t, through, tout, terr, e.lastLine(id))

	// The network cut: every request to the runtime's proxy is held with
	// no reply for 60 s (a delay line that drops them).
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStall, Times: -1})
	for cut := time.Now(); time.Since(cut) < time.Minute; {
		e.stillRunning(id, "the network was cut")
	}
	if behind := e.lastLine(id) - strings.Count(tout.String(), "\n"); behind < 100 {
		t.Fatalf("the cut let logs -f through: it is only %d lines behind the log", behind)
	}
	e.Srv.ClearProxyFaults()
	e.stillRunning(id, "the network came back")
	waitPrinted(t, through, tout, terr, e.lastLine(id))

	// The proxy token expires: the proxy refuses it until renewed.
	expired := *e.Srv.Runtimes()[0].ConnectionInfo
	e.Srv.ExpireToken(rt.Name, time.Now().Add(-time.Second))
	e.stillRunning(id, "the proxy token expired")
	waitPrinted(t, through, tout, terr, e.lastLine(id))
	if renewed := e.Srv.Runtimes()[0].ConnectionInfo; renewed.Token == expired.Token || !renewed.ExpireTime.After(time.Now()) {
		t.Fatalf("logs -f went on without renewing the expired proxy token: %+v", renewed)
	}

	// A kernel of the runtime restarts (Jupyter kills its process group).
	e.restartKernel(rt.Name, kernel)
	e.stillRunning(id, "a kernel restarted")
	waitPrinted(t, through, tout, terr, e.lastLine(id))

	// A follower started afterwards, then the job is released.
	after, aout, aerr := e.follow(id)
	waitPrinted(t, after, aout, aerr, e.lastLine(id))
	clitest.WriteFile(t, filepath.Join(e.Jup.Root, "content", "release"), "7")
	waited, _, werr := e.Run("wait", id)
	if waited != 7 {
		t.Errorf("wait: exit %d, want the job's 7; stderr %q", waited, werr)
	}
	for _, f := range []struct {
		name      string
		cmd       *exec.Cmd
		out, errb *lockedBuffer
	}{{"logs -f through the faults", through, tout, terr}, {"logs -f started afterwards", after, aout, aerr}} {
		if code := clitest.WaitExit(t, f.name, f.cmd); code != 7 {
			t.Errorf("%s: exit %d, want the job's 7; stderr %q", f.name, code, f.errb.String())
		}
		everyLineOnce(t, f.name, f.out.String())
	}
}
