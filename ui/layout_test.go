package ui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/secrettest"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common/commontest"
	helpov "github.com/colabdash/colabdash/ui/overlay/help"
	"github.com/muesli/termenv"
)

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

// sizes are the terminal sizes the layout cases try, from roomy to
// below the minimum.
var sizes = [][2]int{{60, 15}, {80, 24}, {160, 48}, {100, 30}, {61, 16}, {59, 15}, {60, 14}, {40, 10}, {20, 5}, {1, 1}, {120, 40}}

// TestLayoutAtEverySize lays out one fixture dashboard at size after size,
// each case from the dashboard as loaded (asLoaded checks it); the case
// that lists more runtimes comes last.
func TestLayoutAtEverySize(t *testing.T) {
	f, clk, shared := fixture(t)
	colour := New(Options{Service: f, Now: clk.now, Location: time.UTC}) // the control for noColorAndNoSecrets
	t.Run("resize relayout", func(t *testing.T) { resizeRelayout(t, asLoaded(t, shared)) })
	t.Run("enter is visible in every layout", func(t *testing.T) { enterIsVisibleInEveryLayout(t, asLoaded(t, shared)) })
	t.Run("sessions panel at every width", func(t *testing.T) { sessionsPanelAtEveryWidth(t, asLoaded(t, shared)) })
	t.Run("narrow terminals show the focused panel", func(t *testing.T) { narrowTerminalsShowTheFocusedPanel(t, shared) })
	t.Run("reveal keeps the layout", func(t *testing.T) { revealKeepsTheLayout(t, shared) })
	t.Run("no colour and no secrets", func(t *testing.T) { noColorAndNoSecrets(t, f, colour, asLoaded(t, shared)) })
	t.Run("no line wider than the terminal", func(t *testing.T) { noLineWiderThanTerminal(t, f, clk, asLoaded(t, shared)) })
}

