package sessions

import (
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
)

func fixture() (*common.Context, *Pane) {
	spec := api.RuntimeSpecKey{Variant: api.VariantGPU, Accelerator: "T4", Shape: api.ShapeStandard}
	c := commontest.Context(100, 30, commontest.Runtime("r-alpha", spec, commontest.T0.Add(time.Hour)))
	c.Snap.ApplySessions(commontest.T0, "runtimes/r-alpha", []api.Session{
		{Name: "runtimes/r-alpha/sessions/notebook-ab12"}, {Name: "runtimes/r-alpha/sessions/colabdash-1a2b"}})
	c.Snap.MarkOwned("runtimes/r-alpha/sessions/colabdash-1a2b")
	return c, &Pane{}
}

func TestViewListsSessionsWithTheirTag(t *testing.T) {
	c, p := fixture()
	r := c.Snap.Runtime("runtimes/r-alpha")
	lines := p.View(c, r, 40, 5)
	commontest.AssertSize(t, "sessions", lines, 40, 5)
	v := strings.Join(lines, "\n")
	for _, want := range []string{"SESSIONS · r-alpha 2", "notebook-ab12", "notebook", "colabdash-1a2b", "colabdash"} {
		if !strings.Contains(v, want) {
			t.Errorf("sessions pane lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "›") {
		t.Errorf("a cursor without the focus:\n%s", v)
	}
	if v := strings.Join(p.View(c, nil, 40, 3), "\n"); !strings.Contains(v, "no runtime selected") {
		t.Errorf("no runtime:\n%s", v)
	}
}

func TestFocusedCursorPicksTheSession(t *testing.T) {
	c, p := fixture()
	c.Focus = common.PanelSessions
	r := c.Snap.Runtime("runtimes/r-alpha")
	e, ok := p.HandleKey(tea.KeyMsg{Type: tea.KeyDown}, c)
	if mv, isMove := e.(common.MoveSession); !ok || !isMove || mv.N != 1 {
		t.Fatalf("down answered %#v, %v", e, ok)
	}
	if got := p.Move(1, r); got != "runtimes/r-alpha/sessions/colabdash-1a2b" {
		t.Fatalf("move picked %q", got)
	}
	if got := p.Move(5, r); got != "runtimes/r-alpha/sessions/colabdash-1a2b" || p.Cursor() != 1 {
		t.Fatalf("past the end: %q at %d", got, p.Cursor())
	}
	if v := strings.Join(p.View(c, r, 40, 5), "\n"); !strings.Contains(v, "› colabdash-1a2b") {
		t.Errorf("focused cursor not drawn:\n%s", v)
	}
	if p.Selected(r, false) != "" {
		t.Error("a session is selected while the pane has no focus")
	}
}

func TestStaleSessionListSaysWhy(t *testing.T) {
	c, p := fixture()
	c.Snap.ApplySessionsError(commontest.T0, "runtimes/r-alpha", &api.Error{Code: api.Unavailable, Message: "backend\x1b]0;x\x07 down"})
	out := strings.Join(p.View(c, c.Snap.Runtime("runtimes/r-alpha"), 60, 5), "\n")
	if !strings.Contains(out, "▲ stale:") || !strings.Contains(out, "backend") {
		t.Fatalf("stale list:\n%s", out)
	}
	commontest.AssertInert(t, "stale sessions", out, 60)
}

// manySessions is fixture's runtime with n sessions, s0…s{n-1}.
func manySessions(n int) (*common.Context, *Pane, *state.Runtime) {
	c, p := fixture()
	var ss []api.Session
	for i := range n {
		ss = append(ss, api.Session{Name: "runtimes/r-alpha/sessions/s" + strconv.Itoa(i)})
	}
	c.Snap.ApplySessions(commontest.T0, "runtimes/r-alpha", ss)
	return c, p, c.Snap.Runtime("runtimes/r-alpha")
}

// Each cursor key answers how far it moves: a line, a page (the pane's
// lines less its title), or to either end.
func TestCursorKeysMoveByLinePageAndEnd(t *testing.T) {
	c, p := fixture()
	c.Layout.SessLines = 8
	for _, tc := range []struct {
		key  string
		want int
	}{{"up", -1}, {"down", 1}, {"pgup", -7}, {"pgdown", 7}, {"home", -1 << 30}, {"end", 1 << 30}} {
		e, ok := p.HandleKey(commontest.Key(tc.key), c)
		if mv, isMove := e.(common.MoveSession); !ok || !isMove || mv.N != tc.want {
			t.Errorf("%s answered %#v, %v; want a move by %d", tc.key, e, ok, tc.want)
		}
	}
}

// When the list shrinks, the cursor lands on the last session left; a
// cursor past the list selects none.
func TestCursorFollowsAShrinkingList(t *testing.T) {
	c, p, r := manySessions(3)
	p.SetCursor(3)
	if got := p.Selected(r, true); got != "" {
		t.Errorf("a cursor past the list selected %q", got)
	}
	p.SetCursor(2)
	c.Snap.ApplySessions(commontest.T0, "runtimes/r-alpha", []api.Session{{Name: "runtimes/r-alpha/sessions/s0"}, {Name: "runtimes/r-alpha/sessions/s1"}})
	r = c.Snap.Runtime("runtimes/r-alpha")
	p.Clamp(len(r.Sessions))
	if got := p.Selected(r, true); got != "runtimes/r-alpha/sessions/s1" {
		t.Errorf("after the list shrank the cursor picks %q, want the last session", got)
	}
}

// A runtime whose list came back empty says so; one with sessions does not.
func TestEmptySessionListSaysNoOpenSessions(t *testing.T) {
	c, p, r := manySessions(0)
	if v := strings.Join(p.View(c, r, 40, 5), "\n"); !strings.Contains(v, "no open sessions") {
		t.Errorf("empty list:\n%s", v)
	}
	c, p = fixture()
	if v := strings.Join(p.View(c, c.Snap.Runtime("runtimes/r-alpha"), 40, 5), "\n"); strings.Contains(v, "no open sessions") {
		t.Errorf("a list with sessions reads empty:\n%s", v)
	}
}

// More sessions than lines: the pane scrolls just enough to keep the
// focused cursor on its last line.
func TestSessionsScrollToKeepTheCursorShown(t *testing.T) {
	c, p, r := manySessions(8)
	c.Focus = common.PanelSessions
	p.Move(4, r) // five lines: title and four sessions
	lines := commontest.MustSize(t, "sessions", p.View(c, r, 40, 5), 40, 5)
	v := strings.Join(lines, "\n")
	if !strings.Contains(lines[4], "› s4") || strings.Contains(v, "s0 ") || !strings.Contains(lines[1], " s1 ") {
		t.Errorf("cursor on s4 of 8 in four rows, want s1…s4:\n%s", v)
	}
	p.Move(-1, r)
	lines = p.View(c, r, 40, 5)
	if v := strings.Join(lines, "\n"); !strings.Contains(lines[4], "› s3") || !strings.Contains(lines[1], " s0 ") {
		t.Errorf("cursor on s3 fits without scrolling, want s0…s3:\n%s", v)
	}
}

// A poll that shortens the list under the cursor (before any move clamps
// it) leaves every session that fits drawn.
func TestShortenedListStaysDrawnUnderAStaleCursor(t *testing.T) {
	c, p, r := manySessions(8)
	c.Focus = common.PanelSessions
	p.Move(7, r)
	c.Snap.ApplySessions(commontest.T0, "runtimes/r-alpha", []api.Session{{Name: "runtimes/r-alpha/sessions/s0"}, {Name: "runtimes/r-alpha/sessions/s1"}})
	r = c.Snap.Runtime("runtimes/r-alpha")
	v := strings.Join(p.View(c, r, 40, 5), "\n")
	if !strings.Contains(v, " s0 ") || !strings.Contains(v, " s1 ") {
		t.Errorf("two sessions left, cursor on the eighth:\n%s", v)
	}
	// Still more than fit: the window ends on the last session.
	c, p, r = manySessions(8)
	c.Focus = common.PanelSessions
	p.Move(7, r)
	var six []api.Session
	for _, s := range r.Sessions[:6] {
		six = append(six, api.Session{Name: s.Name})
	}
	c.Snap.ApplySessions(commontest.T0, "runtimes/r-alpha", six)
	lines := p.View(c, c.Snap.Runtime("runtimes/r-alpha"), 40, 5)
	if !strings.Contains(lines[1], " s2 ") || !strings.Contains(lines[4], " s5 ") {
		t.Errorf("six sessions left in four rows, cursor on the eighth: want s2…s5:\n%s", strings.Join(lines, "\n"))
	}
}
