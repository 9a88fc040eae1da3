package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/api/secrettest"
)

// enter answers visibly in every layout: split layouts of 100–125
// columns widen the details too (the default 100×30 frame is unchanged
// until enter), and a tall stacked screen that already shows every
// detail says so.
func TestEnterIsVisibleInEveryLayout(t *testing.T) {
	_, _, m := fixture(t)
	// Each layout's edges: stacked below 100, split 100–125 (sessions no
	// wider than a session id), split beyond.
	for _, w := range []int{MinWidth, 79, 80, 99, 100, 112, 125, 126, 160, 200} {
		for _, h := range []int{MinHeight, 24, 30, 45} {
			m.scr.showDetails, m.cx.Status.Text = false, ""
			m, _ = update(m, tea.WindowSizeMsg{Width: w, Height: h})
			before := m.View()
			m, _ = update(m, keyMsg("enter"))
			after := m.View()
			if before == after {
				t.Fatalf("%dx%d: enter changed nothing on screen:\n%s", w, h, after)
			}
			if !m.scr.showDetails && !strings.Contains(after, "the details show every line at this size already") {
				t.Fatalf("%dx%d: details not expanded and nothing said", w, h)
			}
		}
	}
	// 110×30, split: the sessions panel gives width to the details.
	m.scr.showDetails = false
	m, _ = update(m, tea.WindowSizeMsg{Width: 110, Height: 30})
	sep := func(v string) int { return strings.Index(strings.Split(v, "\n")[18], "│") }
	before := sep(m.View())
	m, _ = update(m, keyMsg("enter"))
	if after := sep(m.View()); after >= before || !m.scr.showDetails {
		t.Fatalf("110×30: the details did not widen (separator %d → %d)", before, after)
	}
}

// Every size the dashboard lays out: expanding the details changes the
// layout, except on a stacked screen whose details already have every
// line (where enter says so instead).
func TestExpandedLayoutDiffersWhereThereIsMoreToShow(t *testing.T) {
	for _, monitoring := range []bool{false, true} {
		for w := MinWidth; w <= 260; w++ {
			for h, rows := MinHeight, 0; h <= 80; h, rows = h+1, (rows+7)%60 {
				l, x := newLayout(w, h, rows, false, monitoring), newLayout(w, h, rows, true, monitoring)
				if l != x {
					continue
				}
				if l.Split || l.BottomRows+1-l.SessLines < detailsHeight(monitoring) {
					t.Fatalf("%dx%d (monitoring %v): expanding changes nothing though the details lack room: %+v", w, h, monitoring, l)
				}
			}
		}
	}
}

// The v key reveals the token where the details are, without
// expanding them or moving anything else on the screen.
func TestRevealKeepsTheLayout(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {60, 15}, {160, 48}} {
		_, _, m := fixture(t)
		m, _ = update(m, tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		before := strings.Split(m.View(), "\n")
		m, _ = update(m, keyMsg("v"))
		after := strings.Split(m.View(), "\n")
		if m.scr.showDetails || len(after) != len(before) {
			t.Fatalf("%v: v expanded the details or changed the height", sz)
		}
		if !strings.Contains(strings.Join(after, "\n"), secrettest.Token("r-alpha")) {
			t.Fatalf("%v: the token is not shown:\n%s", sz, strings.Join(after, "\n"))
		}
		for i := range before {
			// Only the details' lines and the status line may change.
			if before[i] != after[i] && !strings.Contains(after[i], "token") && !strings.Contains(after[i], "revealed") &&
				!strings.Contains(before[i], "spec ") && !strings.Contains(before[i], "expires") && !strings.Contains(before[i], "url ") {
				t.Fatalf("%v: line %d moved:\n%q\n%q", sz, i, before[i], after[i])
			}
		}
		if strings.Index(strings.Join(after, "\n"), "SESSIONS ·") != strings.Index(strings.Join(before, "\n"), "SESSIONS ·") {
			t.Fatalf("%v: the sessions panel moved", sz)
		}
	}
}

// The sessions panel is on screen at every size the dashboard lays out,
// with the details expanded or not, focused or not.
func TestSessionsPanelAtEveryWidth(t *testing.T) {
	_, _, m := fixture(t)
	for w := MinWidth; w <= 200; w += 7 {
		for h := MinHeight; h <= 50; h += 5 {
			for _, expand := range []bool{false, true} {
				m.scr.showDetails = expand
				m, _ = update(m, tea.WindowSizeMsg{Width: w, Height: h})
				if v := m.View(); !strings.Contains(v, "SESSIONS · r-alpha") || !strings.Contains(v, "colabdash-1a2b") {
					t.Fatalf("%dx%d expanded=%v: no sessions panel:\n%s", w, h, expand, v)
				}
			}
		}
	}
}
