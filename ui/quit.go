package ui

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api"
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
	after  string   // what is said on stderr once the dashboard quit anyway ("": nothing)
}

// LeftBehind is what the dashboard left in flight when the user quit
// anyway (the quit question's y): one line each, sanitized, for stderr
// once the terminal is restored. Empty after a quit with nothing in
// flight.
func (m Model) LeftBehind() []string {
	out := make([]string, 0, len(m.leftBehind))
	for _, l := range m.leftBehind {
		out = append(out, termtext.Line(l))
	}
	return out
}

// maxQuitLines bounds the quit question's body, so that it fits the
// smallest screen the dashboard draws.
const maxQuitLines = 5

// quitCosts is the work in flight a quit would lose, now: console code
// (the console loses it; it keeps running on the runtime), a files
// pane's transfer or delete (quitting cancels it), a create (one waiting
// to retry is dropped; one sent may still be made) and a runtime's
// delete (it may not have reached Colab).
func (m *app) quitCosts() []quitCost {
	var costs []quitCost
	if c, ok := m.ex.quitCost(); ok {
		costs = append(costs, c)
	}
	if o, ok := find[*files.Overlay](m.scr); ok {
		if c, ok := filesQuitCost(o); ok {
			costs = append(costs, c)
		}
	}
	costs = append(costs, m.cr.quitCosts()...)
	if c, ok := deletesQuitCost(m.ops.deleting); ok {
		costs = append(costs, c)
	}
	return costs
}

// askQuit asks before a quit, from any layer, that would lose work in
// flight (quitCosts). One question names all of it: y quits (common.Quit
// with Anyway), anything else stays and says what goes on. The answer is
// read against the work in flight when it is given: work that ended
// meanwhile is not said to go on. It reports whether it asked (false:
// nothing is in flight, the quit goes ahead).
func (m *app) askQuit(now time.Time) bool {
	costs := m.quitCosts()
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
	var lines []string
	for _, c := range costs {
		lines = append(lines, c.lines...)
	}
	if len(lines) > maxQuitLines {
		// Many creates at once: the question stays short enough to show.
		lines = append(lines[:maxQuitLines-1], "… and "+strconv.Itoa(len(lines)-maxQuitLines+1)+" more like these.")
	}
	d := dialog.New(dialog.Confirm, now, title, lines...)
	d.OnAnswer = func(_ *common.Context, a dialog.Reply) common.Effect {
		if a.OK {
			m.leftBehind = nil
			for _, c := range m.quitCosts() {
				if c.after != "" {
					m.leftBehind = append(m.leftBehind, c.after)
				}
			}
			return common.Quit{Anyway: true}
		}
		var goesOn []string
		for _, c := range m.quitCosts() {
			goesOn = append(goesOn, c.goesOn)
		}
		if len(goesOn) == 0 {
			return common.Say{Text: "not quitting (what was in progress has ended)"}
		}
		return common.Say{Text: "not quitting: " + strings.Join(goesOn, "; ")}
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
		after:  "cancelled " + what + ": " + left,
	}, true
}

// quitCosts are what quitting does to the creates under way: one waiting
// to retry is dropped (nothing is created); one sent stops being waited
// for, and Colab may still create its runtime.
func (m *createOps) quitCosts() []quitCost {
	var out []quitCost
	for _, op := range m.creates {
		spec := op.spec.String()
		c := quitCost{title: "A create of " + spec + " is in progress; quit anyway?", goesOn: "the create of " + spec + " goes on"}
		if op.state == createWaiting {
			c.lines = []string{"Quitting drops the create of " + spec + " waiting to retry: nothing is created."}
		} else {
			c.lines = []string{"Quitting stops waiting for the create of " + spec + ": Colab may still create it (colabdash status lists it)."}
			c.after = "a create of " + spec + " was sent: Colab may still create it (colabdash status lists it)"
		}
		out = append(out, c)
	}
	return out
}

// deletesQuitCost is what quitting does to the runtimes' deletes under
// way (deleting: runtime name → when sent): they stop being waited for,
// and a delete that had not reached Colab leaves its runtime running.
func deletesQuitCost(deleting map[string]time.Time) (quitCost, bool) {
	if len(deleting) == 0 {
		return quitCost{}, false
	}
	ids := make([]string, 0, len(deleting))
	for name := range deleting {
		ids = append(ids, termtext.Line(api.LastSegment(name)))
	}
	slices.Sort(ids)
	list := strings.Join(ids, ", ")
	title := "Deleting " + list + "; quit anyway?"
	if len(ids) > 1 {
		title = strconv.Itoa(len(ids)) + " deletes are in progress; quit anyway?"
	}
	return quitCost{
		title:  title,
		lines:  []string{"Quitting stops waiting for the delete of " + list + ": one that had not reached Colab leaves its runtime running (colabdash status shows it)."},
		goesOn: "deleting " + list + " goes on",
		after:  "the delete of " + list + " may not have reached Colab (colabdash status shows it)",
	}, true
}