// Resize 120×40 → 40×10 → 20×5 → 120×40 gives the same frame as a direct
// 120×40 (every panel re-laid out, nothing left over).
func resizeRelayout(t *testing.T, m Model) {
	m, _ = update(m, keyMsg("G"))
	m, _ = update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	want := m.View()
	for _, sz := range [][2]int{{40, 10}, {20, 5}, {120, 40}} {
		m, _ = update(m, tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
	}
	if got := m.View(); got != want {
		t.Fatalf("frame differs after resizes:\n%s\n---\n%s", got, want)
	}
	// A small table scrolls to keep the selection visible.
	m, _ = update(m, tea.WindowSizeMsg{Width: 60, Height: 15})
	if !strings.Contains(m.View(), "›  r-echo") {
		t.Fatalf("selected row not visible at 60x15:\n%s", m.View())
	}
}

// enter answers visibly in every layout: split layouts of 100–125
// columns widen the details too (the default 100×30 frame is unchanged
// until enter), and a tall stacked screen that already shows every
// detail says so.
func enterIsVisibleInEveryLayout(t *testing.T, m Model) {
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

// The sessions panel is on screen at every size the dashboard lays out,
// with the details expanded or not, focused or not.
func sessionsPanelAtEveryWidth(t *testing.T, m Model) {
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

// Below the split width the sessions panel is stacked above the details,
// so the focused panel is always on screen, also with the details expanded
// (enter, or v revealing the token).
func narrowTerminalsShowTheFocusedPanel(t *testing.T, shared Model) {
	for _, sz := range [][2]int{{80, 24}, {90, 30}, {60, 15}, {99, 20}} {
		for _, expand := range []bool{false, true} {
			m := asLoaded(t, shared)
			m, _ = update(m, tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			if expand {
				m, _ = update(m, keyMsg("enter"))
			}
			v := m.View()
			mustContain(t, v, "SESSIONS · r-alpha", "DETAILS · r-alpha", "expires")
			m, _ = update(m, keyMsg("tab"))
			v = m.View()
			mustContain(t, v, "▶ SESSIONS · r-alpha", "› colabdash-1a2b")
			m, _ = update(m, keyMsg("j"))
			v = m.View()
			// x acts on the session the user sees under the cursor.
			mustContain(t, v, "› 3f2c9a7e")
			if m.selectedSession() != "runtimes/r-alpha/sessions/3f2c9a7e-5d1b-4c1e-9a63-0c8f2d9e4b71" {
				t.Fatalf("%v: selected session %q", sz, m.selectedSession())
			}
		}
	}
}

// The v key reveals the token where the details are, without
// expanding them or moving anything else on the screen.
func revealKeepsTheLayout(t *testing.T, shared Model) {
	for _, sz := range [][2]int{{80, 24}, {60, 15}, {160, 48}} {
		m := asLoaded(t, shared)
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
		// v again hides it, for the next size.
		if m, _ = update(m, keyMsg("v")); strings.Contains(m.View(), secrettest.Token("r-alpha")) {
			t.Fatalf("%v: the second v left the token shown", sz)
		}
	}
}

// No rendered line is wider than the terminal, whatever the
// names and errors; below the minimum, "terminal too small".
func noLineWiderThanTerminal(t *testing.T, f *fakeService, clk *clock, m Model) {
	f.runtimes = append(f.runtimes,
		mkRuntime("r-"+strings.Repeat("x", 68), specT4, t0.Add(time.Hour), strings.Repeat("v", 30)),
		mkRuntime("ランタイム名前ランタイム名前ランタイム名前ランタイム名前", specT4, t0.Add(time.Hour), ""),
		mkRuntime("cafe\u0301-e\u0301te\u0301-🧪🧪🧪-combining-and-emoji-names-are-long", specT4, t0.Add(time.Hour), ""),
	)
	f.sessions["runtimes/ランタイム名前ランタイム名前ランタイム名前ランタイム名前"] = []api.Session{{Name: "runtimes/x/sessions/セッション名前セッション名前セッション名前セッション名前"}}
	m, _ = run(t, m, tea.Batch(m.calls.refresh(clk.now(), true)...))
	m.cx.Snap.ApplyError(state.ListRuntimes, clk.now(), &api.Error{Code: api.Internal, Message: strings.Repeat("très long message d'erreur ", 12)})
	for _, showDetails := range []bool{false, true} {
		for _, help := range []bool{false, true} {
			m.scr.showDetails, m.scr.stack = showDetails, nil
			if help {
				m.scr.push(helpov.New(""))
			}
			for _, sel := range []string{"g", "G", "k"} {
				m, _ = update(m, keyMsg(sel))
				for _, sz := range sizes {
					m, _ = update(m, tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
					v := m.View()
					lines := strings.Split(v, "\n")
					if len(lines) > sz[1] {
						t.Fatalf("%dx%d: %d lines", sz[0], sz[1], len(lines))
					}
					commontest.MustFit(t, fmt.Sprintf("%dx%d details=%v help=%v", sz[0], sz[1], showDetails, help), lines, sz[0])
					small := sz[0] < MinWidth || sz[1] < MinHeight
					if small != strings.Contains(v, "Terminal too small"[:min(len(v), 8)]) && sz[0] >= 8 {
						t.Fatalf("%dx%d: too-small message = %v:\n%s", sz[0], sz[1], !small, v)
					}
				}
			}
		}
	}
}

// With NoColor no frame has an escape code, and no frame shows any piece
// of a proxy token: the details' token line is the mask and nothing else.
// The test process has no terminal, so the process-wide renderer would
// draw no colour anyway: it is forced to true colour here (and a model
// without NoColor must then show escape codes), so colour leaking past
// NoColor fails the test.
func noColorAndNoSecrets(t *testing.T, f *fakeService, colour, m Model) {
	old := lipgloss.ColorProfile()
	lipgloss.SetColorProfile(termenv.TrueColor)
	t.Cleanup(func() { lipgloss.SetColorProfile(old) })
	colour, _ = update(colour, tea.WindowSizeMsg{Width: 80, Height: 24})
	if !strings.Contains(colour.View(), "\x1b[") {
		t.Fatal("control: without NoColor the frame has no escape codes either, so the check below cannot fail")
	}
	var secrets []string
	for _, rt := range f.runtimes {
		if rt.ConnectionInfo != nil {
			secrets = append(secrets, rt.ConnectionInfo.Token)
		}
	}
	tokenLine := regexp.MustCompile(`\btoken +(\S.*)$`)
	masked := 0
	for _, details := range []bool{false, true} {
		m.scr.showDetails = details
		for _, sz := range sizes {
			m, _ = update(m, tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			v := m.View()
			if strings.Contains(v, "\x1b[") {
				t.Fatalf("%v: escape codes with NoColor:\n%q", sz, v)
			}
			secrettest.Check(t, fmt.Sprintf("the %dx%d frame", sz[0], sz[1]), v, secrets...)
			for _, ln := range strings.Split(v, "\n") {
				if mt := tokenLine.FindStringSubmatch(ln); mt != nil {
					masked++
					if val := strings.TrimRight(mt[1], " │"); val != state.MaskToken("x") {
						t.Errorf("%v: the token line shows %q, not only the mask", sz, val)
					}
				}
			}
		}
	}
	if masked == 0 {
		t.Fatal("no frame had a token line: the mask check saw nothing")
	}
}
