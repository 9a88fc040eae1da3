package ui

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/keymap"
)

// A key per column sorts by it, the same key again (or O) reverses; the
// header's arrow says which column and which way; gone rows stay last.
func TestSortKeysAndTheHeaderArrow(t *testing.T) {
	for _, tc := range []struct {
		keys          []string
		header, order string
	}{
		{nil, "NAME↑", "r-alpha r-bravo r-charlie r-delta r-echo"},
		{[]string{"A"}, "NAME↓", "r-delta r-charlie r-bravo r-alpha r-echo"},
		{[]string{"T"}, "TOKEN↑", "r-charlie r-bravo r-alpha r-delta r-echo"},
		{[]string{"T", "T"}, "TOKEN↓", "r-delta r-alpha r-bravo r-charlie r-echo"},
		{[]string{"T", "O"}, "TOKEN↓", "r-delta r-alpha r-bravo r-charlie r-echo"},
		{[]string{"E"}, "SESS↑", "r-bravo r-charlie r-delta r-alpha r-echo"},
		{[]string{"E", "O"}, "SESS↓", "r-alpha r-bravo r-charlie r-delta r-echo"},
		{[]string{"C"}, "SPEC↑", "r-bravo r-delta r-alpha r-charlie r-echo"},
		{[]string{"V"}, "VERSION↑", "r-delta r-alpha r-bravo r-charlie r-echo"},
		{[]string{"V", "V"}, "VERSION↓", "r-bravo r-charlie r-alpha r-delta r-echo"}, // ties keep their name order
	} {
		_, _, m := fixture(t)
		for _, k := range tc.keys {
			m, _ = update(m, keyMsg(k))
		}
		v := m.View()
		if got := rowIDs(m); got != tc.order {
			t.Errorf("%v: rows %s, want %s", tc.keys, got, tc.order)
		}
		header := strings.Split(v, "\n")[3]
		if !strings.Contains(header, tc.header) || strings.Count(header, "↑")+strings.Count(header, "↓") != 1 {
			t.Errorf("%v: header %q, want one arrow on %s", tc.keys, header, tc.header)
		}
	}
}

// At 200 columns NAME takes the width: the selected row (reverse video)
// spans the screen and the other columns sit at its right edge.
func TestWideScreenNameTakesTheWidth(t *testing.T) {
	for _, w := range []int{160, 200} {
		_, _, m := fixture(t)
		m, _ = update(m, tea.WindowSizeMsg{Width: w, Height: 40})
		lines := strings.Split(m.View(), "\n")
		sel := lines[4]
		if !strings.HasPrefix(sel, "›  r-alpha") || ansi.StringWidth(sel) != w {
			t.Fatalf("%d columns: the selected row is %d cells: %q", w, ansi.StringWidth(sel), sel)
		}
		// TOKEN (24 cells) ends the header at the right edge.
		if at := ansi.StringWidth(lines[3][:strings.Index(lines[3], "TOKEN")]); at != w-24+3 {
			t.Fatalf("%d columns: TOKEN at %d, want %d: %q", w, at, w-24+3, lines[3])
		}
	}
}

// On a narrow screen SPEC shortens before NAME.
func TestNarrowScreenCutsSpecBeforeName(t *testing.T) {
	_, m := emuModel(t, colabfake.Options{}, nil)
	m, _ = update(m, tea.WindowSizeMsg{Width: 60, Height: 15})
	v := m.View()
	mustContain(t, v, "rt-t4demo7k2p ", "rt-cpudemo4qx ", "rt-v6edemo2mw ", "GPU/T4/STAND…")
}

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

// A count older than one refresh shows its age in the SESS column.
func TestSessColumnShowsAge(t *testing.T) {
	_, clk, m := fixture(t)
	clk.add(5 * time.Minute) // no refresh ran: every count is 5 minutes old
	v := m.View()
	if !strings.Contains(v, " 2 5m ") {
		t.Fatalf("r-alpha's 2 sessions, 5 minutes old, not shown as \"2 5m\":\n%s", v)
	}
}

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
		mustContain(t, v, "r-echo is gone (reclaimed")
		if strings.Contains(v, "no runtime") {
			t.Fatalf("%s: %s", k, v)
		}
	}
}

// At 100 columns every row kind keeps the name in the same column and its
// status word whole: a failed renewal, a gone runtime, a create in
// progress (which shows the requested id, or what it creates).
func TestRowColumnsAlignedAt100(t *testing.T) {
	_, clk, m := fixture(t)
	m, _ = update(m, tea.WindowSizeMsg{Width: 100, Height: 30})
	m.cx.Snap.ApplyRenewError(clk.now(), "runtimes/r-bravo", errors.New("backend unavailable"))
	m.calls.renew.Started("runtimes/r-bravo", clk.now())
	m.calls.renew.Done("runtimes/r-bravo", clk.now(), time.Time{}, time.Time{}, errors.New("backend unavailable"))
	m.cr.creates = []*createOp{
		{id: 1, spec: specA100, runtimeID: "my-a100", started: clk.now().Add(-time.Second)},
		{id: 2, spec: specA100, started: clk.now().Add(-time.Second)},
	}
	m.rt.Invalidate()
	m, _ = update(m, tickMsg{gen: m.life.tickGen + 1}) // a stale tick: only re-syncs
	v := ansi.Strip(m.View())
	col := func(name string) int {
		for _, ln := range strings.Split(v, "\n") {
			if i := strings.Index(ln, name); i >= 0 {
				return ansi.StringWidth(ln[:i])
			}
		}
		t.Fatalf("no %q in\n%s", name, v)
		return -1
	}
	want := col("r-alpha")
	for _, n := range []string{"r-bravo", "r-echo", "my-a100", "creating GPU/A100/HIGHMEM", "NAME"} {
		if got := col(n); got != want {
			t.Errorf("%s starts at column %d, want %d:\n%s", n, got, want, v)
		}
	}
	mustContain(t, v, "! r-bravo", "RENEW FAILED\n", "GONE seen 2m ago\n", "creating… 0:01")
	if strings.Contains(v, "…\n") {
		t.Fatalf("a row is cut:\n%s", v)
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
		if v := ansi.Strip(m.View()); !row("r-29") || strings.Count(v, "creating GPU/A100/HIGHMEM") != i+1 || !strings.Contains(v, fmt.Sprintf("· %d–30\n", first)) {
			t.Fatalf("with %d creates in progress the selected r-29, a create row or the range in the title is wrong:\n%s", i+1, v)
		}
	}
	// Moving up from the bottom moves the cursor, not the window.
	m, _ = update(m, keyMsg("k"))
	if !row("r-28") || !row("r-29") {
		t.Fatalf("after k the rows around the selection are off screen:\n%s", m.View())
	}
}
