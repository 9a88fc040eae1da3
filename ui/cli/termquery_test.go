//go:build unix

package cli

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/testkit"
	"github.com/colabdash/colabdash/ui/theme"
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
	out  testkit.SyncBuffer
	read chan struct{} // closed when the terminal side reads EOF
}

// startOnSilentTerminal starts cmd on a 120×30 pseudo-terminal, outside
// CI, as an xterm that says nothing of its colours, with env over that;
// it returns the terminal's side (the caller reads and closes it), or the
// error when no pseudo-terminal is to be had.
func startOnSilentTerminal(cmd *exec.Cmd, env []string) (*os.File, error) {
	cmd.Env = append(os.Environ(), append([]string{"CI=", "TERM=xterm-256color", "COLORFGBG="}, env...)...)
	return pty.StartWithSize(cmd, &pty.Winsize{Rows: 30, Cols: 120})
}

func startSilent(t *testing.T, env []string, bin string, args ...string) *silentTTY {
	t.Helper()
	cmd := exec.Command(bin, args...)
	ptm, err := startOnSilentTerminal(cmd, env)
	if err != nil {
		t.Skip("no pseudo-terminal here:", err)
	}
	s := &silentTTY{cmd: cmd, ptm: ptm, read: make(chan struct{})}
	go func() {
		defer close(s.read)
		buf := make([]byte, 4096)
		for {
			n, err := ptm.Read(buf)
			s.out.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait(); ptm.Close() })
	return s
}

func (s *silentTTY) output() string { return s.out.String() }

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
	bin := needBinary(t)
	e := demoVerbEnv(t)
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
	bin := needBinary(t)
	e := demoVerbEnv(t)
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

// dashboardStart is one start of the real dashboard on a pseudo-terminal
// that never answers, against an emulator that notes when its first
// request arrives.
type dashboardStart struct {
	firstRequest time.Duration // from the process's start to the emulator's first request
	query        time.Duration // from the start to the background query showing on the terminal; <0: never asked
}

