package ui

import (
	"strings"
	"time"

	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
	"github.com/colabdash/colabdash/ui/overlay/files"
	"github.com/colabdash/colabdash/ui/termtext"
)

// quitCost is what quitting now would do to one piece of work in flight,
// as the quit question says it.
type quitCost struct {
	title  string   // the question's title when this is the only work in flight
	lines  []string // what quitting does to it
	goesOn string   // what "no" says goes on: "the code keeps running"
}

// askQuit asks before a quit, from any layer, that would lose work in
// flight: console code (the console loses it; it keeps running on the
// runtime) and a files pane's transfer or delete (quitting cancels it).
// One question names all of them: y quits (common.Quit with Anyway),
// anything else stays and says what goes on. It reports whether it asked
// (false: nothing is in flight, the quit goes ahead).
func (m *app) askQuit(now time.Time) bool {
	var costs []quitCost
	if c, ok := m.ex.quitCost(); ok {
		costs = append(costs, c)
	}
	if o, ok := find[*files.Overlay](m.scr); ok {
		if c, ok := filesQuitCost(o); ok {
			costs = append(costs, c)
		}
	}
	if len(costs) == 0 {
		return false
	}
	if d, ok := m.scr.top().(*dialog.Dialog); ok && d == m.quitAsk {
		return true // asked already
	}
	title := "Work is in progress; quit anyway?"
	if len(costs) == 1 {
		title = costs[0].title
	}
	var lines, goesOn []string
	for _, c := range costs {
		lines = append(lines, c.lines...)
		goesOn = append(goesOn, c.goesOn)
	}
	d := dialog.New(dialog.Confirm, now, title, lines...)
	d.OnAnswer = func(_ *common.Context, a dialog.Reply) common.Effect {
		if !a.OK {
			return common.Say{Text: "not quitting: " + strings.Join(goesOn, "; ")}
		}
		return common.Quit{Anyway: true}
	}
	m.quitAsk = d
	m.scr.push(d)
	return true
}

// filesQuitCost is what quitting does to the transfer or delete of the
// files pane o, when one runs: it is cancelled, and what is left of it
// is the same as when the pane is closed.
func filesQuitCost(o *files.Overlay) (quitCost, bool) {
	op, name, busy := o.Pane().Pending()
	if !busy {
		return quitCost{}, false
	}
	rt := o.Pane().Runtime()
	name = termtext.Line(name)
	what := "the " + op + " of " + name
	var left string
	switch op {
	case "download":
		what += " from " + rt
		left = "a part already written is kept, and downloading the file again resumes it"
	case "upload":
		what += " to " + rt
		left = "the runtime's file is left as it was"
	default:
		what += " on " + rt
		left = "what was removed before it stops is gone, the rest stays"
	}
	article := "A "
	if strings.HasPrefix(op, "u") {
		article = "An "
	}
	return quitCost{
		title:  article + op + " is running on " + rt + "; quit anyway?",
		lines:  []string{"Quitting cancels " + what + ": " + left + "."},
		goesOn: what + " goes on",
	}, true
}
