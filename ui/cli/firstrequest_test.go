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
	"github.com/colabdash/colabdash/ui/theme"
)

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
	cmd.Env = append(os.Environ(), append([]string{"CI=", "TERM=xterm-256color", "COLORFGBG=",
		"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"), "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}, env...)...)
	start := time.Now()
	ptm, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 30, Cols: 120})
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
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := binary(t)
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
