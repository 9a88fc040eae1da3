package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/ui/common/commontest"
)

func TestAuthErrorScreen(t *testing.T) {
	info := AuthErrorInfo{
		Headline: "No Google credentials found",
		Tried: []string{
			"GOOGLE_APPLICATION_CREDENTIALS: not set",
			"~/.config/gcloud/application_default_credentials.json: not found",
		},
		Fix:     []string{"gcloud auth application-default login --scopes=https://www.googleapis.com/auth/colaboratory,https://www.googleapis.com/auth/cloud-platform"},
		NoColor: true,
	}
	m := NewAuthError(info)
	tm, _ := m.Update(tea.WindowSizeMsg{Width: 60, Height: 20})
	m = tm.(AuthErrorModel)
	v := m.View()
	for _, want := range []string{"No Google credentials found", "GOOGLE_APPLICATION_CREDENTIALS", "gcloud auth", "continue in demo mode"} {
		if !strings.Contains(v, want) {
			t.Fatalf("screen lacks %q:\n%s", want, v)
		}
	}
	commontest.MustFit(t, "auth screen", strings.Split(v, "\n"), 60)
	// At the smallest size the keys to go on stay visible.
	tm, _ = m.Update(tea.WindowSizeMsg{Width: 60, Height: 15})
	if v := tm.(AuthErrorModel).View(); !strings.Contains(v, "continue in demo mode") || strings.Count(v, "\n") >= 15 {
		t.Fatalf("at 60x15 the demo key is cut off or the screen overflows:\n%s", v)
	}
	info.Tried = append(info.Tried, "a", "b", "c", "d", "e", "f", "g", "h", "i", "j")
	tm, _ = NewAuthError(info).Update(tea.WindowSizeMsg{Width: 60, Height: 15})
	if v := tm.(AuthErrorModel).View(); !strings.Contains(v, "continue in demo mode") {
		t.Fatalf("with a long list of paths tried the demo key is cut off:\n%s", v)
	}
	tm, cmd := m.Update(keyMsg("d"))
	if !tm.(AuthErrorModel).WantsDemo() || cmd == nil {
		t.Fatal("d did not choose demo")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("d did not quit")
	}
	tm, cmd = m.Update(keyMsg("q"))
	if tm.(AuthErrorModel).WantsDemo() || cmd == nil {
		t.Fatal("q chose demo or did not quit")
	}
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
		commontest.MustFit(t, fmt.Sprintf("auth screen at %d", w), lines, w)
		for i, ln := range lines {
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
