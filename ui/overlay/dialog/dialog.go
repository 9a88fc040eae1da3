// Package dialog is the dashboard's question overlay: a y-only
// confirmation, a typed word, a validated text input (with an optional
// check off the Update path) or a choice list with disabled items. A
// dialog carries its own answer: whoever opens it sets OnAnswer, which
// captured its target (a runtime, a session, a file) when it opened, so
// an answer never acts on whatever moved under the dialog since.
//
// A guarded dialog (Dialog.Guard: a y-only or typed confirmation, or one
// that appeared by itself) ignores keys but esc for Grace after it shows
// (its bottom border is dotted meanwhile, and an ignored key says so on
// the status line), so a keystroke already on its way cannot answer it.
// Every other dialog (the create picker's steps, an input line) takes keys
// typed ahead. Its keys are fixed (y, enter, esc, ↑/↓): no keymap scope
// binds them.
package dialog

import (
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/termtext"
	"github.com/colabdash/colabdash/ui/widget/frame"
	"github.com/colabdash/colabdash/ui/widget/lineedit"
)

// Grace is how long a guarded dialog (Dialog.Guard) ignores keys after it
// opened (350 ms), so keystrokes already on their way when it appeared (a
// fast "d" then "y" typed for something else, a paste) cannot answer it.
// Measured on Context.Now, so tests are deterministic. Until it has
// passed the dialog's bottom border is dotted.
const Grace = 350 * time.Millisecond

// Kind is how a dialog is answered.
type Kind int

const (
	// Confirm: only "y" confirms; Enter, Esc and every other key cancel.
	Confirm Kind = iota
	// Typed: the user types a word (Dialog.Want) and Enter; Esc cancels.
	Typed
	// Input: a text line (validated while typing), Enter submits when
	// valid, Esc cancels.
	Input
	// Choice: a list; ↑/↓ move over enabled items, Enter picks, Esc
	// cancels.
	Choice
)

// Item is one entry of a Choice dialog. Disabled items (specs the user is
// not eligible for) are shown dimmed and cannot be chosen.
type Item struct {
	Label    string
	Note     string
	Disabled bool
}

// Reply is how a dialog was answered: OK (confirmed, submitted or chosen)
// or cancelled (esc, or any key but y on a Confirm). Input is the
// text typed (Typed, Input); Choice the index in Items of the item chosen
// (Choice; 0 otherwise).
type Reply struct {
	OK     bool
	Input  string
	Choice int
}

// Check is a dialog's check of one input (Dialog.Check): a Problem
// (enter refused), or a Note shown below the field (Warn: as a warning,
// e.g. "replaces … (asks first)").
type Check struct {
	Problem, Note string
	Warn          bool
}

// Dialog is an overlay (common.Overlay) that owns its keys and, once
// answered, closes with the effect OnAnswer builds (common.Answer). Set
// its exported fields right after New, before it is opened.
type Dialog struct {
	kind Kind
	// Title is the first line (bold); Body the paragraphs below it, each
	// wrapped to the box. Both may quote the server or a file: they are
	// drawn through termtext.
	Title string
	Body  []string
	// Want is the word a Typed dialog asks for.
	Want string
	// Validate (Input) returns the problem of an input; nil: anything goes.
	Validate func(string) error
	// Hint (Input) says what an empty input means.
	Hint string
	// Required (Input), when set, is the problem of an empty input: enter
	// does nothing until something is typed. Until enter was pressed on
	// the empty input it is drawn as a hint, not an error: nothing is
	// wrong before anything was typed.
	Required string
	// Check (Input) validates the input with I/O (a local path: stat), so
	// off the Update path: every new input is checked in a command whose
	// answer, a CheckMsg, counts only for the input it checked. Until it
	// comes the dialog says "checking…"; enter then submits once the
	// answer says the input is fine. It runs outside the Update loop: it
	// must not touch what the loop owns.
	Check func(in string) Check
	// Items are a Choice dialog's entries (NewChoice).
	Items []Item
	// OnAnswer builds the effect of the dialog's answer, from the target
	// its opener captured and what was answered; it is called once, when
	// the dialog is answered or cancelled (nil: closing is all). c is the
	// Context of that moment.
	OnAnswer func(c *common.Context, r Reply) common.Effect
	// Back is the step before this one (the create picker): esc reopens
	// it, answers kept, instead of cancelling.
	Back *Dialog
	// Guard makes the dialog ignore every key but esc (and ctrl+c) for
	// Grace after it shows. New sets it for Confirm and Typed dialogs (the
	// y of a delete); set it too on a dialog that appears by itself (an
	// answer brought it, not the user's key), which keys typed for
	// something else must not answer. Unguarded dialogs take keys typed
	// ahead (n j enter j enter enter reaches the step it names).
	Guard bool

	opened time.Time
	in     lineedit.Editor // Typed, Input: the text typed
	cursor int             // Choice: the item under the cursor
	// checked is the last answer of Check; checkedIn the input it was
	// for, and checkDone whether one came at all.
	checked   Check
	checkedIn string
	checkDone bool
	// submitting is set when enter came before the check's answer.
	submitting bool
	// mismatch is set when Enter was pressed on a Typed dialog with the
	// wrong word; it is shown until the next key.
	mismatch bool
	// emptyEnter is set when enter was pressed on an empty Required
	// input: Required is then shown as the error it is.
	emptyEnter bool
	// cancelled is set when the dialog was answered by a cancel.
	cancelled bool
}

