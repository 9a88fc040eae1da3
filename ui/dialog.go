package ui

import (
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/termtext"
	"github.com/colabdash/colabdash/ui/theme"
	"github.com/colabdash/colabdash/ui/widget/frame"
	"github.com/colabdash/colabdash/ui/widget/lineedit"
)

// DialogGrace is how long a dialog ignores keys after it opened (350 ms), so
// keystrokes already on their way when it appeared (a fast "d" then "y"
// typed for something else, a paste) cannot answer it. Measured on
// Options.Now, so tests are deterministic. Until it has passed the
// dialog's bottom border is dotted.
const DialogGrace = 350 * time.Millisecond

// dialogKind is how a dialog is answered.
type dialogKind int

const (
	// dlgConfirm: only "y" confirms; Enter, Esc and every other key cancel.
	dlgConfirm dialogKind = iota
	// dlgTyped: the user types a word (want) and Enter; Esc cancels.
	dlgTyped
	// dlgInput: a text line (validated while typing), Enter submits when
	// valid, Esc cancels.
	dlgInput
	// dlgChoice: a list; ↑/↓ move over enabled items, Enter picks, Esc
	// cancels.
	dlgChoice
)

// dialogResult is what a key did to a dialog; the parent decides what it
// means from the dialog's intent.
type dialogResult int

const (
	resNone   dialogResult = iota // still open
	resCancel                     // closed without acting
	resOK                         // confirmed, submitted or chosen
)

// choiceItem is one entry of a dlgChoice dialog. Disabled items (specs the
// user is not eligible for) are shown dimmed and cannot be chosen.
type choiceItem struct {
	label    string
	note     string
	disabled bool
}

// dialog is an overlay (crush-style) that owns its keys and answers with
// an action; Model.onDialogAnswer acts on the intent it was opened with,
// which captured its target when it opened.
type dialog struct {
	kind     dialogKind
	title    string
	body     []string
	opened   time.Time
	in       lineedit.Editor    // dlgTyped, dlgInput: the text typed
	want     string             // dlgTyped: the word to type
	validate func(string) error // dlgInput: nil means anything goes
	hint     string             // dlgInput: what an empty input means
	// required, when set, is the problem of an empty input (dlgInput):
	// enter does nothing until something is typed.
	required string
	// check validates the input with I/O (a local path: stat), so off
	// the Update path: every new input is checked in a command (checkCmd)
	// whose answer, a dialogCheckMsg, counts only for the input it
	// checked. Until it comes the dialog says "checking…"; enter then
	// submits once the answer says the input is fine.
	check   func(in string) dialogCheck
	checked dialogCheck // the last answer (checked.input is what it was for)
	// submitting is set when enter came before the check's answer.
	submitting bool
	items      []choiceItem
	cursor     int
	intent     intent
	// back is the picker step before this one: esc returns to it (nil:
	// esc cancels).
	back *dialog
	// mismatch is set when Enter was pressed on a dlgTyped dialog with the
	// wrong word; it is shown until the next key.
	mismatch bool
}

// dialogCheck is a dialog's check of one input: a problem (enter
// refused), or a note shown below the field (warn: as a warning, e.g.
// "replaces … (asks first)").
type dialogCheck struct {
	input, problem, note string
	warn, done           bool
}

// dialogCheckMsg answers a dialog's check (dialog.check) of one input.
type dialogCheckMsg struct {
	d *dialog
	dialogCheck
}

// checkCmd checks the current input in a command; nil without check, or
// when that input's answer is already in.
func (d *dialog) checkCmd() tea.Cmd {
	in := d.input()
	if d.check == nil || in == "" || (d.checked.done && d.checked.input == in) {
		return nil
	}
	check := d.check
	return func() tea.Msg {
		c := check(in)
		c.input, c.done = in, true
		return dialogCheckMsg{d: d, dialogCheck: c}
	}
}

// pending reports whether the current input's check has not answered.
func (d *dialog) pending() bool {
	in := d.input()
	return d.check != nil && in != "" && !(d.checked.done && d.checked.input == in)
}

// dialogInputLimit is the most runes a dialog input keeps.
const dialogInputLimit = 200

