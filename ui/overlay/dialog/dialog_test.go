package dialog

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
)

// replies opens d with an answer that records its replies; the effect
// of a reply is a Say naming it.
func replies(d *Dialog) *[]Reply {
	var got []Reply
	d.OnAnswer = func(_ *common.Context, r Reply) common.Effect {
		got = append(got, r)
		return common.Say{Text: "answered"}
	}
	return &got
}

// fixture is a Context of a 100×30 screen on a clock of its own (at
// commontest.T0), which the test moves (the keyboard's Press does, by
// the grace period, before each key).
func fixture() (commontest.Keyboard, *common.Context) {
	kb := commontest.Keyboard{Clock: &commontest.Clock{}, Gap: Grace + time.Millisecond}
	c := commontest.OverlayContext(100, 30, false)
	c.Now = kb.Now
	return kb, c
}

// answered reports the effect Then of an Answer that closes d, failing
// when e is not one.
func answered(t *testing.T, e common.Effect, d *Dialog) common.Effect {
	t.Helper()
	a, ok := e.(common.Answer)
	if !ok || a.Dialog != d {
		t.Fatalf("effect %#v does not close the dialog", e)
	}
	return a.Then
}

// A key already on its way when a confirmation opened does not answer
// it, and the status line says it was ignored; the bottom border is
// dotted until the grace period is over, and a regrace starts it anew.
func TestGraceIgnoresEarlyKeys(t *testing.T) {
	kb, c := fixture()
	d := New(Confirm, kb.Now(), "Delete runtime rt-x?")
	got := replies(d)
	ignored := func(e common.Effect, what string) {
		t.Helper()
		if s, ok := e.(common.Say); !ok || !strings.HasPrefix(s.Text, what+" ignored: the question had only just appeared") || len(*got) != 0 {
			t.Fatalf("%s inside the grace period: %#v, replies %+v", what, e, *got)
		}
	}
	ignored(d.HandleKey(commontest.Key("y"), c), "key y")
	commontest.MustContain(t, commontest.Box(t, d, c, 80), "└┄┄")
	kb.Add(Grace - time.Millisecond)
	ignored(d.HandleKey(commontest.Key("y"), c), "key y")
	ignored(d.HandleKey(commontest.Paste("yes"), c), "pasted text")
	kb.Add(time.Millisecond)
	if v := commontest.Box(t, d, c, 80); strings.Contains(v, "┄") {
		t.Fatalf("still dotted after the grace period:\n%s", v)
	}
	d.Regrace(kb.Now())
	ignored(d.HandleKey(commontest.Key("y"), c), "key y")
	commontest.MustContain(t, commontest.Box(t, d, c, 80), "└┄┄")
	if then := answered(t, kb.Press(t, d, c, "y"), d); then != (common.Say{Text: "answered"}) || !(*got)[0].OK {
		t.Fatalf("y after the grace period: %#v, replies %+v", then, *got)
	}
}

// esc backs out of a confirmation even inside its grace period: a stray
// esc only cancels, which is always safe.
func TestEscCancelsInsideTheGrace(t *testing.T) {
	kb, c := fixture()
	d := New(Typed, kb.Now(), "Close NOTEBOOK session s?")
	d.Want = "close"
	got := replies(d)
	if answered(t, d.HandleKey(commontest.Key("esc"), c), d); len(*got) != 1 || (*got)[0].OK {
		t.Fatalf("esc inside the grace: replies %+v", *got)
	}
}