// Cancelled reports whether the dialog was closed by a cancel (esc, or a
// key other than y on a confirmation) rather than answered.
func (d *Dialog) Cancelled() bool { return d.cancelled }

// inputLimit is the most runes a dialog input keeps.
const inputLimit = 200

// New returns a dialog of kind asking title (body below it), opened at
// now: the grace period of a guarded one (Confirm and Typed) starts then.
func New(kind Kind, now time.Time, title string, body ...string) *Dialog {
	return &Dialog{kind: kind, Title: title, Body: body, opened: now, in: lineedit.Editor{Limit: inputLimit},
		Guard: kind == Confirm || kind == Typed}
}

// NewChoice returns a Choice dialog among items with the cursor on item
// at, or, when that one is disabled or out of range, on the first enabled
// item.
func NewChoice(now time.Time, title string, items []Item, at int, body ...string) *Dialog {
	d := New(Choice, now, title, body...)
	d.Items = items
	d.cursor = d.next(-1, 1)
	d.Select(at)
	return d
}

// Kind is how the dialog is answered.
func (d *Dialog) Kind() Kind { return d.kind }

// Cursor is the index in Items of the item under a Choice dialog's
// cursor.
func (d *Dialog) Cursor() int { return d.cursor }

// Select puts the cursor on item i and reports whether it could: i is in
// range and enabled.
func (d *Dialog) Select(i int) bool {
	if i < 0 || i >= len(d.Items) || d.Items[i].Disabled {
		return false
	}
	d.cursor = i
	return true
}

// Input is the text typed into a Typed or Input dialog.
func (d *Dialog) Input() string { return d.in.Value() }

// next returns the first enabled item from i+dir in direction dir, or i.
func (d *Dialog) next(i, dir int) int {
	for j := i + dir; j >= 0 && j < len(d.Items); j += dir {
		if !d.Items[j].Disabled {
			return j
		}
	}
	if i < 0 {
		return 0
	}
	return i
}

// inGrace reports whether keys are still ignored at now: only a guarded
// dialog ignores any.
func (d *Dialog) inGrace(now time.Time) bool {
	el := now.Sub(d.opened)
	return d.Guard && el >= 0 && el < Grace
}

// Regrace starts the grace period again at now (the dialog shows anew);
// it matters only to a guarded dialog.
func (d *Dialog) Regrace(now time.Time) { d.opened = now }

// result is what a key did to a dialog.
type result int

const (
	resNone    result = iota // still open
	resCancel                // closed without acting
	resOK                    // confirmed, submitted or chosen
	resIgnored               // a key the grace period ignored
)

// update applies one key at now.
func (d *Dialog) update(k tea.KeyMsg, now time.Time) result {
	if k.Type == tea.KeyEsc {
		return resCancel // backing out is safe, grace or not
	}
	if d.inGrace(now) {
		return resIgnored // typed before the dialog could be read
	}
	switch d.kind {
	case Confirm:
		if k.Type == tea.KeyRunes && string(k.Runes) == "y" {
			return resOK
		}
		return resCancel
	case Choice:
		switch k.String() {
		case "up", "k":
			d.cursor = d.next(d.cursor, -1)
		case "down", "j":
			d.cursor = d.next(d.cursor, 1)
		case "enter":
			if d.cursor >= 0 && d.cursor < len(d.Items) && !d.Items[d.cursor].Disabled {
				return resOK
			}
		}
		return resNone
	}
	// Typed, Input: a text line.
	d.mismatch = false
	if k.Type == tea.KeyEnter && !k.Alt {
		if d.kind == Typed {
			if strings.TrimSpace(d.Input()) == d.Want {
				return resOK
			}
			d.mismatch = true
			return resNone
		}
		if d.pending() {
			d.submitting = true // when the check says it is fine
			return resNone
		}
		if d.Problem() == "" {
			return resOK
		}
		d.emptyEnter = d.Input() == ""
		return resNone
	}
	d.submitting = false
	d.in.Handle(k)
	return resNone
}

// HandleKey takes every key while the dialog is on top. Once answered it
// returns common.Answer: close the dialog, then OnAnswer's effect; esc on
// a step with a Back reopens that step instead. A new input to check
// (Check) starts its check (common.Run).
func (d *Dialog) HandleKey(k tea.KeyMsg, c *common.Context) common.Effect {
	if k.Type == tea.KeyCtrlC {
		return common.Quit{} // ctrl+c quits from everywhere, as in k9s and lazygit; nothing is answered
	}
	now := c.Now()
	switch d.update(k, now) {
	case resCancel:
		if d.Back != nil && k.Type == tea.KeyEsc {
			// esc in the picker goes back one step, answers kept; that
			// step was read before, so keys typed ahead count at once.
			return common.Answer{Dialog: d, Then: common.Open{Overlay: d.Back}}
		}
		return d.answer(c, false)
	case resOK:
		return d.answer(c, true)
	case resIgnored:
		return common.Say{Text: ignoredText(k)}
	}
	if cmd := d.checkCmd(); cmd != nil {
		return common.Run{Cmd: cmd}
	}
	return nil
}

