package ui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

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
		// One age, the row's and the line's, and no guess at why it went.
		age := regexp.MustCompile(`GONE +(\S+ ago)`).FindStringSubmatch(v)
		if age == nil || !strings.Contains(v, "r-echo is gone (deleted elsewhere or reclaimed, "+age[1]+")") || strings.Contains(v, "seen ") {
			t.Fatalf("%s: %s", k, v)
		}
		if strings.Contains(v, "no runtime") {
			t.Fatalf("%s: %s", k, v)
		}
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
		if v := ansi.Strip(m.View()); !row("r-29") || strings.Count(v, "+ new runtime") != i+1 || !strings.Contains(v, fmt.Sprintf("· %d–30\n", first)) {
			t.Fatalf("with %d creates in progress the selected r-29, a create row or the range in the title is wrong:\n%s", i+1, v)
		}
	}
	// Moving up from the bottom moves the cursor, not the window.
	m, _ = update(m, keyMsg("k"))
	if !row("r-28") || !row("r-29") {
		t.Fatalf("after k the rows around the selection are off screen:\n%s", m.View())
	}
}