// Only confirmations are guarded: a choice or an input line takes keys
// typed ahead at once (no dotted border), unless its opener guards it
// (one that appears by itself).
func TestOnlyGuardedDialogsIgnoreEarlyKeys(t *testing.T) {
	kb, c := fixture()
	for kind, guarded := range map[Kind]bool{Confirm: true, Typed: true, Input: false, Choice: false} {
		if d := New(kind, kb.Now(), "t"); d.Guard != guarded {
			t.Errorf("kind %d: Guard %v, want %v", kind, d.Guard, guarded)
		}
	}
	ch := NewChoice(kb.Now(), "New runtime: variant", []Item{{Label: "CPU"}, {Label: "GPU"}}, 0)
	got := replies(ch)
	if v := commontest.Box(t, ch, c, 80); strings.Contains(v, "┄") {
		t.Fatalf("an unguarded choice is drawn as ignoring keys:\n%s", v)
	}
	if e := ch.HandleKey(commontest.Key("j"), c); e != nil || ch.Cursor() != 1 {
		t.Fatalf("j typed ahead: %#v, cursor %d", e, ch.Cursor())
	}
	if answered(t, ch.HandleKey(commontest.Key("enter"), c), ch); len(*got) != 1 || (*got)[0].Choice != 1 {
		t.Fatalf("enter typed ahead: replies %+v", *got)
	}
	in := New(Input, kb.Now(), "Open a session on rt-x")
	in.HandleKey(commontest.Key("s1"), c)
	if in.Input() != "s1" {
		t.Fatalf("text typed ahead into an input: %q", in.Input())
	}
	g := NewChoice(kb.Now(), "Create GPU: outcome unknown", []Item{{Label: "re-send"}, {Label: "leave it"}}, 0)
	g.Guard = true
	if e, ok := g.HandleKey(commontest.Key("enter"), c).(common.Say); !ok || !strings.Contains(e.Text, "key enter ignored") {
		t.Fatalf("enter on a guarded choice inside its grace: %#v", e)
	}
}

// Only y confirms; enter, esc and every other key cancel; ctrl+c quits
// the dashboard without answering.
func TestConfirmOnlyY(t *testing.T) {
	kb, c := fixture()
	for _, k := range []string{"enter", "esc", "n", "Y", " "} {
		d := New(Confirm, kb.Now(), "Delete runtime rt-x?", "This cannot be undone.")
		got := replies(d)
		answered(t, kb.Press(t, d, c, k), d)
		if len(*got) != 1 || (*got)[0].OK {
			t.Fatalf("%q: replies %+v, want one cancel", k, *got)
		}
	}
	// ctrl+c quits from every kind of dialog, inside its grace period or
	// not, and answers nothing (README promises it, as in k9s).
	for _, d := range []*Dialog{New(Confirm, kb.Now(), "Delete runtime rt-x?"), New(Typed, kb.Now(), "Close NOTEBOOK session s?"),
		New(Input, kb.Now(), "Open a session on rt-x"), NewChoice(kb.Now(), "New runtime: variant", []Item{{Label: "CPU"}}, 0)} {
		got := replies(d)
		if e := d.HandleKey(commontest.Key("ctrl+c"), c); e != (common.Quit{}) || len(*got) != 0 {
			t.Fatalf("%s: ctrl+c: %#v, replies %+v; want a quit and no answer", d.Title, e, *got)
		}
		if e := kb.Press(t, d, c, "ctrl+c"); e != (common.Quit{}) || len(*got) != 0 {
			t.Fatalf("%s: ctrl+c after the grace: %#v, replies %+v", d.Title, e, *got)
		}
	}
	d := New(Confirm, kb.Now(), "Delete runtime rt-x?", "This cannot be undone.")
	commontest.MustContain(t, commontest.Box(t, d, c, 80), "Delete runtime rt-x?", "This cannot be undone.", "y confirm · any other key cancels")
	if ks := d.Keys(c); len(ks) != 2 || ks[0].Help().Key != "y" {
		t.Fatalf("footer keys %+v", ks)
	}
}

// A dialog without an answer just closes.
func TestNoAnswerJustCloses(t *testing.T) {
	kb, c := fixture()
	d := New(Confirm, kb.Now(), "On top")
	if then := answered(t, kb.Press(t, d, c, "y"), d); then != nil {
		t.Fatalf("then %#v", then)
	}
}

// Typing the wrong word and Enter in a typed confirmation says what to
// type, until the next key; the right word confirms with it as input.
func TestTypedConfirmMismatchSaysSo(t *testing.T) {
	kb, c := fixture()
	d := New(Typed, kb.Now(), "Close NOTEBOOK session s1?", "Closing it shuts its kernel down.")
	d.Want = "close"
	got := replies(d)
	commontest.MustContain(t, commontest.Box(t, d, c, 80), "Close NOTEBOOK session", "type close and press enter (esc cancels)")
	if e := kb.Press(t, d, c, "c", "l", "o", "s", "enter"); e != nil {
		t.Fatalf("clos confirmed: %#v", e)
	}
	commontest.MustContain(t, commontest.Box(t, d, c, 80), "type close to confirm")
	kb.Press(t, d, c, "e")
	if v := commontest.Box(t, d, c, 80); strings.Contains(v, "✕") {
		t.Fatalf("the mismatch stayed after the next key:\n%s", v)
	}
	answered(t, kb.Press(t, d, c, "enter"), d)
	if len(*got) != 1 || !(*got)[0].OK || (*got)[0].Input != "close" {
		t.Fatalf("replies %+v", *got)
	}
	if k := d.Keys(c)[0].Help().Desc; k != "confirm (type close)" {
		t.Fatalf("footer %q", k)
	}
}