// startDashboardSilent starts bin (the dashboard, theme auto) on a silent
// terminal with env, waits for the emulator's first request, then ends
// the process. ok is false when no pseudo-terminal is to be had.
func startDashboardSilent(tb testing.TB, bin string, env []string) (_ dashboardStart, ok bool) {
	tb.Helper()
	home := isolate(tb)
	first := make(chan time.Time, 1)
	var once sync.Once
	srv, endpoint, err := colabfake.Start(context.Background(), "127.0.0.1:0", colabfake.Options{
		Seed:      colabfake.SeedDemo,
		OnRequest: func(*http.Request) { once.Do(func() { first <- time.Now() }) },
	})
	if err != nil {
		tb.Fatal(err)
	}
	defer srv.Close()
	tok := filepath.Join(home, "token.txt")
	if err := os.WriteFile(tok, []byte(verbTestToken+"\n"), 0o600); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(bin, "--endpoint", endpoint, "--access-token-file", tok)
	start := time.Now()
	ptm, err := startOnSilentTerminal(cmd, append([]string{"HOME=" + home,
		"XDG_STATE_HOME=" + filepath.Join(home, "state"), "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}, env...))
	if err != nil {
		return dashboardStart{}, false
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); ptm.Close() }()
	asked := make(chan time.Time, 1)
	go func() { // the terminal: it reads everything and answers nothing
		var seen strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := ptm.Read(buf)
			seen.Write(buf[:n])
			if strings.Contains(seen.String(), queryBackground) {
				asked <- time.Now()
				_, _ = io.Copy(io.Discard, ptm) // keep draining: a full pty would block the program
				return
			}
			if err != nil {
				return
			}
		}
	}()
	r := dashboardStart{query: -1}
	select {
	case at := <-first:
		r.firstRequest = at.Sub(start)
	case <-time.After(waitTimeout):
		tb.Fatal("the dashboard sent the emulator nothing")
	}
	select {
	case at := <-asked:
		r.query = at.Sub(start)
	default:
	}
	return r, true
}

// The dashboard asks Colab for its data while it waits for the terminal
// to tell its background colour (the theme): on a terminal that never
// answers, the first request reaches the emulator before that wait
// (theme.DetectTimeout) is over, not after it. Of three starts the best
// counts, so a busy machine's stall is not taken for the wait.
func TestDashboardAsksColabWhileTheTerminalIsQueried(t *testing.T) {
	bin := needBinary(t)
	var best time.Duration = -1
	for range 3 {
		r, ok := startDashboardSilent(t, bin, []string{"NO_COLOR="})
		if !ok {
			t.Skip("no pseudo-terminal here")
		}
		if r.query < 0 {
			// The request came before the query was even seen: as early as can be.
			best = 0
			break
		}
		if d := r.firstRequest - r.query; best < 0 || d < best {
			best = d
		}
	}
	if best >= theme.DetectTimeout {
		t.Errorf("the first request came %v after the theme query, want it before the query's wait (%v) ends", best, theme.DetectTimeout)
	}
}

// BenchmarkDashboardFirstRequest times the real dashboard's start to its
// first request on a terminal that never answers, theme auto (the
// terminal is asked for its background and waited for up to
// theme.DetectTimeout), each run paired with a run that asks nothing
// (NO_COLOR=1), in turn: x-nocolor is the median of the pairs' ratios, 1
// when nothing waits for the terminal (the wait alone made it about 10
// quiet). first-req-ms and nocolor-ms are the medians of each (reported).
func BenchmarkDashboardFirstRequest(b *testing.B) {
	bin := binary(b)
	var auto, plain, ratios []float64
	for b.Loop() {
		for range 5 {
			a, ok := startDashboardSilent(b, bin, []string{"NO_COLOR="})
			if !ok {
				b.Skip("no pseudo-terminal here")
			}
			p, _ := startDashboardSilent(b, bin, []string{"NO_COLOR=1"})
			auto = append(auto, ms(a.firstRequest))
			plain = append(plain, ms(p.firstRequest))
			ratios = append(ratios, float64(a.firstRequest)/float64(p.firstRequest))
		}
	}
	b.ReportMetric(medianOf(auto), "first-req-ms")
	b.ReportMetric(medianOf(plain), "nocolor-ms")
	b.ReportMetric(medianOf(ratios), "x-nocolor")
	b.ReportMetric(0, "ns/op")
}

// TestColourOnATerminalAndAPipe runs `specs` (which dims the runtime specs
// the tier may not use) on a pseudo-terminal and on a pipe under each of
// gh's colour rules: a terminal has colour unless NO_COLOR or CLICOLOR=0,
// a pipe has none unless CLICOLOR_FORCE; --color always and never win
// over the environment.
func TestColourOnATerminalAndAPipe(t *testing.T) {
	bin := needBinary(t)
	e := demoVerbEnv(t)
	const dim = "\x1b[2m"
	cases := []struct {
		name          string
		env, flags    []string
		onTTY, onPipe bool
	}{
		{"default", nil, nil, true, false},
		{"NO_COLOR", []string{"NO_COLOR=1"}, nil, false, false},
		{"CLICOLOR=0", []string{"CLICOLOR=0"}, nil, false, false},
		{"CLICOLOR_FORCE=1", []string{"CLICOLOR_FORCE=1"}, nil, true, true},
		{"CLICOLOR_FORCE=0", []string{"CLICOLOR_FORCE=0"}, nil, true, false},
		{"--color never", []string{"CLICOLOR_FORCE=1"}, []string{"--color", "never"}, false, false},
		{"--color always", []string{"NO_COLOR=1", "CLICOLOR=0"}, []string{"--color=always"}, true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := append([]string{"HOME=" + e.home, "NO_COLOR=", "CLICOLOR=", "CLICOLOR_FORCE="}, c.env...)
			args := append(append([]string{"specs"}, c.flags...), e.flags...)
			s := startSilent(t, env, bin, args...)
			if err := s.cmd.Wait(); err != nil {
				t.Fatalf("on a terminal: %v\n%q", err, s.output())
			}
			<-s.read
			if got := strings.Contains(s.output(), dim); got != c.onTTY {
				t.Errorf("on a terminal: colour %v, want %v:\n%q", got, c.onTTY, s.output())
			}
			cmd := exec.Command(bin, args...)
			cmd.Env = append(os.Environ(), env...)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("on a pipe: %v\n%q", err, out)
			}
			if !strings.Contains(string(out), "TPU/V6E1/HIGHMEM") {
				t.Fatalf("on a pipe: no ineligible spec listed:\n%q", out)
			}
			if got := strings.Contains(string(out), dim); got != c.onPipe {
				t.Errorf("on a pipe: colour %v, want %v:\n%q", got, c.onPipe, out)
			}
		})
	}
}
