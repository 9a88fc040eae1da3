package ui

import (
	"bytes"
	"context"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/paint"
)

var realClockFor = flag.Duration("realclock", 0, "run TestIdleCallsRealClock for this long (real time; .ci/run: 10m); 0 skips it")

// arrivals records when each MCP tools/call request reaches the server,
// in front of the emulator's handler.
type arrivals struct {
	next http.Handler
	mu   sync.Mutex
	at   []time.Time
}

func (a *arrivals) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err == nil && bytes.Contains(body, []byte(`"tools/call"`)) {
		a.mu.Lock()
		a.at = append(a.at, now)
		a.mu.Unlock()
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	a.next.ServeHTTP(w, r)
}

// since returns the arrivals at or after t.
func (a *arrivals) since(t time.Time) []time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []time.Time
	for _, at := range a.at {
		if !at.Before(t) {
			out = append(out, at)
		}
	}
	return out
}

// mostInWindow is the most arrivals (sorted) within any w, both ends
// included, and where that window starts.
func mostInWindow(at []time.Time, w time.Duration) (most int, from time.Time) {
	j := 0
	for i := range at {
		for at[i].Sub(at[j]) > w {
			j++
		}
		if i-j+1 > most {
			most, from = i-j+1, at[j]
		}
	}
	return most, from
}

// TestIdleCallsRealClock runs the real tea.Program (real ticks, the real
// clock) on 1,000 runtimes whose proxy tokens live 2 minutes (emulator
// --runtimes 1000 --token-ttl 2m: far more renewals due than the budget
// allows), idle for -realclock after the first load, and counts every
// tools/call at the server by its arrival time: no 60 s window, both ends
// included, may hold more than state.DefaultCallBudget. Skipped unless
// -realclock is set (.ci/run runs it for 10 minutes in the background,
// beside the race suite: it sleeps, about 1 % of a core).
func TestIdleCallsRealClock(t *testing.T) {
	if *realClockFor <= 0 {
		t.Skip("real time: run with -realclock=10m")
	}
	const n = 1000
	srv, _, err := colabfake.Start(context.Background(), "127.0.0.1:0", colabfake.Options{RuntimeLimit: -1, Runtimes: n, TokenTTL: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	arr := &arrivals{next: srv.Handler()}
	hs := httptest.NewServer(arr)
	defer hs.Close()
	s := newStackAt(t, srv, hs.URL+"/mcp", stackOpts{realTime: true})
	painter := paint.New(nil, io.Discard)
	p := newProgram(New(s.m.opts), painter, tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithoutSignalHandler())
	done := make(chan tea.Model, 1)
	go func() { fm, _ := runProgram(p, painter); done <- fm }()
	p.Send(tea.WindowSizeMsg{Width: 120, Height: 40})
	for deadline := time.Now().Add(2 * time.Minute); srv.CallCount("list_sessions") < n; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("first load: %d list_sessions of %d", srv.CallCount("list_sessions"), n)
		}
	}
	// The first load (every runtime's sessions at once) is not budgeted:
	// count from the first call after it.
	loaded, renewed := time.Now(), srv.CallCount("get_runtime")
	time.Sleep(*realClockFor)
	p.Quit()
	fm := (<-done).(Model)
	fm.life.cancel()
	s.close()

	at := arr.since(loaded)
	most, from := mostInWindow(at, time.Minute)
	var perMinute []int
	for m := loaded; m.Add(time.Minute).Before(loaded.Add(*realClockFor)); m = m.Add(time.Minute) {
		c := 0
		for _, a := range at {
			if !a.Before(m) && a.Before(m.Add(time.Minute)) {
				c++
			}
		}
		perMinute = append(perMinute, c)
	}
	burst, _ := mostInWindow(at, time.Second)
	t.Logf("%v idle with %d runtimes, 2-minute tokens: %d calls, %d renewals; at most %d in any 60 s (ends included; budget %d), %d in any second; each whole minute %v",
		*realClockFor, n, len(at), srv.CallCount("get_runtime")-renewed, most, state.DefaultCallBudget, burst, perMinute)
	if most > state.DefaultCallBudget {
		t.Errorf("%d calls arrived in the 60 s from %s, want at most %d", most, from.Sub(loaded).Round(time.Millisecond), state.DefaultCallBudget)
	}
	if len(at) < int(realClockFor.Minutes())*(state.DefaultCallBudget-4) {
		t.Errorf("%d calls in %v: the budget went unused", len(at), *realClockFor)
	}
}