// ignoredText is the status line for key k, ignored in the grace period.
func ignoredText(k tea.KeyMsg) string {
	what := "key " + termtext.Cut(termtext.Line(k.String()), 12)
	if k.Paste {
		what = "pasted text"
	}
	return what + " ignored: the question had only just appeared (answer it once its bottom border is solid)"
}

// answer closes the dialog with the effect of its answer; a cancel whose
// OnAnswer has nothing to say says "cancelled: " and the dialog's title.
func (d *Dialog) answer(c *common.Context, ok bool) common.Effect {
	a := common.Answer{Dialog: d}
	if d.OnAnswer != nil {
		r := Reply{OK: ok}
		if ok {
			r.Input, r.Choice = d.Input(), d.cursor
			if d.kind != Choice {
				r.Choice = 0
			}
		}
		a.Then = d.OnAnswer(c, r)
	}
	d.cancelled = !ok
	if !ok && a.Then == nil {
		// No cancel is silent: what was cancelled, in the dialog's words.
		a.Then = common.Say{Text: "cancelled: " + termtext.Line(strings.TrimSuffix(d.Title, "?"))}
	}
	return a
}

// CheckMsg answers a dialog's check (Dialog.Check) of one input. The app
// hands it to its owner's Checked.
type CheckMsg struct {
	d     *Dialog
	input string
	check Check
}

// Owner is the dialog whose check this answers.
func (m CheckMsg) Owner() *Dialog { return m.d }

// checkCmd checks the current input in a command; nil without Check, or
// when that input's answer is already in.
func (d *Dialog) checkCmd() tea.Cmd {
	in := d.Input()
	if d.Check == nil || in == "" || (d.checkDone && d.checkedIn == in) {
		return nil
	}
	check := d.Check
	return func() tea.Msg { return CheckMsg{d: d, input: in, check: check(in)} }
}

// pending reports whether the current input's check has not answered.
func (d *Dialog) pending() bool {
	in := d.Input()
	return d.Check != nil && in != "" && !(d.checkDone && d.checkedIn == in)
}

// Checked keeps a check's answer when it is for the dialog's input now
// (else it is stale: typed on since), and, when enter was waiting for it
// and onTop says the dialog is still the layer on top, answers the dialog
// if the input is fine (the effect, as HandleKey's; nil otherwise).
func (d *Dialog) Checked(m CheckMsg, onTop bool, c *common.Context) common.Effect {
	if m.d != d || d.Input() != m.input {
		return nil // typed on since
	}
	d.checked, d.checkedIn, d.checkDone = m.check, m.input, true
	if d.submitting && onTop {
		d.submitting = false
		if d.Problem() == "" {
			return d.answer(c, true)
		}
	}
	return nil
}

// Problem is the validation error of an Input dialog's current input (""
// when valid, while its check has not answered, or for other kinds).
func (d *Dialog) Problem() string {
	if d.kind != Input {
		return ""
	}
	in := d.Input()
	if in == "" {
		return d.Required
	}
	if d.Validate != nil {
		if err := d.Validate(in); err != nil {
			return termtext.Line(api.OneLine(err.Error(), 300))
		}
	}
	if d.Check != nil && d.checkDone && d.checkedIn == in {
		return d.checked.Problem
	}
	return ""
}

// Draw paints the dialog's box, centred, over the frame.
func (d *Dialog) Draw(c *common.Context, f *frame.Frame) { f.Box(d.Lines(c, f.W)) }

// Fits reports whether the whole box fits the screen's height.
func (d *Dialog) Fits(c *common.Context) bool {
	return len(d.Lines(c, c.Layout.W)) <= c.Layout.H
}

// Keys say how the dialog is answered, as its last line does.
func (d *Dialog) Keys(*common.Context) []key.Binding {
	switch d.kind {
	case Confirm:
		return []key.Binding{common.HelpKey("y", "confirm"), common.HelpKey("any other key", "cancels")}
	case Typed:
		return []key.Binding{common.HelpKey("enter", "confirm (type "+termtext.Line(d.Want)+")"), common.HelpKey("esc", "cancel")}
	case Input:
		return []key.Binding{common.HelpKey("enter", "continue"), common.HelpKey("esc", d.escWord())}
	}
	return []key.Binding{common.HelpKey("↑/↓", "move"), common.HelpKey("enter", "choose"), common.HelpKey("esc", d.escWord())}
}

// Name says what the overlay is, for the too-small screen.
func (d *Dialog) Name() string { return "dialog" }

// escWord says what esc does: go back a picker step, or cancel.
func (d *Dialog) escWord() string {
	if d.Back != nil {
		return "back"
	}
	return "cancel"
}