// An input is validated while typing: an invalid one is refused with its
// problem wrapped (not cut) under the field; an empty one shows the hint;
// a required one refuses enter until something is typed.
func TestInputValidation(t *testing.T) {
	kb, c := fixture()
	d := New(Input, kb.Now(), "New runtime: runtime id", "Runtime id (optional).")
	d.Hint = "empty: Colab chooses the id"
	d.Validate = func(s string) error {
		if strings.HasSuffix(s, "-") {
			return errors.New("the id " + s + " must end with a letter or digit, not a hyphen; see the rules above")
		}
		return nil
	}
	got := replies(d)
	commontest.MustContain(t, commontest.Box(t, d, c, 60), "empty: Colab chooses the id", "enter continue · esc cancel")
	kb.Press(t, d, c, "a", "b", "-")
	if d.Problem() == "" {
		t.Fatal("ab- accepted")
	}
	v := commontest.Box(t, d, c, 40)
	commontest.MustContain(t, v, "must end with a letter", "or digit, not a hyphen")
	for _, ln := range strings.Split(v, "\n") {
		if strings.Contains(ln, "…") {
			t.Fatalf("validation error cut: %q\n%s", ln, v)
		}
	}
	if e := kb.Press(t, d, c, "enter"); e != nil || len(*got) != 0 {
		t.Fatalf("an invalid input was submitted: %#v", e)
	}
	kb.Press(t, d, c, "backspace", "1")
	commontest.MustContain(t, commontest.Box(t, d, c, 60), "✓ valid")
	answered(t, kb.Press(t, d, c, "enter"), d)
	if len(*got) != 1 || (*got)[0].Input != "ab1" {
		t.Fatalf("replies %+v", *got)
	}

	r := New(Input, kb.Now(), "Upload to rt-x:/content")
	r.Required = "type the path of a local file"
	got = replies(r)
	// Before anything is typed it is a hint, not an error.
	if v := commontest.Box(t, r, c, 60); !strings.Contains(v, "type the path of a local file") || strings.Contains(v, "✕") {
		t.Fatalf("an untouched required input shows an error:\n%s", v)
	}
	if e := kb.Press(t, r, c, "enter"); e != nil || len(*got) != 0 {
		t.Fatalf("an empty required input was submitted: %#v", e)
	}
	commontest.MustContain(t, commontest.Box(t, r, c, 60), "✕ type the path of a local file")
}

// A choice's cursor starts on the first enabled item (or the one asked
// for when enabled), skips disabled ones both ways, and enter on one
// answers with its index; other keys leave the list as it is.
func TestChoiceSkipsDisabledItems(t *testing.T) {
	kb, c := fixture()
	items := []Item{
		{Label: "H100", Note: "(not eligible on tier Pro)", Disabled: true},
		{Label: "T4"},
		{Label: "G4", Note: "(not eligible on tier Pro)", Disabled: true},
		{Label: "A100"},
		{Label: "V6E1", Disabled: true},
	}
	d := NewChoice(kb.Now(), "New runtime: accelerator (GPU)", items, 0)
	if d.Cursor() != 1 {
		t.Fatalf("cursor on %d, want the first enabled item", d.Cursor())
	}
	if NewChoice(kb.Now(), "t", items, 3).Cursor() != 3 || NewChoice(kb.Now(), "t", items, 2).Cursor() != 1 {
		t.Fatal("the cursor asked for is not where the choice starts (or is on a disabled item)")
	}
	got := replies(d)
	v := commontest.Box(t, d, c, 80)
	commontest.MustContain(t, v, "› T4", "H100  (not eligible on tier Pro)", "↑/↓ move · enter choose · esc cancel")
	kb.Press(t, d, c, "down", "down", "down", "j")
	if it := d.Items[d.Cursor()]; it.Disabled || it.Label != "A100" {
		t.Fatalf("cursor on %q (disabled %v)", it.Label, it.Disabled)
	}
	kb.Press(t, d, c, "g") // not a list key: stays
	kb.Press(t, d, c, "up", "k", "up")
	if d.Cursor() != 1 {
		t.Fatalf("cursor on %d after going up past a disabled item", d.Cursor())
	}
	if d.Select(0) || d.Select(9) || d.Cursor() != 1 {
		t.Fatal("Select put the cursor on a disabled or missing item")
	}
	answered(t, kb.Press(t, d, c, "enter"), d)
	if len(*got) != 1 || (*got)[0].Choice != 1 || !(*got)[0].OK {
		t.Fatalf("replies %+v", *got)
	}
	// Nothing enabled: enter does nothing.
	none := NewChoice(kb.Now(), "t", []Item{{Label: "a", Disabled: true}}, 0)
	if e := kb.Press(t, none, c, "enter"); e != nil {
		t.Fatalf("enter chose a disabled item: %#v", e)
	}
}