func newDialog(kind dialogKind, now time.Time, title string, it intent, body ...string) *dialog {
	d := &dialog{kind: kind, title: title, body: body, opened: now, intent: it, in: lineedit.Editor{Limit: dialogInputLimit}}
	if kind == dlgChoice {
		d.cursor = d.next(-1, 1)
	}
	return d
}

// input is the text typed into a dlgTyped or dlgInput dialog.
func (d *dialog) input() string { return d.in.Value() }

// next returns the first enabled item from i+dir in direction dir, or i.
func (d *dialog) next(i, dir int) int {
	for j := i + dir; j >= 0 && j < len(d.items); j += dir {
		if !d.items[j].disabled {
			return j
		}
	}
	if i < 0 {
		return 0
	}
	return i
}

// inGrace reports whether keys are still ignored at now.
func (d *dialog) inGrace(now time.Time) bool {
	el := now.Sub(d.opened)
	return el >= 0 && el < DialogGrace
}

// regrace starts the grace period again (the dialog shows anew).
func (d *dialog) Regrace(now time.Time) { d.opened = now }

// update applies one key at now.
func (d *dialog) update(k tea.KeyMsg, now time.Time) dialogResult {
	if d.inGrace(now) {
		return resNone // typed before the dialog could be read
	}
	if k.Type == tea.KeyEsc || k.Type == tea.KeyCtrlC {
		return resCancel
	}
	switch d.kind {
	case dlgConfirm:
		if k.Type == tea.KeyRunes && string(k.Runes) == "y" {
			return resOK
		}
		return resCancel
	case dlgChoice:
		switch k.String() {
		case "up", "k":
			d.cursor = d.next(d.cursor, -1)
		case "down", "j":
			d.cursor = d.next(d.cursor, 1)
		case "enter":
			if d.cursor >= 0 && d.cursor < len(d.items) && !d.items[d.cursor].disabled {
				return resOK
			}
		}
		return resNone
	}
	// dlgTyped, dlgInput: a text line.
	d.mismatch = false
	if k.Type == tea.KeyEnter && !k.Alt {
		if d.kind == dlgTyped {
			if strings.TrimSpace(d.input()) == d.want {
				return resOK
			}
			d.mismatch = true
			return resNone
		}
		if d.pending() {
			d.submitting = true // when the check says it is fine
			return resNone
		}
		if d.problem() == "" {
			return resOK
		}
		return resNone
	}
	d.submitting = false
	d.in.Handle(k)
	return resNone
}

// handleKey answers with actDialog once the dialog is answered; a new
// input to check (dialog.check) starts its check.
func (d *dialog) HandleKey(k tea.KeyMsg, c *common.Context) common.Effect {
	switch d.update(k, c.Now()) {
	case resCancel:
		return common.Answer{Dialog: d, Esc: k.Type == tea.KeyEsc}
	case resOK:
		return common.Answer{Dialog: d, OK: true}
	}
	if cmd := d.checkCmd(); cmd != nil {
		return common.Run{Cmd: cmd}
	}
	return nil
}

// onDialogCheck keeps a check's answer when it is for the dialog's input
// now, and submits the dialog when enter was waiting for it.
func (m *Model) onDialogCheck(msg dialogCheckMsg) tea.Cmd {
	d := msg.d
	if d.input() != msg.input {
		return nil // typed on since
	}
	d.checked = msg.dialogCheck
	if d.submitting && m.top() == d {
		d.submitting = false
		if d.problem() == "" {
			return m.apply(common.Answer{Dialog: d, OK: true})
		}
	}
	return nil
}

func (d *dialog) Draw(c *common.Context, f *frame.Frame) { f.Box(d.lines(c.Styles, f.W, c.Now())) }

// fits reports whether the whole box fits the screen's height.
func (d *dialog) Fits(c *common.Context) bool {
	return len(d.lines(c.Styles, c.Layout.W, c.Now())) <= c.Layout.H
}

// keys say how the dialog is answered, as its last line does.
func (d *dialog) Keys(*common.Context) []key.Binding {
	switch d.kind {
	case dlgConfirm:
		return []key.Binding{common.HelpKey("y", "confirm"), common.HelpKey("any other key", "cancels")}
	case dlgTyped:
		return []key.Binding{common.HelpKey("enter", "confirm (type "+termtext.Line(d.want)+")"), common.HelpKey("esc", "cancel")}
	case dlgInput:
		return []key.Binding{common.HelpKey("enter", "continue"), common.HelpKey("esc", d.escWord())}
	}
	return []key.Binding{common.HelpKey("↑/↓", "move"), common.HelpKey("enter", "choose"), common.HelpKey("esc", d.escWord())}
}

