package ui

import (
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/ui/termtext"
)

// DialogGrace is how long a dialog ignores keys after it opened (350 ms), so
// keystrokes already on their way when it appeared (a fast "d" then "y"
// typed for something else, a paste) cannot answer it. Measured on
// Options.Now, so tests are deterministic.
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

// dialog is the one overlay the dashboard shows at a time (crush-style):
// it owns its keys and returns a dialogResult; the parent acts on the
// intent it was opened with, which captured its target when it opened.
type dialog struct {
	kind     dialogKind
	title    string
	body     []string
	opened   time.Time
	input    string
	want     string             // dlgTyped: the word to type
	validate func(string) error // dlgInput: nil means anything goes
	hint     string             // dlgInput: what an empty input means
	items    []choiceItem
	cursor   int
	intent   intent
	// back is the picker step before this one: esc returns to it (nil:
	// esc cancels).
	back *dialog
	// mismatch is set when Enter was pressed on a dlgTyped dialog with the
	// wrong word; it is shown until the next key.
	mismatch bool
}

func newDialog(kind dialogKind, now time.Time, title string, it intent, body ...string) *dialog {
	d := &dialog{kind: kind, title: title, body: body, opened: now, intent: it}
	if kind == dlgChoice {
		d.cursor = d.next(-1, 1)
	}
	return d
}

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

// update applies one key at now.
func (d *dialog) update(k tea.KeyMsg, now time.Time) dialogResult {
	if el := now.Sub(d.opened); el >= 0 && el < DialogGrace {
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
	switch k.Type {
	case tea.KeyEnter:
		if d.kind == dlgTyped {
			if strings.TrimSpace(d.input) == d.want {
				return resOK
			}
			d.mismatch = true
			return resNone
		}
		if d.problem() == "" {
			return resOK
		}
	case tea.KeyBackspace:
		if r := []rune(d.input); len(r) > 0 {
			d.input = string(r[:len(r)-1])
		}
	case tea.KeyCtrlU:
		d.input = ""
	case tea.KeyRunes, tea.KeySpace:
		if len(d.input) < 200 {
			d.input += string(k.Runes)
		}
	}
	return resNone
}

// problem is the validation error of the current input ("" when valid).
func (d *dialog) problem() string {
	if d.kind != dlgInput || d.validate == nil || d.input == "" {
		return ""
	}
	if err := d.validate(d.input); err != nil {
		return errLine(err)
	}
	return ""
}

// lines renders the dialog's box, at most w cells wide.
func (d *dialog) lines(st styles, w int) []string {
	inner := min(max(w-4, 20), 72)
	var out []string
	add := func(s string) { out = append(out, s) }
	// Titles, bodies, inputs and items may quote the server, a file or a
	// paste: all of it goes through termtext here.
	add(st.bold.Render(termtext.Line(d.title)))
	for _, b := range d.body {
		for _, ln := range strings.Split(ansi.Wordwrap(termtext.Block(b), inner, ""), "\n") {
			add(ln)
		}
	}
	switch d.kind {
	case dlgConfirm:
		add("")
		add(st.bold.Render("y") + " confirm · any other key cancels")
	case dlgTyped:
		add("")
		add("type " + st.bold.Render(termtext.Line(d.want)) + " and press enter (esc cancels)")
		add(inputLine("> ", termtext.Line(d.input), inner))
		if d.mismatch {
			add(st.errText.Render("✕ type " + termtext.Line(d.want) + " to confirm"))
		}
	case dlgInput:
		add("")
		add(inputLine("> ", termtext.Line(d.input), inner))
		switch p := d.problem(); {
		case p != "":
			// Wrapped, not cut: the rule broken is the end of the line.
			for _, ln := range strings.Split(ansi.Wrap("✕ "+p, inner, ""), "\n") {
				add(st.errText.Render(ln))
			}
		case d.input == "" && d.hint != "":
			add(st.dim.Render(termtext.Line(d.hint)))
		default:
			add(st.dim.Render("✓ valid"))
		}
		add(st.dim.Render("enter continue · esc " + d.escWord()))
	case dlgChoice:
		for i, it := range d.items {
			line := "  " + termtext.Line(it.label)
			if it.note != "" {
				line += "  " + termtext.Line(it.note)
			}
			switch {
			case it.disabled:
				line = st.dim.Render(line)
			case i == d.cursor:
				line = st.selected.Render("› " + strings.TrimPrefix(line, "  "))
			}
			add(line)
		}
		add(st.dim.Render("↑/↓ move · enter choose · esc " + d.escWord()))
	}
	box := make([]string, 0, len(out)+2)
	border := st.dim.Render("┌" + strings.Repeat("─", inner+2) + "┐")
	box = append(box, border)
	for _, ln := range out {
		box = append(box, st.dim.Render("│")+" "+padTo(ln, inner)+" "+st.dim.Render("│"))
	}
	box = append(box, st.dim.Render("└"+strings.Repeat("─", inner+2)+"┘"))
	return box
}

// overlay draws box centred over frame lines (each at most w wide).
func overlay(frame, box []string, w int) []string {
	if len(box) == 0 || len(frame) == 0 {
		return frame
	}
	bw := 0
	for _, b := range box {
		bw = max(bw, ansi.StringWidth(b))
	}
	left := max(0, (w-bw)/2)
	top := max(0, (len(frame)-len(box))/2)
	for i, b := range box {
		if top+i >= len(frame) {
			break
		}
		frame[top+i] = strings.Repeat(" ", left) + b
	}
	return frame
}

// escWord says what esc does: go back a picker step, or cancel.
func (d *dialog) escWord() string {
	if d.back != nil {
		return "back"
	}
	return "cancel"
}
