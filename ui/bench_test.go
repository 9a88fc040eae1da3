package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
)

func benchModel(b *testing.B, n int) Model {
	f := newFake()
	specs := []api.RuntimeSpecKey{specT4, specCPU, specTPU, specA100}
	for i := 0; i < n; i++ {
		f.runtimes = append(f.runtimes, mkRuntime(fmt.Sprintf("r-%05d", i), specs[i%4], t0.Add(time.Duration(i%90)*time.Minute-5*time.Minute), ""))
	}
	f.sessions["runtimes/r-00000"] = []api.Session{{Name: "runtimes/r-00000/sessions/colabdash-1"}}
	clk := &clock{t: t0}
	m := testModel(f, clk)
	m, _ = update(m, tea.WindowSizeMsg{Width: 160, Height: 48})
	m, _ = run(b, m, m.Init())
	if len(m.rt.Rows()) != n {
		b.Fatalf("%d rows", len(m.rt.Rows()))
	}
	m, _ = update(m, keyMsg("enter"))
	return m
}

// BenchmarkView renders one 160×48 frame with 10, 100 and 1,000 runtimes.
// Cost follows the visible rows, not the list.
func BenchmarkView(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("runtimes=%d", n), func(b *testing.B) {
			m := benchModel(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if v := m.View(); !strings.Contains(v, "r-00000") {
					b.Fatal("missing row")
				}
			}
		})
	}
}

// BenchmarkTick is one tick (countdowns, refresh and renewal checks) with
// 1,000 runtimes, outside View.
func BenchmarkTick(b *testing.B) {
	m := benchModel(b, 1000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		mm := m
		mm.calls.pending = map[callKey]pendingCall{}
		mm.calls.renew = state.NewRenewals(m.opts.RenewLead)
		mm.calls.budget = state.NewCallBudget(m.opts.CallBudget, state.ReserveFor(m.opts.RefreshInterval))
		mm.onTick(t0)
	}
}

// BenchmarkFirstFrame renders the first frame of a model whose calls have
// not returned: Init only returns commands, View works on the empty
// snapshot.
func BenchmarkFirstFrame(b *testing.B) {
	f := newFake()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		m := testModel(f, &clock{t: t0})
		_ = m.Init()
		if !strings.Contains(m.View(), "loading runtimes") {
			b.Fatal("no loading state")
		}
	}
	if f.count("list_runtimes") != 0 {
		b.Fatal("an API call ran before the first frame")
	}
}
