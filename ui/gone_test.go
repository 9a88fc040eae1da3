package ui

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/api/colabfake"
)

// A runtime the user deleted leaves the list at once, even when a list
// that raced the delete still has it; the header count follows.
func TestDeletedRuntimeLeavesTheList(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	mustContain(t, m.View(), "RUNTIMES 3 ")
	// A refresh sent before the delete answers after it.
	m, late := update(m, keyMsg("r"))
	m = e.press(t, m, "d", "y")
	m = drive(t, m, late)
	v := m.View()
	mustContain(t, v, "✓ deleted rt-t4demo7k2p", "RUNTIMES 2 ")
	for _, r := range m.rt.Rows() {
		if r.ID() == "rt-t4demo7k2p" {
			t.Fatal("deleted runtime still listed")
		}
	}
	if strings.Contains(v, "rt-t4demo7k2p  ") || strings.Contains(v, "gone") || m.Selected() == "runtimes/rt-t4demo7k2p" {
		t.Fatalf("deleted runtime still shown or selected:\n%s", v)
	}
}

// A runtime Colab reclaimed stays listed as gone but is not counted as a
// runtime, and actions on it say it is gone, not "no runtime selected".
func TestGoneRowCountedApartAndActionsSayGone(t *testing.T) {
	_, clk, m := fixture(t)
	m, _ = update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	mustContain(t, m.View(), "RUNTIMES 4 · 1 gone")
	m, _ = update(m, keyMsg("G"))
	if m.Selected() != "runtimes/r-echo" {
		t.Fatalf("selected %q", m.Selected())
	}
	for _, k := range []string{"d", "o", "e", "y", "R"} {
		clk.add(time.Second)
		m, _ = update(m, keyMsg(k))
		m.scr.stack = nil
		v := m.View()
		mustContain(t, v, "r-echo is gone (reclaimed")
		if strings.Contains(v, "no runtime") {
			t.Fatalf("%s: %s", k, v)
		}
	}
}

// At 100 columns every row kind keeps the name in the same column and its
// status word whole: a failed renewal, a gone runtime, a create in
// progress (which shows the requested id, or what it creates).
func TestRowColumnsAlignedAt100(t *testing.T) {
	_, clk, m := fixture(t)
	m, _ = update(m, tea.WindowSizeMsg{Width: 100, Height: 30})
	m.cx.Snap.ApplyRenewError(clk.now(), "runtimes/r-bravo", errors.New("backend unavailable"))
	m.calls.renew.Started("runtimes/r-bravo", clk.now())
	m.calls.renew.Done("runtimes/r-bravo", clk.now(), time.Time{}, time.Time{}, errors.New("backend unavailable"))
	m.cr.creates = []*createOp{
		{id: 1, spec: specA100, runtimeID: "my-a100", started: clk.now().Add(-time.Second)},
		{id: 2, spec: specA100, started: clk.now().Add(-time.Second)},
	}
	m.rt.Invalidate()
	m, _ = update(m, tickMsg{gen: m.life.tickGen + 1}) // a stale tick: only re-syncs
	v := ansi.Strip(m.View())
	col := func(name string) int {
		for _, ln := range strings.Split(v, "\n") {
			if i := strings.Index(ln, name); i >= 0 {
				return ansi.StringWidth(ln[:i])
			}
		}
		t.Fatalf("no %q in\n%s", name, v)
		return -1
	}
	want := col("r-alpha")
	for _, n := range []string{"r-bravo", "r-echo", "my-a100", "creating GPU/A100/HIGHMEM", "NAME"} {
		if got := col(n); got != want {
			t.Errorf("%s starts at column %d, want %d:\n%s", n, got, want, v)
		}
	}
	mustContain(t, v, "! r-bravo", "RENEW FAILED\n", "GONE seen 2m ago\n", "creating… 0:01")
	if strings.Contains(v, "…\n") {
		t.Fatalf("a row is cut:\n%s", v)
	}
}

// The selected runtime stays on screen when creates in progress take rows
// above it: the table scrolls, it does not push the selection out.
func TestSelectionVisibleUnderCreateRows(t *testing.T) {
	f := newFake()
	for i := range 30 {
		f.runtimes = append(f.runtimes, mkRuntime(fmt.Sprintf("r-%02d", i), specT4, t0.Add(time.Hour), ""))
	}
	clk := &clock{t: t0}
	m := testModel(f, clk)
	m, _ = update(m, tea.WindowSizeMsg{Width: 100, Height: 30})
	m, _ = run(t, m, m.Init())
	row := func(id string) bool { // the runtime's table row is on screen
		return regexp.MustCompile(`(?m)^.{0,6}` + id + ` +GPU/T4`).MatchString(ansi.Strip(m.View()))
	}
	for range 29 {
		m, _ = update(m, keyMsg("j"))
	}
	if !row("r-29") {
		t.Fatalf("the last runtime is not on screen after moving to it:\n%s", m.View())
	}
	type nothing struct{}
	for i := range 3 {
		m.cr.creates = append(m.cr.creates, &createOp{id: i + 1, spec: specA100, started: clk.now()})
		m, _ = update(m, nothing{})
		first := 30 - (m.cx.Layout.TableRows - (i + 1)) + 1 // the runtime rows left end at the 30th
		if v := ansi.Strip(m.View()); !row("r-29") || strings.Count(v, "creating GPU/A100/HIGHMEM") != i+1 || !strings.Contains(v, fmt.Sprintf("· %d–30\n", first)) {
			t.Fatalf("with %d creates in progress the selected r-29, a create row or the range in the title is wrong:\n%s", i+1, v)
		}
	}
	// Moving up from the bottom moves the cursor, not the window.
	m, _ = update(m, keyMsg("k"))
	if !row("r-28") || !row("r-29") {
		t.Fatalf("after k the rows around the selection are off screen:\n%s", m.View())
	}
}
