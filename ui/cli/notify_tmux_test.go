//go:build unix

package cli

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/colabfaketest"
)

// The real binary's dashboard in tmux: a runtime Colab reclaims is told
// with OSC 9 wrapped in tmux's passthrough and the bell (what the program
// wrote, read with pipe-pane), and a terminal attached to that tmux with
// allow-passthrough on receives the OSC 9 itself and the bell; the status
// line is not disturbed.
func TestNotificationThroughTmux(t *testing.T) {
	skipUnderShort(t)
	bin := binary(t)
	home := t.TempDir()
	srv, endpoint := colabfaketest.Start(t, colabfake.Options{Seed: colabfake.SeedDemo})
	tokenFile := writeFile(t, filepath.Join(home, "token.txt"), "fake\n")
	writeFile(t, filepath.Join(home, "config", "colabdash", "config.yaml"), "notify:\n  terminal: osc9\n")
	s := startTmux(t, 120, 30, homeEnv(home, "TERM=xterm-256color", "NO_COLOR=1"), bin, "--endpoint", endpoint, "--access-token-file", tokenFile)
	wrote := filepath.Join(home, "pane.out")
	s.tmux("set", "-g", "allow-passthrough", "on")
	s.tmux("pipe-pane", "-o", "-t", s.name, "cat >> "+wrote)

	// A terminal attached to the tmux server, read as it comes.
	ptm, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pseudo-terminal here:", err)
	}
	defer ptm.Close()
	_ = pty.Setsize(ptm, &pty.Winsize{Rows: 30, Cols: 120})
	attach := exec.Command("tmux", "-L", s.sock, "-f", "/dev/null", "attach", "-t", s.name)
	attach.Stdin, attach.Stdout, attach.Stderr = tty, tty, tty
	attach.Env = append(os.Environ(), "TERM=xterm-256color")
	if err := attach.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	defer func() { _ = attach.Process.Kill(); _ = attach.Wait() }()
	var mu sync.Mutex
	var seen []byte
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := ptm.Read(buf)
			mu.Lock()
			seen = append(seen, buf[:n]...)
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()

	s.waitText("rt-cpudemo4qx")
	s.waitText("updated 1s ago") // seen listed on a tick
	if !srv.Reclaim("runtimes/rt-cpudemo4qx") {
		t.Fatal("nothing to reclaim")
	}
	s.keys("r")
	s.waitText("GONE")
	// The reason in brackets is whichever call saw it first: the listing
	// ("missing from list_runtimes") or a get_runtime ("NOT_FOUND").
	osc := regexp.MustCompile(`\x1b\]9;colabdash: rt-cpudemo4qx gone: runtime rt-cpudemo4qx is no longer listed \((missing from list_runtimes|NOT_FOUND)\)\x1b\\`)
	wrapped := regexp.MustCompile(`\x1bPtmux;\x1b\x1b\]9;colabdash: rt-cpudemo4qx gone: runtime rt-cpudemo4qx is no longer listed \((missing from list_runtimes|NOT_FOUND)\)\x1b\x1b\\\x1b\\\a`)
	deadline := time.Now().Add(waitTimeout)
	for {
		out, _ := os.ReadFile(wrote)
		mu.Lock()
		outer := bytes.Clone(seen)
		mu.Unlock()
		if wrapped.Match(out) && osc.Match(outer) && bytes.Contains(outer, []byte("\a")) {
			if n := bytes.Count(out, []byte("\a")); n != 1 {
				t.Errorf("the program rang %d times", n)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the program wrote (last bytes):\n%q\nthe attached terminal got (last bytes):\n%q", lastBytes(out), lastBytes(outer))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if scr := s.screen(); !strings.Contains(scr, "rt-cpudemo4qx") || strings.Contains(scr, "]9;") {
		t.Errorf("the screen after the notification:\n%s", scr)
	}
}

// tail is the last 2000 bytes of b.
func lastBytes(b []byte) []byte { return b[max(len(b)-2000, 0):] }

// The real binary's `wait` on a pseudo-terminal: the demo's running job,
// stopped by `colabdash stop` while wait watches it, ends with OSC 9 and
// the bell on wait's terminal (stderr), once.
func TestWaitRingsOnItsTerminal(t *testing.T) {
	skipUnderShort(t)
	bin := binary(t)
	var reads atomic.Int32 // proxy reads of the job's files: wait has found it
	e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedDemo, OnProxyRequest: func(r *http.Request) {
		if strings.Contains(r.URL.Path, "train-demo01") {
			reads.Add(1)
		}
	}})
	writeFile(t, filepath.Join(e.home, ".config", "colabdash", "config.yaml"), "notify:\n  terminal: osc9\n")
	const job = "rt-t4demo7k2p/train-demo01"
	s := startSilent(t, nil, bin, append([]string{"wait", job}, e.flags...)...)
	for deadline := time.Now().Add(waitTimeout); reads.Load() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("wait never read the job: %q", s.output())
		}
	}
	if code, _, errs := e.run("stop", job, "--grace", "2s"); code != 0 {
		t.Fatalf("stop: %d %s", code, errs)
	}
	out := s.waitOutput(t, "\x1b]9;colabdash: job train-demo01 killed by SIGTERM: job train-demo01 on rt-t4demo7k2p killed by SIGTERM")
	out = s.waitOutput(t, "\a")
	if n := strings.Count(out, "\a"); n != 1 {
		t.Errorf("rang %d times: %q", n, out)
	}
}
