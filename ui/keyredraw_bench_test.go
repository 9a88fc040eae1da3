//go:build unix

package ui

import (
	"bytes"
	"cmp"
	"context"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/creack/pty"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/paint"
)

// selectedRow finds the selected runtime's row as the renderer draws it.
var selectedRow = regexp.MustCompile(`›  (rt-[a-z0-9-]+)`)

// ptyScreen is what a program wrote to a pseudo-terminal, read as it
// comes, with a signal on every read.
type ptyScreen struct {
	mu   sync.Mutex
	out  []byte
	more chan struct{} // a non-blocking signal after each read
}

func (s *ptyScreen) read(ptm *os.File) {
	buf := make([]byte, 64<<10)
	for {
		n, err := ptm.Read(buf)
		s.mu.Lock()
		s.out = append(s.out, buf[:n]...)
		s.mu.Unlock()
		select {
		case s.more <- struct{}{}:
		default:
		}
		if err != nil {
			return
		}
	}
}

// since returns what was written from offset on, and the end.
func (s *ptyScreen) since(off int) ([]byte, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.out[off:]), len(s.out)
}

// waitSelected waits until the output from off on draws a selected row
// whose runtime ok accepts, and returns when that output was read and
// the runtime's name.
func (s *ptyScreen) waitSelected(tb testing.TB, off int, ok func(name string) bool) (time.Time, string) {
	deadline := time.After(time.Minute)
	for {
		out, _ := s.since(off)
		for _, m := range selectedRow.FindAllSubmatch(out, -1) {
			if ok(string(m[1])) {
				return time.Now(), string(m[1])
			}
		}
		select {
		case <-s.more:
		case <-deadline:
			tb.Fatalf("the selection was not drawn where expected:\n%q", out)
		}
	}
}

// keyRedraw runs the real dashboard (Run's program and painter; with
// ticker, Bubble Tea's renderer at renderFPS instead) on a
// pseudo-terminal with the emulator's n runtimes, presses j and k in turn
// keys times at random moments (as a user does: at any phase of whatever
// the program does on its own), and returns each key's time from its
// write to the terminal to the redraw that shows the selection moved.
func keyRedraw(b *testing.B, srv *colabfake.Server, ep string, n, keys int, ticker bool) []float64 {
	ptm, tty, err := pty.Open()
	if err != nil {
		b.Skip("no pseudo-terminal here:", err)
	}
	defer ptm.Close()
	defer tty.Close()
	if err := pty.Setsize(ptm, &pty.Winsize{Rows: 40, Cols: 160}); err != nil {
		b.Fatal(err)
	}
	scr := &ptyScreen{more: make(chan struct{}, 1)}
	go scr.read(ptm)
	loaded := srv.CallCount("list_sessions") + n
	s := newStackAt(b, srv, ep, stackOpts{realTime: true})
	var painter *paint.Painter
	if !ticker {
		painter = paint.New(tty, tty)
	}
	p := newProgram(New(s.m.opts), painter, tea.WithInput(tty), tea.WithOutput(tty), tea.WithoutSignalHandler())
	done := make(chan tea.Model, 1)
	go func() { fm, _ := runProgram(p, painter); done <- fm }()
	defer func() { p.Quit(); (<-done).(Model).life.cancel(); s.close() }()
	// The first load, every runtime's sessions, and a second to settle.
	for deadline := time.Now().Add(2 * time.Minute); srv.CallCount("list_sessions") < loaded; {
		if time.Now().After(deadline) {
			b.Fatalf("first load: %d list_sessions", srv.CallCount("list_sessions"))
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(time.Second)
	out, off := scr.since(0)
	ms := selectedRow.FindAllSubmatch(out, -1)
	if len(ms) == 0 {
		b.Fatalf("no selected runtime on screen:\n%q", out)
	}
	names := [2]string{string(ms[len(ms)-1][1]), ""} // k's and j's
	var took []float64
	for i := range keys {
		// A user's key comes at any moment (within the 50 ms frame
		// Bubble Tea's renderer had at 20 frames a second).
		time.Sleep(time.Duration(rand.Int64N(int64(50 * time.Millisecond))))
		key, want := "j", names[1]
		if i%2 == 1 {
			key, want = "k", names[0]
		}
		_, off = scr.since(0)
		t0 := time.Now()
		if _, err := ptm.WriteString(key); err != nil {
			b.Fatal(err)
		}
		at, got := scr.waitSelected(b, off, func(name string) bool {
			if want == "" { // the row below the first, learnt from the first j
				return name != names[0]
			}
			return name == want
		})
		names[1] = cmp.Or(names[1], got)
		took = append(took, float64(at.Sub(t0))/float64(time.Millisecond))
	}
	return took
}

// BenchmarkKeyRedraw times a key's redraw on a pseudo-terminal at 1,000
// runtimes: from j or k written to the terminal until it shows the
// selection moved, 40 keys at random moments in two programs (key-ms, the
// median; p90-ms). Beside it, the same with Bubble Tea's renderer at
// renderFPS, which draws on its own ticker, so that a key waits half a
// frame on average (ticker-ms); x-ticker is key-ms over ticker-ms: load
// slows both programs' work alike, but only the ticker adds its wait.
func BenchmarkKeyRedraw(b *testing.B) {
	const n = 1000
	srv, ep, err := colabfake.Start(context.Background(), "127.0.0.1:0", colabfake.Options{RuntimeLimit: -1, Runtimes: n})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	var took, ticked []float64
	for b.Loop() {
		for range 2 {
			took = append(took, keyRedraw(b, srv, ep, n, 20, false)...)
			ticked = append(ticked, keyRedraw(b, srv, ep, n, 20, true)...)
		}
	}
	slices.Sort(took)
	slices.Sort(ticked)
	med, tmed := took[len(took)/2], ticked[len(ticked)/2]
	b.ReportMetric(med, "key-ms")
	b.ReportMetric(took[len(took)*9/10], "p90-ms")
	b.ReportMetric(tmed, "ticker-ms")
	b.ReportMetric(med/tmed, "x-ticker")
	b.ReportMetric(0, "ns/op")
}
