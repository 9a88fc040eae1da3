package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/keymap"
)

// The empty runtimes list points at the key that creates one (there is no
// `colabdash create` command), the configured key when rebound, and only
// says "no runtimes" in --readonly, where creating is disabled.
func TestEmptyListNamesTheCreateKey(t *testing.T) {
	k := keymap.Default()
	if err := k.Rebind(keymap.ActionNewRuntime, "space"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		mod  func(*Options)
		want string
	}{
		{"default", nil, "no runtimes: press n to create one"},
		{"rebound", func(o *Options) { o.Keymap = k }, "no runtimes: press space to create one"},
		{"readonly", func(o *Options) { o.ReadOnly = true }, "no runtimes\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, m := emuModel(t, colabfake.Options{Seed: colabfake.SeedEmpty}, tc.mod)
			v := m.View()
			if !strings.Contains(stripRight(v), tc.want) || strings.Contains(v, "colabdash create") {
				t.Errorf("view lacks %q:\n%s", tc.want, v)
			}
		})
	}
}

// stripRight drops trailing blanks of every line.
func stripRight(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// Run-code output and tracebacks wrap at the width instead of being cut,
// pgup/pgdn scroll the output (newest at the bottom), and a long input line
// scrolls so its end and the cursor stay visible.
func TestRunCodeWrapsAndScrolls(t *testing.T) {
	_, clk, m := fixture(t)
	m, _ = update(m, tea.WindowSizeMsg{Width: 60, Height: 15})
	long := "START" + strings.Repeat("x", 250) + "END"
	frame := "File \"/content/train.py\", line 12, in <module> model.frame.Fit(dataset, epochs=10, callbacks=[checkpoint]) TBEND"
	var runs []*execRun
	for i := 0; i < 6; i++ {
		runs = append(runs, &execRun{id: i + 1, code: "print(1)", done: true, started: clk.now(), res: api.ExecuteCodeResult{Stdout: "line one\nline two\n"}})
	}
	runs = append(runs, &execRun{id: 7, code: "run()", done: true, started: clk.now(), res: api.ExecuteCodeResult{
		Stdout:         long + "\n",
		ExecutionError: &api.ExecuteError{Name: "ValueError", Value: "bad", Traceback: []string{frame}},
	}})
	m = withConsole(m, "runtimes/r-alpha", "runtimes/r-alpha/sessions/colabdash-1a2b", runs,
		"df = pd.read_csv('/content/drive/MyDrive/data/some_long_file_name.csv') # INPUTEND")
	v := m.View()
	flat := strings.ReplaceAll(strings.ReplaceAll(v, "\n", ""), " ", "")
	for _, want := range []string{"END", "TBEND", "INPUTEND█", "✕ValueError"} {
		if !strings.Contains(flat, want) {
			t.Errorf("run-code panel lacks %q:\n%s", want, v)
		}
	}
	for _, ln := range strings.Split(v, "\n") {
		if w := ansi.StringWidth(ln); w > 60 {
			t.Errorf("line %d wide: %q", w, ln)
		}
	}
	if strings.Contains(v, "START") {
		t.Fatalf("wrapped output all fits?\n%s", v)
	}
	// pgup shows older output and says newer lines are below; pgdn returns.
	m, _ = update(m, tea.KeyMsg{Type: tea.KeyPgUp})
	v = m.View()
	if !strings.Contains(v, "START") || !strings.Contains(v, "newer line") || !strings.Contains(v, "below (pgdn)") {
		t.Errorf("pgup did not scroll back:\n%s", v)
	}
	for i := 0; i < 5; i++ {
		m, _ = update(m, tea.KeyMsg{Type: tea.KeyPgDown})
	}
	if v = m.View(); !strings.Contains(v, "✕ ValueError") || strings.Contains(v, "below (pgdn)") {
		t.Errorf("pgdn did not return to the newest output:\n%s", v)
	}
}