func (d *dialog) Name() string { return "dialog" }

// problem is the validation error of the current input ("" when valid
// or while its check has not answered).
func (d *dialog) problem() string {
	if d.kind != dlgInput {
		return ""
	}
	in := d.input()
	if in == "" {
		return d.required
	}
	if d.validate != nil {
		if err := d.validate(in); err != nil {
			return common.ErrLine(err)
		}
	}
	if d.check != nil && d.checked.done && d.checked.input == in {
		return d.checked.problem
	}
	return ""
}

// graceBorder draws a dialog's bottom border while it still ignores keys.
const graceBorder = "┄"

// lines renders the dialog's box, at most w cells wide. Until the grace
// period is over (at now) its bottom border is dotted.
func (d *dialog) lines(st *theme.Styles, w int, now time.Time) []string {
	inner := min(max(w-4, 20), 72)
	var out []string
	add := func(s string) { out = append(out, s) }
	// Titles, bodies, inputs and items may quote the server, a file or a
	// paste: all of it goes through termtext here.
	add(st.Bold.Render(termtext.Line(d.title)))
	for _, b := range d.body {
		for _, ln := range strings.Split(frame.Wrap(termtext.Block(b), inner), "\n") {
			add(ln)
		}
	}
	switch d.kind {
	case dlgConfirm:
		add("")
		add(st.Bold.Render("y") + " confirm · any other key cancels")
	case dlgTyped:
		add("")
		add("type " + st.Bold.Render(termtext.Line(d.want)) + " and press enter (esc cancels)")
		add(d.in.View("> ", "  ", inner, 1)[0])
		if d.mismatch {
			add(st.ErrText.Render("✕ type " + termtext.Line(d.want) + " to confirm"))
		}
	case dlgInput:
		add("")
		add(d.in.View("> ", "  ", inner, 1)[0])
		switch p := d.problem(); {
		case p != "":
			// Wrapped, not cut: the rule broken is the end of the line.
			for _, ln := range strings.Split(frame.Wrap("✕ "+termtext.Line(p), inner), "\n") {
				add(st.ErrText.Render(ln))
			}
		case d.input() == "" && d.hint != "":
			add(st.Dim.Render(termtext.Line(d.hint)))
		case d.pending():
			add(st.Dim.Render("checking…"))
		case d.check != nil && d.checked.note != "":
			style, mark := st.Dim, "✓ "
			if d.checked.warn {
				style, mark = st.Warn, "! "
			}
			for _, ln := range strings.Split(frame.Wrap(mark+termtext.Line(d.checked.note), inner), "\n") {
				add(style.Render(ln))
			}
		default:
			add(st.Dim.Render("✓ valid"))
		}
		add(st.Dim.Render("enter continue · esc " + d.escWord()))
	case dlgChoice:
		for i, it := range d.items {
			line := "  " + termtext.Line(it.label)
			if it.note != "" {
				line += "  " + termtext.Line(it.note)
			}
			switch {
			case it.disabled:
				line = st.Dim.Render(line)
			case i == d.cursor:
				line = st.Selected.Render("› " + strings.TrimPrefix(line, "  "))
			}
			add(line)
		}
		add(st.Dim.Render("↑/↓ move · enter choose · esc " + d.escWord()))
	}
	box := make([]string, 0, len(out)+2)
	border := st.Dim.Render("┌" + strings.Repeat("─", inner+2) + "┐")
	box = append(box, border)
	for _, ln := range out {
		box = append(box, st.Dim.Render("│")+" "+frame.PadTo(ln, inner)+" "+st.Dim.Render("│"))
	}
	// Until keys count, the bottom border is dotted.
	bottom := "─"
	if d.inGrace(now) {
		bottom = graceBorder
	}
	box = append(box, st.Dim.Render("└"+strings.Repeat(bottom, inner+2)+"┘"))
	return box
}

// escWord says what esc does: go back a picker step, or cancel.
func (d *dialog) escWord() string {
	if d.back != nil {
		return "back"
	}
	return "cancel"
}
