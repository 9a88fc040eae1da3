package ui

import (
	"bytes"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/ui/common"
)

func TestUpdateKeys(t *testing.T) {
	// The cases share one fixture dashboard, put back before each to its
	// state as loaded (checked); the two that quit come last.
	_, _, shared := fixture(t)
	type check func(t *testing.T, m Model, st runStats)
	selected := func(id string) check {
		return func(t *testing.T, m Model, _ runStats) {
			t.Helper()
			if m.Selected() != "runtimes/"+id {
				t.Fatalf("selected %q, want %s", m.Selected(), id)
			}
		}
	}
	for _, tc := range []struct {
		name  string
		keys  []string
		check check
	}{
		{"starts on first row", nil, selected("r-alpha")},
		{"down", []string{"down"}, selected("r-bravo")},
		{"vim j j k", []string{"j", "j", "k"}, selected("r-bravo")},
		{"up at top stays", []string{"up", "k"}, selected("r-alpha")},
		{"G bottom is the gone runtime", []string{"G"}, selected("r-echo")},
		{"g top", []string{"G", "g"}, selected("r-alpha")},
		{"keys typed fast arrive in one read", []string{"jj"}, selected("r-charlie")},
		{"help typed right after a move", []string{"j?"}, func(t *testing.T, m Model, _ runStats) {
			if m.Selected() != "runtimes/r-bravo" || !m.helpOpen() {
				t.Fatalf("selected %q, help %v", m.Selected(), m.helpOpen())
			}
		}},
		{"filter typed ahead in one read", []string{"/t4", "enter"}, func(t *testing.T, m Model, _ runStats) {
			if m.rt.Filter() != "t4" || len(m.rt.Rows()) != 1 {
				t.Fatalf("filter %q rows %d", m.rt.Filter(), len(m.rt.Rows()))
			}
		}},
		{"filter t4", []string{"/", "t", "4", "enter"}, func(t *testing.T, m Model, _ runStats) {
			if len(m.rt.Rows()) != 1 || m.rt.Rows()[0].ID() != "r-alpha" || m.filtering() {
				t.Fatalf("rows %d filtering %v", len(m.rt.Rows()), m.filtering())
			}
			if !strings.Contains(m.View(), "filter: t4") {
				t.Fatal("filter not shown")
			}
		}},
		{"filter keeps q as text", []string{"/", "q"}, func(t *testing.T, m Model, st runStats) {
			if st.quits != 0 || m.rt.Filter() != "q" {
				t.Fatalf("quits %d filter %q", st.quits, m.rt.Filter())
			}
		}},
		{"filter backspace", []string{"/", "c", "p", "x", "backspace"}, func(t *testing.T, m Model, _ runStats) {
			if m.rt.Filter() != "cp" || len(m.rt.Rows()) != 2 {
				t.Fatalf("filter %q rows %d", m.rt.Filter(), len(m.rt.Rows()))
			}
		}},
		{"esc clears filter", []string{"/", "t", "4", "esc"}, func(t *testing.T, m Model, _ runStats) {
			if m.rt.Filter() != "" || len(m.rt.Rows()) != 5 {
				t.Fatalf("filter %q rows %d", m.rt.Filter(), len(m.rt.Rows()))
			}
		}},
		{"filter matches the displayed latest version", []string{"/", "l", "a", "t", "e", "s", "t", "enter"}, func(t *testing.T, m Model, _ runStats) {
			if len(m.rt.Rows()) != 3 {
				t.Fatalf("filter latest: %d rows, want 3 (r-bravo, r-charlie, r-echo show latest)", len(m.rt.Rows()))
			}
		}},
		{"filter with no match", []string{"/", "z", "z", "enter"}, func(t *testing.T, m Model, _ runStats) {
			if m.Selected() != "" || !strings.Contains(m.View(), "no runtime matches") {
				t.Fatalf("selected %q", m.Selected())
			}
		}},
		{"selection follows the runtime when re-sorted", []string{"j", "T"}, func(t *testing.T, m Model, _ runStats) {
			// sorted by expiry: charlie, bravo, alpha, delta, echo
			if m.rt.SortWord() != "expiry" || m.Selected() != "runtimes/r-bravo" || m.rt.Cursor() != 1 {
				t.Fatalf("sort %v selected %q cursor %d", m.rt.SortWord(), m.Selected(), m.rt.Cursor())
			}
		}},
		{"s cycles the sort to the next column", []string{"s"}, func(t *testing.T, m Model, _ runStats) {
			// sorted by spec: bravo CPU, delta GPU/A100, alpha GPU/T4, charlie TPU, echo (gone) last
			if got := rowIDs(m); m.rt.SortWord() != "spec" || got != "r-bravo r-delta r-alpha r-charlie r-echo" {
				t.Fatalf("sort %v rows %s", m.rt.SortWord(), got)
			}
		}},
		{"tab focuses sessions and moves there", []string{"tab", "down"}, func(t *testing.T, m Model, _ runStats) {
			if m.cx.Focus != common.PanelSessions || m.sess.Cursor() != 1 || m.Selected() != "runtimes/r-alpha" {
				t.Fatalf("focus %v sess %d sel %q", m.cx.Focus, m.sess.Cursor(), m.Selected())
			}
		}},
		{"tab twice back to runtimes", []string{"tab", "tab", "down"}, selected("r-bravo")},
		// "short" makes the screen 80×15, where the details lack room
		// (at 80×24 they show every line: enter says so instead).
		{"enter shows details", []string{"short", "enter"}, func(t *testing.T, m Model, _ runStats) {
			v := m.View()
			if !m.scr.showDetails || !strings.Contains(v, "DETAILS · r-alpha") || !strings.Contains(v, "https://r-alpha.prod.colab.dev") {
				t.Fatalf("details not shown:\n%s", v)
			}
		}},
		{"esc closes details", []string{"short", "enter", "esc"}, func(t *testing.T, m Model, _ runStats) {
			if m.scr.showDetails {
				t.Fatal("details still open")
			}
		}},
		{"? full help", []string{"?"}, func(t *testing.T, m Model, _ runStats) {
			v := m.View()
			if !m.helpOpen() || !strings.Contains(v, "HELP") || !strings.Contains(v, "next panel") || !strings.Contains(v, "page down") || !strings.Contains(v, "back/clear") {
				t.Fatalf("help not shown:\n%s", v)
			}
		}},
		{"? twice closes help", []string{"?", "?"}, func(t *testing.T, m Model, _ runStats) {
			if m.helpOpen() || strings.Contains(m.View(), "page down") {
				t.Fatal("help still open")
			}
		}},
		{"r refreshes", []string{"r"}, func(t *testing.T, m Model, st runStats) {
			if st.results < 2 { // list_runtimes + get_subscription (+ sessions)
				t.Fatalf("refresh made %d calls", st.results)
			}
		}},
		// The two that quit come last: q ends the dashboard's life, and
		// ctrl+c must still quit from a filter being typed.
		{"q quits", []string{"q"}, func(t *testing.T, m Model, st runStats) {
			if st.quits != 1 || m.life.ctx.Err() == nil {
				t.Fatalf("quits %d, ctx %v", st.quits, m.life.ctx.Err())
			}
		}},
		{"ctrl+c quits even while filtering", []string{"/", "ctrl+c"}, func(t *testing.T, m Model, st runStats) {
			if st.quits != 1 {
				t.Fatal("no quit")
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := asLoaded(t, shared)
			var total runStats
			for _, k := range tc.keys {
				var cmd tea.Cmd
				if k == "short" {
					m, cmd = update(m, tea.WindowSizeMsg{Width: 80, Height: 15})
				} else {
					m, cmd = update(m, keyMsg(k))
				}
				var st runStats
				m, st = run(t, m, cmd)
				total.quits += st.quits
				total.results += st.results
				total.ticks += st.ticks
			}
			tc.check(t, m, total)
			shared = m
			if total.ticks != 0 {
				t.Fatalf("keys started %d tick chains", total.ticks)
			}
		})
	}
}

// asLoaded puts the fixture dashboard m back to its state as fixture
// loads it (80×24, nothing open, no filter, details folded, no status
// message, the runtimes
// pane focused, sorted by name, r-alpha selected, the sessions cursor on
// the first) and fails unless it is.
func asLoaded(t *testing.T, m Model) Model {
	t.Helper()
	for i := 0; i < 4 && (m.scr.top() != nil || m.rt.Filter() != "" || m.scr.showDetails || m.cx.Status.Text != ""); i++ {
		m, _ = update(m, keyMsg("esc"))
	}
	m, _ = update(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	if m.cx.Focus != common.PanelRuntimes {
		m, _ = update(m, keyMsg("tab"))
	}
	if m.rt.SortWord() != "name" {
		m.rt.SortBy(keymap.ActionSortName)
	}
	m.sess.Reset()
	m = m.selectID(t, "r-alpha")
	if got := rowIDs(m); m.scr.top() != nil || m.rt.Filter() != "" || m.scr.showDetails || m.cx.Status.Text != "" || m.cx.Focus != common.PanelRuntimes ||
		got != "r-alpha r-bravo r-charlie r-delta r-echo" || m.rt.Cursor() != 0 || m.sess.Cursor() != 0 {
		t.Fatalf("not as loaded: rows %s, cursor %d, filter %q, details %v, status %q, focus %v:\n%s", got, m.rt.Cursor(), m.rt.Filter(), m.scr.showDetails, m.cx.Status.Text, m.cx.Focus, m.View())
	}
	return m
}

// A real Bubble Tea program over the fake Service: the table appears, keys
// move the selection, q quits.
func TestTeatestSmoke(t *testing.T) {
	f, clk, _ := fixture(t)
	m := New(Options{Service: f, Now: clk.now, Location: time.UTC, NoColor: true})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("r-charlie")) },
		teatest.WithDuration(30*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'j'}})
	tm.Send(tea.KeyMsg{Type: tea.KeyDown})
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("SESSIONS · r-charlie")) },
		teatest.WithDuration(30*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'q'}})
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(Model)
	if fm.Selected() != "runtimes/r-charlie" {
		t.Fatalf("selected %q", fm.Selected())
	}
	if fm.life.ctx.Err() == nil {
		t.Fatal("in-flight calls not cancelled on quit")
	}
}

// A start notice (a runtime left by an unfinished `colabdash run`) is in
// the status line when the dashboard opens and stays in the event log.
func TestStartNoticesShown(t *testing.T) {
	const notice = "runtime run-1a2b3c4d (CPU/STANDARD) was created by a run that did not finish; delete it with: colabdash run --reap"
	e, m := emuModel(t, colabfake.Options{}, func(o *Options) { o.Notices = []string{notice} })
	found := false
	for _, ev := range m.Events() {
		found = found || ev.Tool == "run" && ev.Note == notice
	}
	if !found {
		t.Errorf("no run event with the notice in %+v", m.Events())
	}
	mustContain(t, m.View(), "run-1a2b3c4d (CPU/STANDARD) was created by a run")
	mustContain(t, e.press(t, m, "L").View(), "did not finish")
}
