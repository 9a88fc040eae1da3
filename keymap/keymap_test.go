package keymap

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

func press(s string) tea.KeyMsg {
	switch s {
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "f5":
		return tea.KeyMsg{Type: tea.KeyF5}
	case " ":
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	case "ctrl+\\":
		return tea.KeyMsg{Type: tea.KeyCtrlBackslash}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

func TestDefaultBindings(t *testing.T) {
	k := Default()
	d, l := &k.Dashboard, &k.RuntimesTable
	for _, tc := range []struct {
		key string
		b   key.Binding
	}{
		{"up", l.Up}, {"k", l.Up}, {"j", l.Down}, {"tab", d.NextPanel}, {"enter", d.Details},
		{"/", d.Filter}, {"r", d.Refresh}, {"?", d.Help}, {"q", d.Quit}, {"ctrl+c", d.Quit},
		{"G", l.Bottom}, {"g", l.Top}, {"s", d.Sort}, {"d", k.Setup.Demo},
		{"k", k.SessionsPane.Up}, {"?", k.HelpView.Close}, {"L", k.EventLog.Close}, {"P", k.ProfilePicker.Profile},
		{"enter", k.FilesPane.Open}, {"pgup", k.Console.ScrollUp},
		{" ", l.Mark}, {"ctrl+\\", l.ClearMarks}, {"A", l.SortName}, {"T", l.SortExpiry}, {"O", l.SortReverse},
	} {
		if !key.Matches(press(tc.key), tc.b) {
			t.Errorf("%q does not trigger %q", tc.key, tc.b.Help().Desc)
		}
	}
	// Every action has help text.
	for _, p := range k.places() {
		if p.action == "" || p.b.Help().Key == "" || p.b.Help().Desc == "" {
			t.Errorf("%s: action %q has no help", p.scope, p.action)
		}
	}
}

// A column's sort action (ui/render SortBy.Action) finds its
// binding in the runtimes table, rebound keys included; an action the
// table does not read finds none.
func TestRuntimesForAction(t *testing.T) {
	k := Default()
	if err := k.Rebind(ActionSortSessions, "Z"); err != nil {
		t.Fatal(err)
	}
	b, ok := k.RuntimesTable.ForAction(ActionSortSessions)
	if !ok || !key.Matches(press("Z"), b) || key.Matches(press("E"), b) {
		t.Fatalf("sort_sessions rebound to Z: %v %v", b.Keys(), ok)
	}
	if _, ok := k.RuntimesTable.ForAction(ActionDeleteRuntime); ok {
		t.Fatal("the table reads delete_runtime")
	}
}

func TestRebindShowsEffectiveKeyInHelp(t *testing.T) {
	k := Default()
	if err := k.Rebind(ActionRefresh, "f5", "ctrl+r"); err != nil {
		t.Fatal(err)
	}
	// In every scope that reads refresh.
	for _, b := range []key.Binding{k.Dashboard.Refresh, k.FilesPane.Refresh} {
		if key.Matches(press("r"), b) {
			t.Fatal("old key still bound")
		}
		if !key.Matches(press("f5"), b) {
			t.Fatal("new key not bound")
		}
	}
	full := help.New().FullHelpView(k.FullHelp())
	if !strings.Contains(full, "f5/ctrl+r") || !strings.Contains(full, "refresh") {
		t.Fatalf("full help does not show the new key:\n%s", full)
	}
	if regexp.MustCompile(`(^|\s)r\s+refresh`).MatchString(full) {
		t.Fatalf("full help still shows the old key:\n%s", full)
	}
}

func TestRebindErrors(t *testing.T) {
	k := Default()
	if err := k.Rebind("launch_missiles", "x"); err == nil || !strings.Contains(err.Error(), "unknown action") {
		t.Fatalf("unknown action: %v", err)
	}
	if err := k.Rebind(ActionQuit, "", ""); err == nil {
		t.Fatal("empty keys accepted")
	} else if strings.HasPrefix(err.Error(), "keymap:") || !strings.Contains(err.Error(), "accepted:") {
		t.Errorf("error %q has an internal prefix or does not say what is accepted", err)
	}
	if err := k.Rebind("launch_missiles", "x"); strings.HasPrefix(err.Error(), "keymap:") || !strings.Contains(err.Error(), "accepted: back,") {
		t.Errorf("error %q has an internal prefix or does not list the actions", err)
	}
	if !key.Matches(press("q"), k.Dashboard.Quit) {
		t.Fatal("failed rebind changed the binding")
	}
}

func TestHelpGroups(t *testing.T) {
	k := Default()
	if len(k.FullHelp()) != 11 || len(k.Dashboard.ShortHelp()) == 0 {
		t.Fatal("help groups")
	}
	// Help and quit first: a narrow footer cuts from the end.
	short := help.New().View(&k.Dashboard)
	if !strings.HasPrefix(short, "? help • q/ctrl+c quit • n new runtime") {
		t.Errorf("short help %q", short)
	}
}

// --readonly: every mutating action matches no key and leaves the help;
// navigation and the clipboard stay.
func TestSetReadOnly(t *testing.T) {
	k := Default()
	k.SetReadOnly(true)
	d := &k.Dashboard
	for _, b := range []key.Binding{d.NewRuntime, d.QuickCreate, d.DeleteRuntime, d.OpenSession, d.CloseSession, d.RunCode, d.Cancel, d.Shell,
		k.FilesPane.Upload, k.FilesPane.Delete} {
		if b.Enabled() {
			t.Errorf("%v still enabled", b.Keys())
		}
		if key.Matches(press(b.Keys()[0]), b) {
			t.Errorf("%v still matches", b.Keys())
		}
	}
	full := help.New().FullHelpView(k.FullHelp())
	for _, gone := range []string{"new runtime", "delete", "run code", "open session"} {
		if strings.Contains(full, gone) {
			t.Errorf("read-only help still offers %q:\n%s", gone, full)
		}
	}
	for _, stays := range []string{"copy URL", "refresh", "quit", "renew token"} {
		if !strings.Contains(full, stays) {
			t.Errorf("read-only help lacks %q", stays)
		}
	}
	k.SetReadOnly(false)
	if !key.Matches(press("d"), k.Dashboard.DeleteRuntime) {
		t.Fatal("SetReadOnly(false) did not re-enable")
	}
}

type keyName string

func (k keyName) String() string { return string(k) }

// A key whose action read-only mode disabled is still recognised, so the
// dashboard can say it is disabled; enabled and unknown keys are not.
func TestDisabledMatch(t *testing.T) {
	k := Default()
	if _, ok := k.Dashboard.DisabledMatch(keyName("n")); ok {
		t.Fatal("n matched while enabled")
	}
	k.SetReadOnly(true)
	b, ok := k.Dashboard.DisabledMatch(keyName("n"))
	if !ok || b.Help().Key != "n" || b.Help().Desc != "new runtime" {
		t.Fatalf("n: %v %+v", ok, b.Help())
	}
	if _, ok := k.Dashboard.DisabledMatch(keyName("j")); ok {
		t.Fatal("j (navigation) reported as disabled")
	}
	if k.Dashboard.NewRuntime.Enabled() {
		t.Fatal("DisabledMatch re-enabled the binding")
	}
}

// README documents " " for space; "space" is accepted too. Both bind the
// space bar, and the help shows "space".
func TestRebindSpace(t *testing.T) {
	for _, spelled := range []string{" ", "space", "Space"} {
		k := Default()
		if err := CheckKey(spelled); err != nil {
			t.Fatalf("CheckKey(%q) = %v", spelled, err)
		}
		if err := k.Rebind(ActionRefresh, spelled); err != nil {
			t.Fatalf("Rebind(refresh, %q) = %v", spelled, err)
		}
		if !key.Matches(tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}, k.Dashboard.Refresh) {
			t.Errorf("%q: the space bar does not refresh", spelled)
		}
		if h := k.Dashboard.Refresh.Help().Key; h != "space" {
			t.Errorf("%q: help key %q, want space", spelled, h)
		}
	}
}

// ctrl+c always quits, whatever quit is rebound to, and binding it to
// another action is a conflict.
func TestCtrlCAlwaysQuits(t *testing.T) {
	k := Default()
	if err := k.Rebind(ActionQuit, "Q"); err != nil {
		t.Fatal(err)
	}
	for _, quit := range []key.Binding{k.Dashboard.Quit, k.FilesPane.Quit, k.HelpView.Quit, k.EventLog.Quit, k.ProfilePicker.Quit, k.Setup.Quit} {
		if !key.Matches(tea.KeyMsg{Type: tea.KeyCtrlC}, quit) || !key.Matches(press("Q"), quit) {
			t.Fatalf("quit rebound to Q: keys %v", quit.Keys())
		}
	}
	if key.Matches(press("q"), k.Dashboard.Quit) {
		t.Error("q still quits after quit: Q")
	}
	if err := k.Rebind(ActionRefresh, "ctrl+c"); err != nil {
		t.Fatal(err)
	}
	c := k.Conflicts()
	if len(c) != 1 || c[0].Key != "ctrl+c" {
		t.Errorf("refresh: ctrl+c gives conflicts %v, want ctrl+c on quit and refresh", c)
	}
}

// Every action has keys and help text, and is in the help: the files
// pane's and the console's keys are listed under their layer's title.
func TestEveryActionHasHelpAndIsShown(t *testing.T) {
	k := Default()
	shown := map[string]bool{}
	for _, g := range k.HelpGroups() {
		for _, b := range g.Keys {
			shown[b.Help().Key+" "+b.Help().Desc] = true
		}
	}
	for _, a := range Actions() {
		b, _ := k.Binding(a)
		if len(b.Keys()) == 0 || b.Help().Key == "" || b.Help().Desc == "" {
			t.Errorf("%s: keys %v help %+v", a, b.Keys(), b.Help())
		}
		if a != ActionDemo && !shown[b.Help().Key+" "+b.Help().Desc] {
			t.Errorf("%s (%s) is not in the help", a, b.Help().Key)
		}
	}
	titles := ""
	for _, g := range k.HelpGroups() {
		titles += g.Title + ";"
	}
	if !strings.Contains(titles, "files pane (f)") || !strings.Contains(titles, "run-code console (e)") {
		t.Fatalf("help titles %q", titles)
	}
	// --readonly hides the files pane's upload and delete too.
	k.SetReadOnly(true)
	for _, a := range []string{ActionFilesUpload, ActionFilesDelete} {
		if b, _ := k.Binding(a); b.Enabled() {
			t.Errorf("%s enabled in read-only mode", a)
		}
	}
	if b, ok := k.FilesPane.DisabledMatch(stringer("u")); !ok || b.Help().Desc != "upload here" {
		t.Fatalf("u in the read-only files pane: %v %v", b.Help(), ok)
	}
	if _, ok := k.Dashboard.DisabledMatch(stringer("u")); ok {
		t.Fatal("the dashboard reports the files pane's u as disabled")
	}
}

type stringer string

func (s stringer) String() string { return string(s) }