// esc on a step with a Back reopens that step (answers kept, and keys
// typed ahead count at once) without answering; ctrl+c quits, answering
// nothing.
func TestEscGoesBackAStep(t *testing.T) {
	kb, c := fixture()
	first := NewChoice(kb.Now(), "step 1", []Item{{Label: "a"}, {Label: "b"}}, 1)
	d := New(Input, kb.Now(), "step 2")
	d.Back = first
	got := replies(d)
	commontest.MustContain(t, commontest.Box(t, d, c, 80), "esc back")
	if d.Keys(c)[1].Help().Desc != "back" {
		t.Fatalf("footer %+v", d.Keys(c))
	}
	then := answered(t, kb.Press(t, d, c, "esc"), d)
	if o, ok := then.(common.Open); !ok || o.Overlay != first || len(*got) != 0 {
		t.Fatalf("esc: %#v, replies %+v", then, *got)
	}
	if first.Cursor() != 1 {
		t.Fatal("going back lost the answer")
	}
	if _, ok := first.HandleKey(commontest.Key("enter"), c).(common.Answer); !ok {
		t.Fatal("the step gone back to did not take a key typed ahead")
	}
	if e := kb.Press(t, d, c, "ctrl+c"); e != (common.Quit{}) || len(*got) != 0 {
		t.Fatalf("ctrl+c: %#v, replies %+v", e, *got)
	}
}

// An input with a check is checked off Update (a command), once per
// input; the dialog says "checking…" until the answer is in, an answer
// for an older input is dropped, enter waits for the answer and then
// submits, unless it names a problem.
func TestCheckCommand(t *testing.T) {
	kb, c := fixture()
	d := New(Input, kb.Now(), "Download data.csv")
	calls := 0
	d.Check = func(in string) Check {
		calls++
		switch in {
		case "bad":
			return Check{Problem: "no such local directory"}
		case "old":
			return Check{Note: "replaces the local file old (asks first)", Warn: true}
		}
		return Check{Note: "downloads to " + in}
	}
	got := replies(d)
	run := func(e common.Effect) CheckMsg {
		t.Helper()
		r, ok := e.(common.Run)
		if !ok || r.Cmd == nil {
			t.Fatalf("effect %#v is not the check's command", e)
		}
		return r.Cmd().(CheckMsg)
	}
	first := run(kb.Press(t, d, c, "b"))
	if first.Owner() != d || calls != 1 {
		t.Fatal("the check's answer does not name its dialog")
	}
	commontest.MustContain(t, commontest.Box(t, d, c, 80), "checking…")
	second := run(kb.Press(t, d, c, "a"))
	if e := d.Checked(first, true, c); e != nil || !strings.Contains(commontest.Box(t, d, c, 80), "checking…") {
		t.Fatal("the answer for b counted for ba")
	}
	d.Checked(second, true, c)
	commontest.MustContain(t, commontest.Box(t, d, c, 80), "✓ downloads to ba")
	if e := d.HandleKey(commontest.Key("enter"), c); e == nil || calls != 2 {
		t.Fatalf("enter on a checked input did not submit (%d checks)", calls)
	}
	if len(*got) != 1 || (*got)[0].Input != "ba" {
		t.Fatalf("replies %+v", *got)
	}

	// waiting is a dialog with d's check where word was typed and then
	// enter, which waits for the check: the check's answer and the
	// dialog's replies.
	waiting := func(word string) (*Dialog, CheckMsg, *[]Reply) {
		t.Helper()
		w := New(Input, kb.Now(), "Download data.csv")
		w.Check = d.Check
		got := replies(w)
		kb.Press(t, w, c, strings.Split(word[:len(word)-1], "")...)
		msg := run(kb.Press(t, w, c, word[len(word)-1:]))
		if e, ok := kb.Press(t, w, c, "enter").(common.Answer); ok {
			t.Fatalf("enter before the check answered submitted: %#v", e)
		}
		return w, msg, got
	}

	// Enter before the answer waits for it; a problem refuses it.
	d2, msg, got := waiting("bad")
	if e := d2.Checked(msg, true, c); e != nil || len(*got) != 0 {
		t.Fatal("an input with a problem was submitted")
	}
	commontest.MustContain(t, commontest.Box(t, d2, c, 80), "✕ no such local directory")

	// A fine answer submits the waiting enter, only while on top.
	d3, msg, got := waiting("old")
	if e := d3.Checked(msg, false, c); e != nil || len(*got) != 0 {
		t.Fatal("a dialog not on top was answered by its check")
	}
	commontest.MustContain(t, commontest.Box(t, d3, c, 80), "! replaces the local file old (asks first)")
	d4, msg, got := waiting("old")
	answered(t, d4.Checked(msg, true, c), d4)
	if len(*got) != 1 || (*got)[0].Input != "old" {
		t.Fatalf("replies %+v", *got)
	}
	if e := kb.Press(t, New(Input, kb.Now(), "no check"), c, "x"); e != nil {
		t.Fatalf("an input without a check ran one: %#v", e)
	}
}

