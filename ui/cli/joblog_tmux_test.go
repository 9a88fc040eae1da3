package cli

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/ui/cli/internal/clitest"
)

// logLines is the log viewer's footer: the lines shown and how many the
// log has.
var logLines = regexp.MustCompile(`following · lines [0-9]+–[0-9]+ of ([0-9]+)`)

// shownLines is how many lines the log viewer's footer says the log has
// (-1: no footer on screen).
func shownLines(scr string) int {
	m := logLines.FindStringSubmatch(scr)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// The demo in tmux at 80x24 and 200x50: on the T4 demo runtime, l opens
// its running job's log, which follows live: lines the job prints after
// the viewer opened appear, the footer's count growing with them, the
// newest epoch on screen.
func TestDemoJobLogFollowsInTmux(t *testing.T) {
	bin := binary(t)
	isolate(t) // the process's environment, which the tmux servers inherit
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			s := startTmux(t, size[0], size[1], homeEnv(home, "TERM=xterm-256color", "NO_COLOR=1"), bin, "--demo")
			s.waitText("rt-t4demo7k2p")
			s.keys("Down")
			// l acts on what is on screen: the details list the job first.
			s.waitFor("the T4 runtime's jobs in its details", waitTimeout, func(scr string) bool {
				return strings.Contains(scr, "DETAILS · rt-t4demo7k2p") && strings.Contains(scr, "train-demo01")
			})
			s.keys("l")
			scr := s.waitFor("the job's log, following", waitTimeout, func(scr string) bool {
				return strings.Contains(scr, "LOG · job train-demo01 on rt-t4demo7k2p · running") && shownLines(scr) > 0
			})
			first := shownLines(scr)
			scr = s.waitFor(fmt.Sprintf("the log growing past %d lines", first), waitTimeout, func(scr string) bool {
				return shownLines(scr) > first+1
			})
			// The newest complete epoch is on screen: the view follows.
			n := shownLines(scr)
			epochs := regexp.MustCompile(`epoch ([0-9]+)/300`).FindAllStringSubmatch(scr, -1)
			if len(epochs) == 0 {
				t.Fatalf("no epoch line on screen:\n%s", scr)
			}
			last, _ := strconv.Atoi(epochs[len(epochs)-1][1])
			if last < n-3 {
				t.Fatalf("the log has %d lines but the screen ends at epoch %d: not following\n%s", n, last, scr)
			}
		})
	}
}

// The dashboard in tmux at 80x24 and 200x50 against the emulator whose
// runtimes front a real jupyter-server: l on a session follows its
// kernel's output, and a cell another client runs there (colabdash exec
// in that session) appears while it runs, its stderr too.
func TestKernelLogShowsAnotherClientsCellInTmux(t *testing.T) {
	bin := needBinary(t)
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			e := clitest.StartRealServer(t)
			if code, out, errs := e.Run("create", "--spec", "CPU"); code != 0 {
				t.Fatalf("create: exit %d %q %q", code, out, errs)
			}
			rt := e.Srv.Runtimes()[0].ID()
			code, _, errs := e.Run("exec", rt, "--keep", "-c", "print(1)")
			sessions := e.Srv.Sessions("runtimes/" + rt)
			if code != 0 || len(sessions) != 1 {
				t.Fatalf("exec --keep: exit %d, stderr %q, sessions %v", code, errs, sessions)
			}
			session := sessions[0].ID()
			s := startTmux(t, size[0], size[1], append([]string{"TERM=xterm-256color"}, e.Env...), append([]string{bin}, e.Flags...)...)
			s.waitText(session)
			s.keys("Tab", "l") // the sessions panel, its selected session's kernel
			s.waitText("LOG · kernel " + session)
			s.waitText("output from before attaching is not available")
			cell := e.Command("exec", rt+"/"+session, "-c",
				"import sys, time\nfor i in range(3):\n    print('from another client', i, flush=True)\n    time.sleep(0.5)\nprint('to stderr', file=sys.stderr)\n")
			if err := cell.Start(); err != nil {
				t.Fatal(err)
			}
			s.waitText("from another client 0")
			s.waitText("from another client 2")
			s.waitText("to stderr")
			if code := waitExit(t, "exec in the session", cell); code != 0 {
				t.Errorf("exec in the session: exit %d", code)
			}
		})
	}
}
