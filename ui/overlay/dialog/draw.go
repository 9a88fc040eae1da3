package dialog

import (
	"strings"

	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/termtext"
	"github.com/colabdash/colabdash/ui/widget/frame"
)

// graceBorder draws a dialog's bottom border while it still ignores keys.
const graceBorder = "┄"

// Lines renders the dialog's box, at most w cells wide: a border, the
// title, the body wrapped, what the kind asks for and the keys that
// answer it. Until the grace period is over (at c.Now()) its bottom border
// is dotted.
func (d *Dialog) Lines(c *common.Context, w int) []string {
	st := c.Styles
	inner := min(max(w-4, 20), 72)
	var out []string
	add := func(s string) { out = append(out, s) }
	// Titles, bodies, inputs and items may quote the server, a file or a
	// paste: all of it goes through termtext here.
	add(st.Bold.Render(termtext.Line(d.Title)))
	for _, b := range d.Body {
		for _, ln := range strings.Split(frame.Wrap(termtext.Block(b), inner), "\n") {
			add(ln)
		}
	}
	switch d.kind {
	case Confirm:
		add("")
		add(st.Bold.Render("y") + " confirm · any other key cancels")
	case Typed:
		add("")
		add("type " + st.Bold.Render(termtext.Line(d.Want)) + " and press enter (esc cancels)")
		add(d.in.View("> ", "  ", inner, 1)[0])
		if d.mismatch {
			add(st.ErrText.Render("✕ type " + termtext.Line(d.Want) + " to confirm"))
		}
	case Input:
		add("")
		add(d.in.View("> ", "  ", inner, 1)[0])
		switch p := d.Problem(); {
		case d.Input() == "" && d.Required != "" && !d.emptyEnter:
			// Nothing typed yet: what to type, not an error.
			add(st.Dim.Render(termtext.Line(d.Required)))
		case p != "":
			// Wrapped, not cut: the rule broken is the end of the line.
			for _, ln := range strings.Split(frame.Wrap("✕ "+termtext.Line(p), inner), "\n") {
				add(st.ErrText.Render(ln))
			}
		case d.Input() == "" && d.Hint != "":
			add(st.Dim.Render(termtext.Line(d.Hint)))
		case d.pending():
			add(st.Dim.Render("checking…"))
		case d.Check != nil && d.checked.Note != "":
			style, mark := st.Dim, "✓ "
			if d.checked.Warn {
				style, mark = st.Warn, "! "
			}
			for _, ln := range strings.Split(frame.Wrap(mark+termtext.Line(d.checked.Note), inner), "\n") {
				add(style.Render(ln))
			}
		default:
			add(st.Dim.Render("✓ valid"))
		}
		add(st.Dim.Render("enter continue · esc " + d.escWord()))
	case Choice:
		for i, it := range d.Items {
			line := "  " + termtext.Line(it.Label)
			if it.Note != "" {
				line += "  " + termtext.Line(it.Note)
			}
			switch {
			case it.Disabled:
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
	if d.inGrace(c.Now()) {
		bottom = graceBorder
	}
	box = append(box, st.Dim.Render("└"+strings.Repeat(bottom, inner+2)+"┘"))
	return box
}
