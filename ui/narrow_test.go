package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/secrettest"
)

// Issue 10 defect 4: v reveals the token where the details are, without
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

// Issue 10 defect 5: on a narrow screen SPEC shortens before NAME.
func TestNarrowScreenCutsSpecBeforeName(t *testing.T) {
	_, m := emuModel(t, colabfake.Options{}, nil)
	m, _ = update(m, tea.WindowSizeMsg{Width: 60, Height: 15})
	v := m.View()
	mustContain(t, v, "rt-t4demo7k2p ", "rt-cpudemo4qx ", "rt-v6edemo2mw ", "GPU/T4/STAND…")
}

// The no-credentials screen never breaks a command or URL across lines:
// a command wider than the screen is cut, and the screen says q prints it.
func TestAuthScreenKeepsCommandsWhole(t *testing.T) {
	const scopes = "--scopes=https://www.googleapis.com/auth/colaboratory,https://www.googleapis.com/auth/cloud-platform"
	info := AuthErrorInfo{Headline: "No Google credentials found", NoColor: true,
		Tried: []string{"GOOGLE_APPLICATION_CREDENTIALS: not set", "~/.config/gcloud/application_default_credentials.json: not found"},
		Fix: []string{
			"Sign in with the Colab scope (Application Default Credentials):",
			"  gcloud auth application-default login \\",
			"    " + scopes,
			"or pass --credentials FILE (authorized_user or service_account JSON),",
		}}
	for _, w := range []int{60, 80, 120} {
		tm, _ := NewAuthError(info).Update(tea.WindowSizeMsg{Width: w, Height: 30})
		v := tm.View()
		lines := strings.Split(v, "\n")
		var cmd, scope string
		for i, ln := range lines {
			if ansi.StringWidth(ln) > w {
				t.Fatalf("%d: line too wide: %q", w, ln)
			}
			if strings.Contains(ln, "gcloud auth") {
				cmd = ln
			}
			if strings.Contains(ln, "--scopes=") {
				scope = ln
			}
			// Nothing continues a URL or path on the next line.
			if i > 0 && (strings.HasPrefix(strings.TrimSpace(ln), "cloud-platform") || strings.HasPrefix(strings.TrimSpace(ln), "auth/") ||
				strings.HasPrefix(strings.TrimSpace(ln), "application-default")) {
				t.Fatalf("%d: a command or URL continues on line %d:\n%s", w, i, v)
			}
		}
		if strings.TrimSpace(cmd) != "gcloud auth application-default login \\" {
			t.Fatalf("%d: the command line is %q", w, cmd)
		}
		whole := strings.TrimSpace(scope) == scopes
		if !whole && (!strings.HasSuffix(scope, "…") || !strings.Contains(v, "q prints it whole")) {
			t.Fatalf("%d: the scopes line is neither whole nor cut with a note: %q\n%s", w, scope, v)
		}
		if w == 120 && !whole {
			t.Fatalf("120: the scopes line is cut: %q", scope)
		}
	}
}
