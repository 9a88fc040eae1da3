package sessions

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
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
