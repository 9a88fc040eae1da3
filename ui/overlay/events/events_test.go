package events

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
)

var t0 = commontest.T0

// fixture is the Context of a w×h dashboard with the demo's three
// runtimes.
func fixture(w, h int) *common.Context {
	cpu := api.RuntimeSpecKey{Variant: api.VariantCPU, Accelerator: api.AcceleratorNone, Shape: api.ShapeStandard}
	return commontest.OverlayContext(w, h, false, commontest.Runtime("rt-t4demo7k2p", cpu, time.Time{}),
		commontest.Runtime("rt-cpudemo4qx", cpu, time.Time{}), commontest.Runtime("rt-v6edemo2mw", cpu, time.Time{}))
}

// logOf is a Log holding evs, the last one newest.
func logOf(evs ...Event) *Log {
	l := &Log{}
	for _, e := range evs {
		l.Add(e)
	}
	return l
}

// The ring keeps the last Size events, newest first.
func TestLogKeepsTheLastSize(t *testing.T) {
	l := &Log{}
	for i := 0; i < Size+10; i++ {
		l.Add(Event{At: t0.Add(time.Duration(i) * time.Second), Tool: "list_runtimes"})
	}
	evs := l.NewestFirst()
	if len(evs) != Size {
		t.Fatalf("%d events kept", len(evs))
	}
	if newest, oldest := evs[0].At.Sub(t0), evs[Size-1].At.Sub(t0); newest != time.Duration(Size+9)*time.Second || oldest != 10*time.Second {
		t.Fatalf("newest %v, oldest %v after t0", newest, oldest)
	}
	if len((&Log{}).NewestFirst()) != 0 {
		t.Fatal("an empty log lists events")
	}
}

// The outcome column: ok, the canonical code, "stale" for a note, the
// class of a runtime file's failure (never UNKNOWN for those).
func TestOutcome(t *testing.T) {
	for _, tc := range []struct {
		ev   Event
		want string
	}{
		{Event{}, "ok"},
		{Event{Err: &api.Error{Code: api.FailedPrecondition}}, "FAILED_PRECONDITION"},
		{Event{Note: "token stale"}, "stale"},
		{Event{Refused: "not deleting /content"}, "refused"},
		{Event{Tool: "plugin gpu-watch", Output: "gpu 93%"}, "output"},
		{Event{Err: &jupyter.Error{Op: "download", Runtime: "rt-a", Path: "content/x.csv", Kind: jupyter.ErrLocal}}, "local error"},
		{Event{Err: fmt.Errorf("files: %w", &jupyter.Error{Op: "list", Kind: jupyter.ErrNotFound})}, "not found"},
	} {
		if got := tc.ev.Outcome(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.ev, got, tc.want)
		}
	}
}

// The latency column: milliseconds below a second, from a second on
// seconds with one decimal.
func TestLatencyFormat(t *testing.T) {
	for d, want := range map[time.Duration]string{999 * time.Millisecond: "999ms", time.Second: "1.0s", 2400 * time.Millisecond: "2.4s"} {
		if got := formatLatency(d); got != want {
			t.Errorf("%v: %q, want %q", d, got, want)
		}
	}
}