// The console's stop dialog names the session whole (it was split at its
// hyphen: "colabdash-" / "22211b87").
func TestDialogKeepsTheSessionIDWhole(t *testing.T) {
	kb, c := fixture()
	d := New(Confirm, kb.Now(), "Stop the running code?",
		"Colab cannot interrupt code: stopping it closes session colabdash-22211b87 (delete_session).")
	commontest.MustContain(t, commontest.Box(t, d, c, 100), "colabdash-22211b87")
}

// Titles, bodies, inputs and items reach the terminal through termtext:
// an escape sequence from the server is shown, not run.
func TestDialogShowsNoControlCharacters(t *testing.T) {
	kb, c := fixture()
	d := NewChoice(kb.Now(), "Delete \x1b[2Jrt-x?", []Item{{Label: "a\x1b]52;c;aGk=\x07b", Note: "\x1b[31mred"}}, 0, "body \x1b[2J")
	for _, ln := range d.Lines(c, 80) {
		if strings.ContainsAny(ln, "\x1b\x07") {
			t.Fatalf("control character drawn: %q", ln)
		}
	}
}

// A box taller than the screen does not fit; its lines are never wider
// than the screen, however narrow.
func TestFits(t *testing.T) {
	kb, c := fixture()
	var items []Item
	for i := 0; i < 20; i++ {
		items = append(items, Item{Label: "item " + strings.Repeat("x", i)})
	}
	d := NewChoice(kb.Now(), "A long list", items, 0)
	if !d.Fits(c) {
		t.Fatal("a 24-line box does not fit 30 lines")
	}
	c.Layout.H = 15
	if d.Fits(c) {
		t.Fatal("a 24-line box fits 15 lines")
	}
	for _, w := range []int{24, 40, 60, 100} {
		commontest.Box(t, d, c, w)
	}
	if d.Name() != "dialog" {
		t.Fatal(d.Name())
	}
}

