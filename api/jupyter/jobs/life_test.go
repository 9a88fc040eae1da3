package jobs

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
)

// procStat is a process's parent, process group and session
// (/proc/PID/stat).
type procStat struct{ ppid, pgrp, session int }

func statOf(t *testing.T, pid int) procStat {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatalf("process %d: %v", pid, err)
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	n := func(i int) int { v, _ := strconv.Atoi(f[i]); return v }
	return procStat{ppid: n(1), pgrp: n(2), session: n(3)}
}

// counting prints "line N" for N from 0 to n-1, one every ms
// milliseconds, then exits 0.
func counting(n, ms int) string {
	return fmt.Sprintf("import time\nfor i in range(%d):\n    print('line', i)\n    time.sleep(%g)\n", n, float64(ms)/1000)
}

func countingOutput(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// follow reads job id's log from offset 0 in pieces of at most piece
// bytes, as `logs -f` does, until status.json says the job ended and a
// last read brought nothing; it returns every byte read, in order.
func (e *env) follow(t *testing.T, j *job, piece int64, each func(off int64)) []byte {
	t.Helper()
	ctx := context.Background()
	var got []byte
	end := time.Now().Add(2 * deadline)
	for ended := false; ; {
		if time.Now().After(end) {
			t.Fatalf("the job did not end within %s; read %d bytes", 2*deadline, len(got))
		}
		b, _, err := ReadLog(ctx, e.jc, j.spec.ID, int64(len(got)), piece)
		if err != nil && !isNotFound(err) {
			t.Fatalf("ReadLog from %d: %v", len(got), err)
		}
		if int64(len(b)) > piece {
			t.Fatalf("ReadLog brought %d bytes, more than the %d asked", len(b), piece)
		}
		got = append(got, b...)
		if each != nil {
			each(int64(len(got)))
		}
		if len(b) > 0 {
			continue
		}
		if ended {
			return got
		}
		rec, err := Read(ctx, e.jc, j.spec.ID)
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		ended = rec.Status != nil && !rec.Status.Ended.IsZero()
		if !ended {
			time.Sleep(50 * time.Millisecond) // the poll interval of a follower
		}
	}
}

// The job is a process of its own: its own session and process group,
// not a child of the process that launched it, so killing that process
// (a kernel killed with kill -9, its whole group) does not end it: its
// log keeps growing, and a follower reading from offsets gets every byte
// once, in order, to the end.
func TestJobOutlivesItsKernel(t *testing.T) {
	e := newEnv(t, colabfake.Options{})
	const lines = 150
	j := e.prepare(t, "count.py", counting(lines, 20))

	// The "kernel": a python that runs the launcher, then stays.
	kernel := exec.Command(jupytertest.JupyterPython(), "-c", "exec(compile(open(0).read(), 'cell', 'exec'))\nimport time\ntime.sleep(600)\n")
	kernel.Dir = filepath.Join(e.root, filepath.FromSlash(e.Dir))
	kernel.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	kernel.Stdin = strings.NewReader(LauncherCode(j.spec.ID))
	out, err := kernel.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := kernel.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-kernel.Process.Pid, syscall.SIGKILL); _ = kernel.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the launcher printed nothing: %v", err)
	}
	if j.sup, err = ParseLaunch(line); err != nil {
		t.Fatal(err)
	}
	var st *Status
	waitFor(t, "job pid in status.json", func() bool { st = j.status(t); return st != nil && st.Pid > 0 })

	sup, job := statOf(t, j.sup), statOf(t, st.Pid)
	if sup.session != j.sup || sup.ppid == kernel.Process.Pid {
		t.Errorf("supervisor %d: %+v; want a session of its own, not the kernel's (%d) child", j.sup, sup, kernel.Process.Pid)
	}
	if job.pgrp != st.Pid || job.session != st.Pid || job.ppid != j.sup {
		t.Errorf("job %d: %+v; want its own session and process group, the supervisor's (%d) child", st.Pid, job, j.sup)
	}

	// kill -9 of the kernel's whole process group.
	if err := syscall.Kill(-kernel.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = kernel.Wait()
	after := logSize(j)
	waitFor(t, "log growing after the kernel was killed", func() bool { return logSize(j) > after+50 })
	if !alive(j.sup) || !alive(st.Pid) {
		t.Fatalf("supervisor alive %v, job alive %v after the kernel's kill", alive(j.sup), alive(st.Pid))
	}

	// Pieces of 37 bytes: lines split across reads, every read a Range.
	got := e.follow(t, j, 37, nil)
	if want := countingOutput(lines); string(got) != want {
		t.Errorf("the log read from offsets differs from what the job printed:\n got %q\nwant %q", got, want)
	}
	if st := j.waitEnded(t); st.ExitCode != 0 || st.Signal != 0 {
		t.Errorf("status %+v, want exit 0", st)
	}
}

// Stop ends the whole process group, a child the script started that
// ignores SIGTERM included (SIGKILL after the grace), and the status says
// the job was killed by SIGTERM, with the stop recorded.
func TestStopEndsTheProcessGroup(t *testing.T) {
	e := newEnv(t, colabfake.Options{})
	script := `import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint('child ready', flush=True)\ntime.sleep(600)"])
print("child", child.pid, flush=True)
while True:
    time.sleep(0.05)
`
	j := e.start(t, "stopme.py", script)
	var child int
	waitFor(t, "the child's pid and its readiness in the log", func() bool {
		b, _ := os.ReadFile(filepath.Join(j.dir, LogFile))
		_, _ = fmt.Sscanf(string(b), "child %d", &child)
		return child > 0 && bytes.Contains(b, []byte("child ready"))
	})
	t.Cleanup(func() {
		if ours(child, "SIG_IGN") {
			_ = syscall.Kill(child, syscall.SIGKILL)
		}
	})
	if err := Stop(context.Background(), e.jc, j.spec.ID, 500*time.Millisecond); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	st := j.waitEnded(t)
	if st.Signal != int(syscall.SIGTERM) || st.ExitCode != -1 || !st.Stopping {
		t.Errorf("status %+v, want killed by SIGTERM (15), exit code -1, stopping", st)
	}
	waitFor(t, "the end of the child that ignored SIGTERM", func() bool { return !alive(child) })
	if alive(j.sup) {
		waitFor(t, "the supervisor's exit", func() bool { return !alive(j.sup) })
	}
}