// TestEventLogPanel: a failed renewal shows its code, its target in
// short, and its whole error wrapped below, the secrets redacted.
func TestEventLogPanel(t *testing.T) {
	c := fixture(80, 40)
	c.Redact = func(s string) string { return strings.ReplaceAll(s, "proxy token", "[redacted]") }
	o := New(logOf(
		Event{At: t0, Tool: "list_runtimes", Latency: 850 * time.Millisecond},
		Event{At: t0.Add(time.Second), Tool: "get_runtime", Target: "runtimes/r-charlie", Latency: 2400 * time.Millisecond,
			Err: &api.Error{Code: api.FailedPrecondition, HTTPStatus: 400,
				Message: "The runtime is being deleted and its proxy token cannot be renewed until the deletion finishes; try again later"}},
	))
	v := commontest.Screen(t, o, c)
	for _, want := range []string{"EVENTS 2", "list_runtimes", "850ms", "2.4s", "17:00:01", "FAILED_PRECONDITION", "FAILED_PRECONDITION  r-charlie",
		"until the deletion", "finishes; try again later", "[redacted]"} {
		if !strings.Contains(v, want) {
			t.Errorf("event log lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "proxy token") {
		t.Errorf("event log shows an unredacted error:\n%s", v)
	}
	if strings.Index(v, "get_runtime") > strings.Index(v, "list_runtimes") {
		t.Errorf("not newest first:\n%s", v)
	}
	if empty := commontest.Screen(t, New(&Log{}), c); !strings.Contains(empty, "EVENTS 0") || !strings.Contains(empty, "no API calls yet") {
		t.Errorf("empty log:\n%s", empty)
	}
}

// An error's text wraps at word boundaries, so a URL stays on one line.
func TestEventErrorWrappedAtWords(t *testing.T) {
	const url = "https://console.cloud.google.com/apis/api/colab.googleapis.com/quotas?project=my-project"
	msg := "Quota exceeded for quota metric 'Create requests' and limit 'Create requests per minute per user' of service colab.googleapis.com; see " + url + " for the limits in force."
	o := New(logOf(Event{At: t0, Tool: api.ToolCreateRuntime, Target: "T4",
		Err: &api.Error{Tool: api.ToolCreateRuntime, Code: api.ResourceExhausted, Reason: api.ReasonQuotaExceededUsageTime, Message: msg}}))
	for _, w := range []int{120, 100} {
		lines := commontest.Draw(t, o, fixture(w, 40))
		v := strings.Join(lines, "\n")
		flat := strings.Join(strings.Fields(v), " ")
		if !strings.Contains(flat, "limits in force") || !strings.Contains(flat, "RESOURCE_EXHAUSTED") {
			t.Fatalf("%d: the full error is not in the event log:\n%s", w, v)
		}
		if !strings.Contains(v, url) {
			t.Fatalf("%d: the URL is split across lines:\n%s", w, v)
		}
		for _, ln := range lines {
			// Word boundaries: no line of the error ends inside a word
			// that the next line continues.
			if strings.HasSuffix(ln, "Cre") || strings.HasSuffix(ln, "minu") {
				t.Fatalf("%d: a word is broken: %q", w, ln)
			}
		}
	}
}

// On a narrow screen every event still names its target whole, in the
// short form the commands take (rt-…, rt-…/session): a cut
// "runtimes/rt-t4d…" could be any of the runtime's calls.
func TestEventLogTargetsWholeWhenNarrow(t *testing.T) {
	const sess = "runtimes/rt-t4demo7k2p/sessions/colabdash-1a2b3c4d"
	o := New(logOf(
		Event{At: t0, Tool: api.ToolListRuntimes},
		Event{At: t0, Tool: api.ToolListSessions, Target: "runtimes/rt-cpudemo4qx"},
		Event{At: t0, Tool: api.ToolListSessions, Target: "runtimes/rt-v6edemo2mw"},
		Event{At: t0, Tool: api.ToolCreateSession, Target: sess},
		Event{At: t0, Tool: api.ToolDeleteSession, Target: sess},
		Event{At: t0, Tool: api.ToolGetRuntime, Target: "runtimes/rt-v6edemo2mw", Err: &api.Error{Code: api.FailedPrecondition, Message: "being deleted"}},
	))
	v := commontest.Screen(t, o, fixture(60, 30))
	for _, want := range []string{"rt-t4demo7k2p/colabdash-1a2b3c4d", "rt-cpudemo4qx", "rt-v6edemo2mw"} {
		if !strings.Contains(v, want) {
			t.Errorf("event log lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "runtimes/") {
		t.Fatalf("the event log spends its width on runtimes/:\n%s", v)
	}
	// The widest outcome pushes its target onto a line of its own.
	if !strings.Contains(v, "FAILED_PRECONDITION") || !strings.Contains(v, "\n      rt-v6edemo2mw\n") {
		t.Errorf("a failed call's target:\n%s", v)
	}
	// A call with no target says so with a dash.
	if !strings.Contains(v, "list_runtimes") || !strings.Contains(v, "ok  –") {
		t.Errorf("an account-wide call:\n%s", v)
	}
}

// ↑/↓ and pgup/pgdn scroll (never past either end), esc and L close, q
// and ctrl+c quit, and a dashboard key (n: new runtime) does nothing.
func TestEventLogKeys(t *testing.T) {
	c := fixture(80, 15)
	var evs []Event
	for i := range 30 {
		evs = append(evs, Event{At: t0.Add(time.Duration(i) * time.Second), Tool: fmt.Sprintf("call_%02d", i)})
	}
	o := New(logOf(evs...))
	first := func() string { return strings.Fields(commontest.Draw(t, o, c)[3])[1] } // the first event shown
	if got := first(); got != "call_29" {
		t.Fatalf("first shown %q, want the newest", got)
	}
	o.HandleKey(commontest.Key("j"), c)
	if got := first(); got != "call_28" {
		t.Fatalf("after j: %q", got)
	}
	o.HandleKey(commontest.Key("pgdown"), c) // a page: 15-6 lines
	if got := first(); got != "call_19" {
		t.Fatalf("after pgdn: %q", got)
	}
	for range 10 {
		o.HandleKey(commontest.Key("pgdown"), c)
	}
	lines := commontest.Draw(t, o, c)
	if last := lines[len(lines)-3]; !strings.Contains(last, "call_00") {
		t.Fatalf("pgdn past the end does not stop at the oldest (%q):\n%s", last, strings.Join(lines, "\n"))
	}
	o.HandleKey(commontest.Key("k"), c) // one up from the end, not from beyond it (the oldest then below "↓ more")
	if got := commontest.Draw(t, o, c); first() != "call_10" || !strings.Contains(got[len(got)-3], "↓ more") {
		t.Fatalf("k after scrolling past the end:\n%s", strings.Join(got, "\n"))
	}
	for range 10 {
		o.HandleKey(commontest.Key("pgup"), c)
	}
	if got := first(); got != "call_29" {
		t.Fatalf("pgup back to the top: %q", got)
	}
	o.HandleKey(commontest.Key("G"), c) // the end: the oldest on the last line
	if lines := commontest.Draw(t, o, c); first() != "call_09" || !strings.Contains(lines[len(lines)-3], "call_00") {
		t.Fatalf("G did not go to the end:\n%s", strings.Join(lines, "\n"))
	}
	o.HandleKey(commontest.Key("g"), c)
	if got := first(); got != "call_29" {
		t.Fatalf("g did not go back to the newest: %q", got)
	}
	commontest.AssertOverlay(t, func() common.Overlay { return o }, c, commontest.OverlaySpec{
		Name: "event log", Footer: "↑/↓ scroll · pgup/pgdn page · / filter · L/esc close · q/ctrl+c quit",
		Close: []string{"esc", "L"}, Quit: []string{"q", "ctrl+c"}, Inert: []string{"n", "d"},
	})
}

// The log drawn is the one the dashboard keeps adding to: an event added
// while the overlay is open shows at the next frame.
func TestEventLogFollowsItsLog(t *testing.T) {
	l := logOf(Event{At: t0, Tool: "list_runtimes"})
	o, c := New(l), fixture(80, 24)
	commontest.Draw(t, o, c)
	l.Add(Event{At: t0, Tool: "connect", Target: "work", Err: errors.New("no Google credentials found")})
	v := commontest.Screen(t, o, c)
	if !strings.Contains(v, "EVENTS 2") || !strings.Contains(v, "connect") || !strings.Contains(v, "no Google credentials found") {
		t.Fatalf("the new event is not shown:\n%s", v)
	}
}

// / filters the event log as it does the runtimes and the files
// pane: the log narrows as the filter is typed (in the line, the target
// and the error text), enter keeps it, esc in the log clears it before it
// closes the log, and esc on the line clears it and says so.
func TestEventLogFilter(t *testing.T) {
	c := fixture(80, 24)
	o := New(logOf(
		Event{At: t0, Tool: "list_runtimes"},
		Event{At: t0, Tool: "get_runtime", Target: "runtimes/rt-alpha"},
		Event{At: t0, Tool: "delete_runtime", Target: "runtimes/rt-bravo", Err: &api.Error{Code: api.NotFound, Message: "the runtime is GONE already"}},
	))
	eff := o.HandleKey(commontest.Key("/"), c)
	open, ok := eff.(common.Open)
	if !ok {
		t.Fatalf("/: %#v, want an Open of the filter line", eff)
	}
	line := open.Overlay
	for _, r := range "gone" {
		line.HandleKey(commontest.Key(string(r)), c)
	}
	lines := commontest.Draw(t, o, c, line)
	v := strings.Join(lines, "\n")
	if !strings.Contains(v, "EVENTS 1 of 3") || !strings.Contains(v, "delete_runtime") || strings.Contains(v, "get_runtime") ||
		!strings.Contains(lines[c.Layout.H-2], "/gone") {
		t.Fatalf("filtered on an error's text:\n%s", v)
	}
	if eff := line.HandleKey(commontest.Key("enter"), c); !commontest.SameKind(eff, common.Close{}) || o.Filter() != "gone" {
		t.Fatalf("enter: %#v, filter %q", eff, o.Filter())
	}
	o.SetFilter("ALPHA") // the target, ignoring case
	if v := commontest.Screen(t, o, c); !strings.Contains(v, "get_runtime") || strings.Contains(v, "list_runtimes") {
		t.Fatalf("filtered on the target:\n%s", v)
	}
	o.SetFilter("nothing like it")
	if v := commontest.Screen(t, o, c); !strings.Contains(v, "EVENTS 0 of 3") || !strings.Contains(v, "no event holds the filter (esc clears it)") {
		t.Fatalf("nothing holds the filter:\n%s", v)
	}
	// esc clears the filter first (and says so), then closes the log.
	if eff, ok := o.HandleKey(commontest.Key("esc"), c).(common.Say); !ok || eff.Text != "event log filter cleared" || o.Filter() != "" {
		t.Fatalf("esc with a filter: %#v, filter %q", eff, o.Filter())
	}
	if eff := o.HandleKey(commontest.Key("esc"), c); !commontest.SameKind(eff, common.Close{}) {
		t.Fatalf("esc without a filter: %#v", eff)
	}
	// Reopened, the line holds the filter selected; esc there clears it.
	o.SetFilter("alpha")
	line = o.HandleKey(commontest.Key("/"), c).(common.Open).Overlay
	if eff, ok := line.HandleKey(commontest.Key("esc"), c).(common.Close); !ok || eff.Text != "event log filter cleared" || o.Filter() != "" {
		t.Fatalf("esc on the line: %#v, filter %q", eff, o.Filter())
	}
	if eff := line.HandleKey(commontest.Key("ctrl+c"), c); !commontest.SameKind(eff, common.Quit{}) {
		t.Fatalf("ctrl+c on the line: %#v", eff)
	}
}

// At 60×15 the log says "↓ more" when lines are below the last
// one shown, and not once the end is on screen.
func TestEventLogSaysMoreBelow(t *testing.T) {
	c := fixture(60, 15)
	var evs []Event
	for i := range 20 {
		evs = append(evs, Event{At: t0, Tool: fmt.Sprintf("call_%02d", i)})
	}
	o := New(logOf(evs...))
	lines := commontest.Draw(t, o, c)
	if last := lines[c.Layout.H-3]; !strings.Contains(last, "↓ more") {
		t.Fatalf("no ↓ more with 20 events on 10 rows:\n%s", strings.Join(lines, "\n"))
	}
	for range 5 {
		o.HandleKey(commontest.Key("pgdown"), c)
	}
	lines = commontest.Draw(t, o, c)
	if v := strings.Join(lines, "\n"); strings.Contains(v, "↓ more") || !strings.Contains(lines[c.Layout.H-3], "call_00") {
		t.Fatalf("at the end:\n%s", v)
	}
	if v := commontest.Screen(t, New(logOf(evs[:3]...)), c); strings.Contains(v, "↓ more") {
		t.Fatalf("↓ more with everything shown:\n%s", v)
	}
}

// Why a key did nothing is kept whole (the status line cuts it): its
// outcome is "refused", its text below, found by the filter.
func TestEventLogKeepsARefusalWhole(t *testing.T) {
	c := fixture(60, 24)
	const why = "not deleting /content: colabdash never removes /content itself or a top-level directory"
	o := New(logOf(Event{At: t0, Tool: "files pane", Target: "runtimes/rt-a", Refused: why}))
	v := commontest.Screen(t, o, c)
	if !strings.Contains(v, "files pane") || !strings.Contains(v, "refused  rt-a") ||
		!strings.Contains(strings.Join(strings.Fields(v), " "), why) {
		t.Fatalf("refusal:\n%s", v)
	}
	o.SetFilter("top-level")
	if v := commontest.Screen(t, o, c); !strings.Contains(v, "EVENTS 1 of 1") {
		t.Fatalf("the filter does not find the refusal's text:\n%s", v)
	}
}

// In colour, a failure's outcome is drawn as an error, a note's and a
// refusal's as a warning, and a call that succeeded or a plugin's output
// plainly.
func TestEventLogOutcomeColours(t *testing.T) {
	c := fixture(100, 24)
	c.Styles = commontest.ANSIStyles()
	o := New(logOf(
		Event{At: t0, Tool: "list_runtimes"},
		Event{At: t0, Tool: "plugin gpu-watch", Output: "gpu 93%"},
		Event{At: t0, Tool: "get_runtime", Err: &api.Error{Code: api.FailedPrecondition, Message: "being deleted"}},
		Event{At: t0, Tool: "list_sessions", Note: "waiting for the call budget"},
		Event{At: t0, Tool: "files pane", Refused: "not deleting /content"},
	))
	lines := commontest.Draw(t, o, c)
	line := func(tool string) string {
		for _, l := range lines {
			if strings.Contains(ansi.Strip(l), tool) {
				return l
			}
		}
		t.Fatalf("no line for %s:\n%s", tool, strings.Join(lines, "\n"))
		return ""
	}
	errWord, warnWord := func(s string) string { return c.Styles.ErrText.Render(s) }, func(s string) string { return c.Styles.Warn.Render(s) }
	if errWord("x") == warnWord("x") || errWord("x") == "x" {
		t.Fatalf("the fixture's error and warning styles do not differ: %q %q", errWord("x"), warnWord("x"))
	}
	for _, tc := range []struct{ tool, word, want string }{
		{"get_runtime", "FAILED_PRECONDITION", errWord("FAILED_PRECONDITION")},
		{"list_sessions", "stale", warnWord("stale")},
		{"files pane", "refused", warnWord("refused")},
		{"list_runtimes", "ok", " ok "},
		{"plugin gpu-watch", "output", " output "},
	} {
		if l := line(tc.tool); !strings.Contains(l, tc.want) {
			t.Errorf("%s: the outcome %s is not drawn as %q: %q", tc.tool, tc.word, tc.want, l)
		}
	}
}

// Reopened on a filter, the line shows it selected, and typing replaces
// it; a filter longer than the screen keeps the line's hint on screen.
func TestEventLogFilterLineReopened(t *testing.T) {
	c := fixture(80, 24)
	o := New(logOf(Event{At: t0, Tool: "list_runtimes"}, Event{At: t0, Tool: "get_runtime", Target: "runtimes/rt-alpha"}))
	o.SetFilter("alpha")
	line := o.HandleKey(commontest.Key("/"), c).(common.Open).Overlay
	status := func() string { return ansi.Strip(commontest.Draw(t, line, c)[c.Layout.H-2]) }
	commontest.MustContain(t, status(), "/alpha", "type to replace · backspace edits  enter apply · esc clear")
	line.HandleKey(commontest.Key("g"), c)
	if o.Filter() != "g" {
		t.Fatalf("typing on the reopened line: filter %q, want the old one replaced", o.Filter())
	}
	for range 120 {
		line.HandleKey(commontest.Key("x"), c)
	}
	if s := status(); !strings.HasSuffix(strings.TrimRight(s, " "), "enter apply · esc clear") || !strings.Contains(s, "xxx") {
		t.Fatalf("a long filter's line: %q", s)
	}
}

// A target goes to a line of its own only when the event's line would be
// wider than the screen: one that fits exactly stays beside its outcome,
// and a call with no target (its "–") never takes a line for the dash.
func TestEventLogTargetLineOnlyWhenTooWide(t *testing.T) {
	c := fixture(80, 24)
	width := func(target string) int { // the event's line with target, as drawn alone
		lines := commontest.Draw(t, New(logOf(Event{At: t0, Tool: "get_runtime", Target: target})), c)
		return ansi.StringWidth(strings.TrimRight(lines[3], " "))
	}
	prefix := width("runtimes/x") - 1
	id := "rt-" + strings.Repeat("z", 80-prefix-3) // the line exactly 80 cells wide
	v := commontest.Screen(t, New(logOf(Event{At: t0, Tool: "get_runtime", Target: "runtimes/" + id})), c)
	if !strings.Contains(v, "ok  "+id) {
		t.Errorf("a line exactly the screen's width moved its target:\n%s", v)
	}
	c = fixture(60, 24)
	lines := commontest.Draw(t, New(logOf(Event{At: t0, Tool: "list_runtimes", Err: &api.Error{Code: api.FailedPrecondition, Message: "being deleted"}})), c)
	for _, l := range lines {
		if strings.TrimSpace(l) == "–" {
			t.Fatalf("the dash of a call with no target took a line:\n%s", strings.Join(lines, "\n"))
		}
	}
	commontest.MustContain(t, strings.Join(lines, "\n"), "FAILED_PRECONDITION", "being deleted")
}
