package ui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/secrettest"
	"github.com/colabdash/colabdash/state"
	helpov "github.com/colabdash/colabdash/ui/overlay/help"
	"github.com/muesli/termenv"
)

var sizes = [][2]int{{60, 15}, {80, 24}, {160, 48}, {100, 30}, {61, 16}, {59, 15}, {60, 14}, {40, 10}, {20, 5}, {1, 1}, {120, 40}}

// No rendered line is wider than the terminal, whatever the
// names and errors; below the minimum, "terminal too small".
func TestNoLineWiderThanTerminal(t *testing.T) {
	f, clk, m := fixture(t)
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
					for i, ln := range lines {
						if w := ansi.StringWidth(ln); w > sz[0] {
							t.Fatalf("%dx%d details=%v help=%v: line %d is %d wide: %q", sz[0], sz[1], showDetails, help, i, w, ln)
						}
					}
					small := sz[0] < MinWidth || sz[1] < MinHeight
					if small != strings.Contains(v, "Terminal too small"[:min(len(v), 8)]) && sz[0] >= 8 {
						t.Fatalf("%dx%d: too-small message = %v:\n%s", sz[0], sz[1], !small, v)
					}
				}
			}
		}
	}
}

// Resize 120×40 → 40×10 → 20×5 → 120×40 gives the same frame as a direct
// 120×40 (every panel re-laid out, nothing left over).
func TestResizeRelayout(t *testing.T) {
	_, _, m := fixture(t)
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

// With NoColor no frame has an escape code, and no frame shows any piece
// of a proxy token: the details' token line is the mask and nothing else.
// The test process has no terminal, so the process-wide renderer would
// draw no colour anyway: it is forced to true colour here (and a model
// without NoColor must then show escape codes), so colour leaking past
// NoColor fails the test.
func TestNoColorAndNoSecrets(t *testing.T) {
	old := lipgloss.ColorProfile()
	lipgloss.SetColorProfile(termenv.TrueColor)
	t.Cleanup(func() { lipgloss.SetColorProfile(old) })
	f, clk, m := fixture(t)
	colour := New(Options{Service: f, Now: clk.now, Location: time.UTC})
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

// Below the split width the sessions panel is stacked above the details,
// so the focused panel is always on screen, also with the details expanded
// (enter, or v revealing the token).
func TestNarrowTerminalsShowTheFocusedPanel(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {90, 30}, {60, 15}, {99, 20}} {
		for _, expand := range []bool{false, true} {
			_, _, m := fixture(t)
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