// No cancel is silent. A dialog whose answer has nothing to say
// of a cancel says "cancelled: " and its title; one that says something
// keeps its own words; an answer is no cancel.
func TestCancelIsNeverSilent(t *testing.T) {
	kb, c := fixture()
	d := New(Confirm, kb.Now(), "Delete notes.txt?")
	d.OnAnswer = func(*common.Context, Reply) common.Effect { return nil }
	if then := answered(t, kb.Press(t, d, c, "esc"), d); then != (common.Say{Text: "cancelled: Delete notes.txt"}) || !d.Cancelled() {
		t.Fatalf("esc: %#v (cancelled %v)", then, d.Cancelled())
	}
	d = New(Confirm, kb.Now(), "Close session s1?")
	d.OnAnswer = func(_ *common.Context, r Reply) common.Effect {
		if !r.OK {
			return common.Say{Text: "close cancelled: session s1 stays open"}
		}
		return nil
	}
	if then := answered(t, kb.Press(t, d, c, "n"), d); then != (common.Say{Text: "close cancelled: session s1 stays open"}) {
		t.Fatalf("n: %#v", then)
	}
	d = New(Confirm, kb.Now(), "Close session s1?")
	if then := answered(t, kb.Press(t, d, c, "y"), d); then != nil || d.Cancelled() {
		t.Fatalf("y: %#v (cancelled %v)", then, d.Cancelled())
	}
}

// The first and the last item can be chosen: up from the second item
// reaches the first, Select reaches either end and nothing past them,
// and enter on the first item chooses it. A choice with no items at all
// takes enter without choosing anything.
func TestChoiceReachesBothEnds(t *testing.T) {
	kb, c := fixture()
	items := []Item{{Label: "T4"}, {Label: "L4"}, {Label: "A100"}}
	d := NewChoice(kb.Now(), "New runtime: accelerator (GPU)", items, 1)
	got := replies(d)
	kb.Press(t, d, c, "up")
	if d.Cursor() != 0 {
		t.Fatalf("up from the second item: cursor on %d, want the first", d.Cursor())
	}
	if !d.Select(2) || d.Cursor() != 2 || d.Select(3) || d.Select(-1) || d.Cursor() != 2 {
		t.Fatal("Select did not reach the last item, or went past an end")
	}
	if !d.Select(0) || d.Cursor() != 0 {
		t.Fatal("Select did not reach the first item")
	}
	commontest.MustContain(t, commontest.Box(t, d, c, 80), "› T4")
	answered(t, kb.Press(t, d, c, "enter"), d)
	if len(*got) != 1 || (*got)[0].Choice != 0 || !(*got)[0].OK {
		t.Fatalf("enter on the first item: replies %+v", *got)
	}
	empty := NewChoice(kb.Now(), "Nothing to choose", nil, 0)
	if e := kb.Press(t, empty, c, "enter"); e != nil {
		t.Fatalf("enter in a choice of nothing: %#v", e)
	}
}

// A key that leaves the input as it was (the cursor moved) does not ask
// the check again once its answer for that input is in.
func TestCheckNotRepeatedForTheSameInput(t *testing.T) {
	kb, c := fixture()
	d := New(Input, kb.Now(), "Download data.csv")
	calls := 0
	d.Check = func(in string) Check { calls++; return Check{Note: "downloads to " + in} }
	r, ok := kb.Press(t, d, c, "b").(common.Run)
	if !ok {
		t.Fatal("typing did not ask the check")
	}
	d.Checked(r.Cmd().(CheckMsg), true, c)
	if e := kb.Press(t, d, c, "left"); e != nil || calls != 1 {
		t.Fatalf("moving the cursor asked the check again: %#v (%d checks)", e, calls)
	}
	commontest.MustContain(t, commontest.Box(t, d, c, 80), "✓ downloads to b")
}

// A box exactly as tall as the screen fits; its borders are as wide as
// its lines, however wide the screen.
func TestBoxExactlyTheScreensHeight(t *testing.T) {
	kb, c := fixture()
	d := New(Confirm, kb.Now(), "Delete runtime rt-x?", "It is gone for good.")
	c.Layout.H = len(d.Lines(c, c.Layout.W))
	if !d.Fits(c) {
		t.Fatalf("a %d-line box does not fit %d lines", c.Layout.H, c.Layout.H)
	}
	c.Layout.H--
	if d.Fits(c) {
		t.Fatal("a box one line taller than the screen fits")
	}
	kb.Add(Grace) // the solid bottom border
	for _, w := range []int{30, 80} {
		lines := d.Lines(c, w)
		want := ansi.StringWidth(lines[1])
		for i, ln := range lines {
			if lw := ansi.StringWidth(ln); lw != want {
				t.Fatalf("width %d: line %d is %d cells wide, the box's lines %d:\n%s", w, i, lw, want, strings.Join(lines, "\n"))
			}
		}
	}
}
