package runtimes

import (
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
)

var (
	specT4  = api.RuntimeSpecKey{Variant: api.VariantGPU, Accelerator: "T4", Shape: api.ShapeStandard}
	specCPU = api.RuntimeSpecKey{Variant: api.VariantCPU, Accelerator: api.AcceleratorNone, Shape: api.ShapeStandard}
)

// fixture: three runtimes, one whose token expires in 3 minutes.
func fixture() (*common.Context, *Pane) {
	t0 := commontest.T0
	c := commontest.Context(100, 30,
		commontest.Runtime("r-alpha", specCPU, t0.Add(50*time.Minute)),
		commontest.Runtime("r-bravo", specT4, t0.Add(3*time.Minute)),
		commontest.Runtime("r-charlie", specT4, time.Time{}))
	p := New()
	p.Sync(c)
	return c, p
}

func TestViewDrawsEveryRuntimeInExactlyItsLines(t *testing.T) {
	c, p := fixture()
	lines := p.View(c, commontest.T0, false)
	commontest.AssertSize(t, "table", lines, c.Layout.W, c.Layout.TableRows+2)
	v := strings.Join(lines, "\n")
	for _, want := range []string{"RUNTIMES 3", "sort: name", "NAME", "TOKEN", "›  r-alpha", "50m OK", "3m EXPIRING", "– UNKNOWN"} {
		if !strings.Contains(v, want) {
			t.Errorf("table lacks %q:\n%s", want, v)
		}
	}
}

func TestKeysMoveTheCursorAndSelectByName(t *testing.T) {
	c, p := fixture()
	e, ok := p.HandleKey(commontest.Key("j"), c)
	if mv, isMove := e.(common.Move); !ok || !isMove || mv.N != 1 {
		t.Fatalf("j answered %#v, %v", e, ok)
	}
	if _, ok := p.HandleKey(commontest.Key("d"), c); ok {
		t.Fatal("the table took d, a dashboard key")
	}
	if !p.Move(1, 10) || p.Selected() != "runtimes/r-bravo" {
		t.Fatalf("move selected %q", p.Selected())
	}
	// Sorting by expiry puts r-bravo first: the selection follows it.
	p.SortBy(keymap.ActionSortExpiry)
	p.Sync(c)
	if p.Selected() != "runtimes/r-bravo" || p.Rows()[p.Cursor()].Name != "runtimes/r-bravo" {
		t.Fatalf("after sorting by %v: selected %q at cursor %d", p.SortWord(), p.Selected(), p.Cursor())
	}
}

func TestFilterCountsWhatItHides(t *testing.T) {
	c, p := fixture()
	p.SetFilter("t4")
	if lost := p.Sync(c); !lost || len(p.Rows()) != 2 || p.Selected() != "runtimes/r-bravo" {
		t.Fatalf("filter t4: %d rows, selected %q (lost %v)", len(p.Rows()), p.Selected(), lost)
	}
	if title := p.View(c, commontest.T0, false)[0]; !strings.Contains(title, "RUNTIMES 2 of 3") || !strings.Contains(title, "filter: t4") {
		t.Fatalf("title %q", title)
	}
	p.SetFilter("nothing-matches")
	p.Sync(c)
	if v := strings.Join(p.View(c, commontest.T0, false), "\n"); !strings.Contains(v, "no runtime matches the filter") {
		t.Fatalf("empty filter result:\n%s", v)
	}
}

func TestActivityShowsInTheTokenColumn(t *testing.T) {
	c, p := fixture()
	c.Activity.Deleting["runtimes/r-alpha"] = commontest.T0.Add(-3 * time.Second)
	c.Activity.Renewals = commontest.Renewals{Renewing: map[string]bool{"runtimes/r-bravo": true}}
	c.Activity.Creating = func(time.Time) []common.Creation {
		return []common.Creation{{Name: "new runtime", Spec: "GPU/A100/HIGHMEM", Status: "creating… 4s"}}
	}
	lines := p.View(c, commontest.T0, false)
	commontest.AssertSize(t, "table", lines, c.Layout.W, c.Layout.TableRows+2)
	v := strings.Join(lines, "\n")
	for _, want := range []string{" + new runtime", "creating… 4s", "deleting… 3s", "EXPIRING ↻"} {
		if !strings.Contains(v, want) {
			t.Errorf("table lacks %q:\n%s", want, v)
		}
	}
	if got := Visible(c.Layout.TableRows, 1); got != c.Layout.TableRows-1 {
		t.Errorf("a create takes one row: %d visible of %d", got, c.Layout.TableRows)
	}
}

func TestHostileNamesStayInert(t *testing.T) {
	c := commontest.Context(80, 24, commontest.Runtime("rt-\x1b]52;c;aGk=\x07x\u202e", specT4, commontest.T0.Add(time.Hour)))
	p := New()
	p.Sync(c)
	commontest.AssertInert(t, "table", strings.Join(p.View(c, commontest.T0, false), "\n"), 80)
}

// A gone runtime stays listed as such, never with a countdown.
func TestGoneRuntimeReadsGone(t *testing.T) {
	c, p := fixture()
	c.Snap.MarkRuntimeGone(commontest.T0, "runtimes/r-charlie", "NOT_FOUND")
	p.Sync(c)
	v := strings.Join(p.View(c, commontest.T0.Add(2*time.Minute), false), "\n")
	if !strings.Contains(v, "GONE 2m ago") || !strings.Contains(v, "1 gone") {
		t.Fatalf("gone row:\n%s", v)
	}
}
