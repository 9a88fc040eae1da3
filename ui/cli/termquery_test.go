//go:build unix

package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/colabdash/colabdash/api/colabfake"
)

// The terminal queries termenv sends: the background colour
// (OSC 11) and the cursor-position report it follows with. A terminal that
// never answers (script(1), some IDE and serial terminals) made every
// invocation wait 5 s for them.
const (
	queryBackground = "\x1b]11;?"
	queryCursor     = "\x1b[6n"
)

// silentTTY is the binary running on a pseudo-terminal that never answers
// anything: what the program writes collects in out.
type silentTTY struct {
	cmd  *exec.Cmd
	ptm  *os.File
	mu   sync.Mutex
	out  bytes.Buffer
	read chan struct{} // closed when the terminal side reads EOF
}

func startSilent(t *testing.T, env []string, bin string, args ...string) *silentTTY {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), append([]string{"CI=", "TERM=xterm-256color", "COLORFGBG="}, env...)...)
	ptm, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 30, Cols: 120})
	if err != nil {
		t.Skip("no pseudo-terminal here:", err)
	}
	s := &silentTTY{cmd: cmd, ptm: ptm, read: make(chan struct{})}
	go func() {
		defer close(s.read)
		buf := make([]byte, 4096)
		for {
			n, err := ptm.Read(buf)
			s.mu.Lock()
			s.out.Write(buf[:n])
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait(); ptm.Close() })
	return s
}

func (s *silentTTY) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

// waitOutput waits (generously) until the program wrote want.
func (s *silentTTY) waitOutput(t *testing.T, want string) string {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for time.Now().Before(deadline) {
		if out := s.output(); strings.Contains(out, want) {
			return out
		}
		select {
		case <-s.read:
			if out := s.output(); !strings.Contains(out, want) {
				t.Fatalf("the program ended without writing %q:\n%q", want, out)
			}
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatalf("no %q in time:\n%q", want, s.output())
	return ""
}

// TestVerbsNeverQueryTheTerminal runs verbs on a terminal that never
// answers: none may ask it anything, so none waits for it.
func TestVerbsNeverQueryTheTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedDemo})
	bin := binary(t)
	local := writeFile(t, filepath.Join(e.home, "up.txt"), "hello\n")
	cases := [][]string{
		{"version"},
		{"--help"},
		append([]string{"status"}, e.flags...),
		append([]string{"cp", local, "rt-t4demo7k2p:/content/up.txt"}, e.flags...),
	}
	// A query waits 5 s for a silent terminal; a verb takes a fraction of
	// a second. Each verb runs twice (NO_COLOR unset and set) and the
	// faster run counts, so a busy machine does not make a stall of it.
	fastest := map[string]time.Duration{}
	for _, noColor := range []string{"", "1"} {
		for _, args := range cases {
			start := time.Now()
			s := startSilent(t, []string{"HOME=" + e.home, "NO_COLOR=" + noColor}, bin, args...)
			err := s.cmd.Wait()
			took := time.Since(start)
			<-s.read
			out := s.output()
			if err != nil {
				t.Fatalf("%v (NO_COLOR=%q): %v\n%q", args[0], noColor, err, out)
			}
			if strings.Contains(out, queryBackground) || strings.Contains(out, queryCursor) {
				t.Errorf("%v (NO_COLOR=%q) queried the terminal:\n%q", args[0], noColor, out)
			}
			if f, ok := fastest[args[0]]; !ok || took < f {
				fastest[args[0]] = took
			}
		}
	}
	for verb, took := range fastest {
		if took > time.Second {
			t.Errorf("%s took %v on a silent terminal, want well under a second", verb, took)
		}
	}
	if _, err := e.srv.ModTime("rt-t4demo7k2p", "/content/up.txt"); err != nil {
		t.Errorf("cp did not upload: %v", err)
	}
}

// TestDashboardQueriesOnlyForTheTheme: the dashboard asks for the
// background only when it must choose the theme itself, and a silent
// terminal delays it by a fraction of a second at most.
func TestDashboardQueriesOnlyForTheTheme(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedDemo})
	bin := binary(t)
	cases := []struct {
		name  string
		env   []string
		args  []string
		query bool
	}{
		{"NO_COLOR", []string{"NO_COLOR=1"}, nil, false},
		{"--theme", []string{"NO_COLOR="}, []string{"--theme", "light"}, false},
		{"COLORFGBG", []string{"NO_COLOR=", "COLORFGBG=15;0"}, nil, false},
		{"auto", []string{"NO_COLOR="}, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := startSilent(t, append([]string{"HOME=" + e.home}, c.env...), bin, append(c.args, e.flags...)...)
			out := s.waitOutput(t, "RUNTIMES")
			asked := strings.Contains(out, queryBackground)
			if asked != c.query {
				t.Errorf("asked for the background: %v, want %v:\n%q", asked, c.query, out)
			}
			if !c.query && strings.Contains(out, queryCursor) {
				t.Errorf("asked for the cursor position:\n%q", out)
			}
			if _, err := s.ptm.WriteString("q"); err != nil {
				t.Fatal(err)
			}
			if err := s.cmd.Wait(); err != nil {
				t.Fatalf("quit: %v", err)
			}
		})
	}
}
