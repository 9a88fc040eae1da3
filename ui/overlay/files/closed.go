package files

import (
	"slices"

	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/files/pane"
	"github.com/colabdash/colabdash/ui/termtext"
)

// MaxClosed bounds Closed: past it the oldest pane is forgotten (its
// answer is then only logged).
const MaxClosed = 4

// Closed are the files panes closed while a transfer ran, until its
// answer says how it ended. The zero value is empty. It is a value: Note
// and Done return the new list and leave the one they were called on as
// it was (an older copy of the dashboard keeps its own).
type Closed struct{ panes []*pane.Pane }

// Note notes o as it closes: when its transfer still runs, its answer
// will say how it ended (Done).
func (c Closed) Note(o *Overlay) Closed {
	if !o.p.Busy() {
		return c
	}
	l := append([]*pane.Pane(nil), c.panes[max(0, len(c.panes)-MaxClosed+1):]...)
	return Closed{panes: append(l, o.p)}
}

// Done takes d, the end of a transfer no open pane took. When it ends the
// transfer of a pane noted closed, that pane is forgotten and the effect
// says in the status line how the transfer really ended: cancelled (and
// what is left of it), finished after all, or failed; with a files pane
// open (open) it says nothing there (it would speak for that pane; the
// event log has it). The effect is nil when there is nothing to say.
func (c Closed) Done(d pane.DoneMsg, open bool) (Closed, common.Effect) {
	i := slices.IndexFunc(c.panes, func(p *pane.Pane) bool { return p.Answers(d) })
	if i < 0 {
		return c, nil
	}
	c = Closed{panes: slices.Delete(slices.Clone(c.panes), i, i+1)}
	if open {
		return c, nil
	}
	what := d.Op + " of " + termtext.Line(d.Name) + " on " + d.Runtime
	say := func(text string, err bool) (Closed, common.Effect) { return c, common.Say{Text: text, Err: err} }
	switch {
	case d.Err == nil:
		return say("the "+what+" finished before its pane closed: "+d.Text, false)
	case !d.Cancelled():
		return say(what+" failed: "+common.ErrLine(d.Err), true)
	case d.KeptPart():
		return say(what+" cancelled: partial kept, resumes when downloaded again", false)
	case d.Op == "download":
		return say(what+" cancelled before anything was written", false)
	case d.Op == "upload":
		return say(what+" cancelled: the runtime's files are unchanged", false)
	}
	return say(what+" cancelled: entries removed before it stopped are gone", false)
}

// Finished is what the status line says of d, the end of the open pane's
// own transfer: its summary, or what failed.
func Finished(d pane.DoneMsg) common.Effect {
	if d.Err != nil {
		return common.Say{Text: d.Op + " failed: " + common.ErrLine(d.Err), Err: true}
	}
	return common.Say{Text: d.Text}
}
