package ui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/colabdash/colabdash/api/secrettest"
	"github.com/colabdash/colabdash/state"
	"github.com/muesli/termenv"
)

var sizes = [][2]int{{60, 15}, {80, 24}, {160, 48}, {100, 30}, {61, 16}, {59, 15}, {60, 14}, {40, 10}, {20, 5}, {1, 1}, {120, 40}}

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
