package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/colabfaketest"
)

// display returns a tmux format (e.g. "#{pane_title}") for the session.
func (s *tmuxSession) display(format string) string {
	s.t.Helper()
	return strings.TrimSpace(s.tmux("display-message", "-p", "-t", s.name, format))
}

// TestHostileSeedInTmux is end to end: the dashboard on the
// hostile emulator seed in a real terminal neither writes the clipboard
// (OSC 52), nor retitles the pane (OSC 0), nor clears the screen, nor
// draws a line wider than the terminal; a paste of "a1" ESC "]0;T" BEL CR
// "00" into the filter leaves "a100" and the title alone.
func TestHostileSeedInTmux(t *testing.T) {
	home := isolate(t)
	bin := binary(t)
	_, endpoint := colabfaketest.Start(t, colabfake.Options{Seed: colabfake.SeedHostile})
	tokenFile := writeFile(t, filepath.Join(home, "token.txt"), "fake\n")
	s := startTmux(t, 100, 30, homeEnv(home),
		bin, "--endpoint", endpoint, "--access-token-file", tokenFile)
	// Let applications write the tmux clipboard, as a terminal that
	// honours OSC 52 would. The payload would be drawn again every frame.
	s.tmux("set-option", "-s", "set-clipboard", "on")
	title := s.display("#{pane_title}")

	scr := s.waitText("rt-clip␛]52;c;aGFja2Vk␇board")
	// Wait for a later frame (the countdowns tick every second).
	s.waitFor("a later frame", waitTimeout, func(next string) bool { return next != scr })
	scr = s.waitText("SESSIONS")
	if bufs := s.tmux("list-buffers"); strings.TrimSpace(bufs) != "" {
		t.Errorf("the server wrote the clipboard: %q", bufs)
	}
	if got := s.display("#{pane_title}"); got != title || strings.Contains(got, "pwned") {
		t.Errorf("the server retitled the pane: %q (was %q)", got, title)
	}
	for _, want := range []string{"colabdash", "RUNTIMES 3", "rt-xxxx"} {
		if !strings.Contains(scr, want) {
			t.Errorf("screen lacks %q (cleared?):\n%s", want, scr)
		}
	}
	for i, line := range strings.Split(scr, "\n") {
		if w := ansi.StringWidth(line); w > 100 {
			t.Errorf("line %d is %d cells wide:\n%s", i, w, line)
		}
	}

	// Case 32b: a bracketed paste into the filter.
	s.keys("/")
	s.waitText("enter apply")
	s.tmux("set-buffer", "-b", "p", "a1\x1b]0;T\x07\r00")
	s.tmux("paste-buffer", "-p", "-d", "-b", "p", "-t", s.name)
	s.waitText("/a100█")
	if got := s.display("#{pane_title}"); got != title {
		t.Errorf("the paste retitled the pane: %q", got)
	}
}

// TestSIGHUPGivesTheTerminalBack is: SIGHUP (window
// closed, ssh dropped) leaves the alternate screen and shows the cursor
// again, as SIGTERM and q do.
func TestSIGHUPGivesTheTerminalBack(t *testing.T) {
	home := isolate(t)
	bin := binary(t)
	s := startTmux(t, 100, 30, homeEnv(home), bin, "--demo")
	s.tmux("set-option", "-w", "-t", s.name, "remain-on-exit", "on") // keep the pane to inspect it
	raw := filepath.Join(home, "pane.raw")
	s.tmux("pipe-pane", "-o", "-t", s.name, "cat >> "+raw) // what the program writes, from now on
	s.waitText("rt-t4demo7k2p")
	if got := s.display("#{alternate_on}"); got != "1" {
		t.Fatalf("dashboard running: alternate_on = %q, want 1", got)
	}
	pid := processOf(t, s.display("#{pane_pid}"), bin)
	if err := syscall.Kill(pid, syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	s.waitFor("the dashboard to exit", waitTimeout, func(string) bool { return s.display("#{pane_dead}") == "1" })
	if got := s.display("#{alternate_on}"); got != "0" {
		t.Errorf("after SIGHUP the pane is still in the alternate screen (alternate_on %q):\n%s", got, s.screen())
	}
	// The modes Bubble Tea set are reset: bracketed paste off, cursor
	// shown, alternate screen off, in what the program wrote last.
	var tail string
	s.waitFor("the restore sequences in the pane output", waitTimeout, func(string) bool {
		b, _ := os.ReadFile(raw)
		tail = string(b)
		if i := strings.LastIndex(tail, "\x1b[?1049h"); i >= 0 {
			tail = tail[i:]
		}
		return strings.Contains(tail, "\x1b[?1049l")
	})
	for _, seq := range []string{"\x1b[?2004l", "\x1b[?25h", "\x1b[?1049l"} {
		if !strings.Contains(tail, seq) {
			t.Errorf("after SIGHUP the program did not write %q; its output ends %q", seq, tail[max(0, len(tail)-200):])
		}
	}
}

// processOf finds the process running bin: pid itself or a descendant (the
// pane's shell may fork it rather than exec it).
func processOf(t *testing.T, pid, bin string) int {
	t.Helper()
	want, _ := filepath.EvalSymlinks(bin)
	queue := []string{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if exe, err := os.Readlink("/proc/" + p + "/exe"); err == nil && exe == want {
			n, _ := strconv.Atoi(p)
			return n
		}
		if kids, err := os.ReadFile("/proc/" + p + "/task/" + p + "/children"); err == nil {
			queue = append(queue, strings.Fields(string(kids))...)
		}
	}
	t.Fatalf("no process of %s under pid %s", bin, pid)
	return 0
}
