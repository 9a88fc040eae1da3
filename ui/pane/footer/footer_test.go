package footer

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/key"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
)

var t0 = commontest.T0

// fixture is the Context of a w-wide dashboard with one runtime, the
// default key map and no colours, showing no status.
func fixture(w int) *common.Context {
	return commontest.Context(w, 24, commontest.Runtime("r-alpha",
		api.RuntimeSpecKey{Variant: api.VariantCPU, Accelerator: api.AcceleratorNone, Shape: api.ShapeStandard}, time.Time{}))
}

// say shows text in the status line for a minute (err: as an error).
func say(c *common.Context, text string, err bool) {
	c.Status = common.Status{Text: text, Err: err, Until: t0.Add(time.Minute)}
}

// view is View checked for its shape: exactly two lines, none wider
// than w.
func view(t *testing.T, c *common.Context, w int, s State) (status, keys string) {
	t.Helper()
	lines := commontest.MustSize(t, "footer", View(c, w, s), w, 2)
	return lines[0], lines[1]
}

// The dashboard's footer: no status, the dashboard's keys (the app
// passes them: it owns those bindings), help and quit first so a narrow
// footer keeps them.
func TestFooterIdle(t *testing.T) {
	for _, w := range []int{60, 120} {
		c := fixture(w)
		status, keys := view(t, c, w, State{Keys: c.Keys.Dashboard.ShortHelp()})
		if status != "" {
			t.Errorf("%d: idle status %q", w, status)
		}
		if !strings.HasPrefix(keys, "? help • q/ctrl+c quit • n new runtime") {
			t.Errorf("%d: keys %q", w, keys)
		}
	}
	c := fixture(120)
	_, keys := view(t, c, 120, State{Keys: c.Keys.Dashboard.ShortHelp()})
	if !strings.Contains(keys, "r refresh") {
		t.Errorf("wide keys %q", keys)
	}
}

// The calls in flight come first, with the spinner, then the status.
func TestFooterCallsInFlight(t *testing.T) {
	c := fixture(120)
	status, _ := view(t, c, 120, State{Calls: 1, Call: "list_runtimes", Spinner: 1})
	if want := SpinnerFrames[1] + " calling list_runtimes…"; status != want {
		t.Errorf("one call: %q, want %q", status, want)
	}
	say(c, "deleting r-alpha…", false)
	status, _ = view(t, c, 120, State{Calls: 3, Spinner: len(SpinnerFrames) + 2, Filter: "t4"})
	if want := SpinnerFrames[2] + " 3 calls in flight… · deleting r-alpha…"; status != want {
		t.Errorf("three calls and a status: %q, want %q", status, want)
	}
}

// A status-line error too long for the screen is cut with a hint that the
// event log has it in full; a short one has no hint.
func TestStatusErrorCutWithHint(t *testing.T) {
	c := fixture(60)
	// Too long for its line: over the dashboard it goes on over the key
	// help's, cut there with the hint; under a layer the keys stay.
	say(c, "delete r-alpha failed: "+strings.Repeat("a long reason ", 10), true)
	if status, keys := view(t, c, 60, State{}); !strings.HasSuffix(status, "(L: in full)") || strings.Contains(keys, "reason") {
		t.Fatalf("under a layer: %q, %q", status, keys)
	}
	if status, more := view(t, c, 60, State{WrapStatus: true}); !strings.HasPrefix(status, "delete r-alpha failed: a long reason") ||
		!strings.Contains(more, "a long reason") || !strings.HasSuffix(more, "(L: in full)") {
		t.Fatalf("status lines %q, %q", status, more)
	}
	// Two lines hold it whole: no hint, and the words are not cut.
	say(c, "delete r-alpha failed: "+strings.Repeat("a long reason ", 5), true)
	if status, more := view(t, c, 60, State{WrapStatus: true}); strings.Contains(status+more, "in full") ||
		strings.Join(strings.Fields(status+" "+more), " ") != "delete r-alpha failed: "+strings.TrimSpace(strings.Repeat("a long reason ", 5)) {
		t.Fatalf("status lines %q, %q", status, more)
	}
	say(c, "delete r-alpha failed: short", true)
	if status, _ := view(t, c, 60, State{}); strings.Contains(status, "in full") || status != "delete r-alpha failed: short" {
		t.Fatalf("a short error: %q", status)
	}
	// The hint names the event log's key in effect.
	if err := c.Keys.Rebind(keymap.ActionEvents, "ctrl+l"); err != nil {
		t.Fatal(err)
	}
	say(c, "delete r-alpha failed: "+strings.Repeat("a long reason ", 10), true)
	if status, _ := view(t, c, 60, State{Calls: 2}); !strings.HasSuffix(status, "(ctrl+l: in full)") {
		t.Fatalf("after the calls in flight, rebound: %q", status)
	}
}

// With nothing to say, the status line shows code running in the hidden
// console (how long, and the key that shows it), else the filter; a
// status past its time is not shown.
func TestFooterRunningCodeAndFilter(t *testing.T) {
	c := fixture(80)
	running := State{Running: true, RunningSince: t0.Add(-5 * time.Second), Spinner: 3, Filter: "t4"}
	status, _ := view(t, c, 80, running)
	if want := SpinnerFrames[3] + " code running 5s (e shows it)"; status != want {
		t.Errorf("running: %q, want %q", status, want)
	}
	if status, _ := view(t, c, 80, State{Filter: "t4"}); status != "filter: t4 (esc clears)" {
		t.Errorf("filter: %q", status)
	}
	if status, _ := view(t, c, 80, State{Filter: "t4\x1b[2J"}); strings.Contains(status, "\x1b") {
		t.Errorf("a control reached the status line: %q", status)
	}
	c.Status = common.Status{Text: "copied", Until: t0} // expired at t0
	if status, _ := view(t, c, 80, running); !strings.Contains(status, "code running") {
		t.Errorf("an expired status hides the running code: %q", status)
	}
	say(c, "copied", false)
	if status, _ := view(t, c, 80, running); status != "copied" {
		t.Errorf("a status over the running code: %q", status)
	}
}

// Under an overlay the footer shows that overlay's keys, never the
// dashboard's (which do nothing under it).
func TestFooterShowsTheTopLayersKeys(t *testing.T) {
	c := fixture(80)
	_, keys := view(t, c, 80, State{Keys: []key.Binding{common.HelpKey("esc", "close"), common.HelpKey("enter", "switch")}})
	if keys != "esc close • enter switch" {
		t.Errorf("overlay keys: %q", keys)
	}
	// A narrow footer cuts the key help to the width.
	var many []key.Binding
	for range 20 {
		many = append(many, common.HelpKey("ctrl+x", "something long"))
	}
	view(t, c, 60, State{Keys: many})
}
