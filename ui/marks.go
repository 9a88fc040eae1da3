package ui

// The runtimes table's marks: space marks a row, and the bulk keys (d, x)
// ask one question for every marked row the table shows.

import (
	"strconv"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api/plural"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
)

// mark is space on the table: the selected runtime marked or unmarked,
// the cursor a row down, and the status line says how many are marked and
// what acts on them.
func (m *runtimeOps) mark(now time.Time, visible int) {
	before := m.rt.Selected()
	id, marked, ok := m.rt.ToggleMark(visible)
	if m.rt.Selected() != before {
		m.sess.Reset()
	}
	switch {
	case !ok && id == "":
		m.scr.say(now, common.Say{Text: "no runtime selected", Err: true})
	case !ok:
		m.scr.say(now, common.Say{Text: id + " is gone: it cannot be marked", Err: true})
	default:
		word := "unmarked "
		if marked {
			word = "marked "
		}
		k := m.cx.Keys
		m.scr.say(now, common.Say{Text: word + id + " · " + countWord(len(m.rt.Marked()), "runtime") + " marked: " +
			k.Word(keymap.ActionDeleteRuntime) + " deletes them, " + k.Word(keymap.ActionCloseSession) + " closes their sessions, " +
			k.Word(keymap.ActionClearMarks) + " clears"})
	}
}

// marksHidden reports, saying so, that runtimes are marked but the filter
// hides every one: a bulk key acts only on what the table shows, and then
// on nothing (not on the selection, which the marks were meant to replace).
func (m *runtimeOps) marksHidden(now time.Time) bool {
	if len(m.rt.Marked()) > 0 || m.rt.HiddenMarks() == 0 {
		return false
	}
	k := m.cx.Keys
	m.scr.say(now, common.Say{Text: countWord(m.rt.HiddenMarks(), "marked runtime") + " hidden by the filter, none shown: " +
		k.Word(keymap.ActionBack) + " clears the filter, " + k.Word(keymap.ActionClearMarks) + " the marks", Err: true})
	return true
}

// deleteKey is d on the table: one question for the marked rows the
// table shows, else for the selected runtime, when live (live says why
// not).
func (m *runtimeOps) deleteKey(now time.Time, live func(time.Time) *state.Runtime) {
	if m.marksHidden(now) {
		return
	}
	if marked := m.rt.Marked(); len(marked) > 0 {
		m.askDeleteMarked(marked, now)
	} else if sel := live(now); sel != nil {
		m.askDelete(sel, now)
	}
}

// closeSessionKey is x: on the table with marks, one question for the
// sessions colabdash opened on the marked rows; else the selected
// session.
func (m *runtimeOps) closeSessionKey(now time.Time) {
	onTable := m.cx.Focus == common.PanelRuntimes
	if onTable && m.marksHidden(now) {
		return
	}
	if marked := m.rt.Marked(); len(marked) > 0 && onTable {
		m.askCloseMarked(marked, now)
		return
	}
	m.askCloseSession(now)
}

// startDeletes deletes each runtime of names, confirmed in one question;
// their marks drop.
func (m *runtimeOps) startDeletes(names []string, now time.Time) tea.Cmd {
	m.rt.Unmark(names...)
	cmds := make([]tea.Cmd, 0, len(names))
	for _, n := range names {
		cmds = append(cmds, m.startDelete(n, now))
	}
	return tea.Batch(cmds...)
}

// startCloseSessions closes each session of c, confirmed in one question
// about c.Runtimes, whose marks drop.
func (m *runtimeOps) startCloseSessions(c common.CloseSessions, now time.Time) tea.Cmd {
	m.rt.Unmark(c.Runtimes...)
	cmds := make([]tea.Cmd, 0, len(c.Names))
	for _, n := range c.Names {
		cmds = append(cmds, m.startCloseSession(n, now))
	}
	return tea.Batch(cmds...)
}

// askDeleteMarked asks once, y only, whether to delete every runtime in
// rs (the marked rows the table shows), listing them; the answer deletes
// exactly those, whatever is marked or selected by then.
func (m *runtimeOps) askDeleteMarked(rs []*state.Runtime, now time.Time) {
	names := make([]string, 0, len(rs))
	list := make([]string, 0, len(rs))
	for _, r := range rs {
		names = append(names, r.Name)
		list = append(list, "  "+r.ID()+" ("+specWords(r)+", "+plural.Count(len(r.Sessions), "session")+")")
	}
	body := []string{m.listFitting(list), "This cannot be undone: it removes each runtime's files and sessions."}
	for _, r := range rs {
		if s := deleteStakes(m.cx, r.Name, now).Sentence(); s != "" {
			body = append(body, r.ID()+": "+strings.ToLower(s[:1])+s[1:]) // "It also stops …" after a colon
		}
	}
	d := dialog.New(dialog.Confirm, now, "Delete "+countWord(len(rs), "marked runtime")+"?", body...)
	d.OnAnswer = func(_ *common.Context, r dialog.Reply) common.Effect {
		if !r.OK {
			return common.Say{Text: "delete cancelled (the marks stay)"}
		}
		return common.DeleteRuntimes{Names: names}
	}
	m.scr.push(d)
}

// askCloseMarked asks once, y only, whether to close the sessions
// colabdash opened on the runtimes in rs (the marked rows the table
// shows), listing them. Notebook sessions are left alone: each needs its
// own typed confirmation (x in the sessions panel).
func (m *runtimeOps) askCloseMarked(rs []*state.Runtime, now time.Time) {
	var names, list, runtimes []string
	notebooks := 0
	for _, r := range rs {
		runtimes = append(runtimes, r.Name)
		for _, s := range r.Sessions {
			if !m.cx.Snap.Owned(s.Name) {
				notebooks++
				continue
			}
			names = append(names, s.Name)
			list = append(list, "  "+r.ID()+" · "+s.ID())
		}
	}
	left := ""
	if notebooks > 0 {
		left = countWord(notebooks, "notebook session") + " (not opened by colabdash) left alone: close each in the sessions panel."
	}
	if len(names) == 0 {
		msg := "no session colabdash opened on the " + countWord(len(rs), "marked runtime")
		if left != "" {
			msg += "; " + left
		}
		m.scr.say(now, common.Say{Text: msg, Err: true})
		return
	}
	body := []string{m.listFitting(list)}
	if left != "" {
		body = append(body, left)
	}
	d := dialog.New(dialog.Confirm, now, "Close "+countWord(len(names), "session")+" on "+
		countWord(len(rs), "marked runtime")+"?", body...)
	d.OnAnswer = func(_ *common.Context, r dialog.Reply) common.Effect {
		if !r.OK {
			return common.Say{Text: "close cancelled (the marks stay)"}
		}
		return common.CloseSessions{Names: names, Runtimes: runtimes}
	}
	m.scr.push(d)
}

// listFitting joins list into one paragraph, one line each, cut with
// "… and N more" where the screen could not show the whole dialog.
func (m *runtimeOps) listFitting(list []string) string {
	room := max(3, m.cx.Layout.H-12) // borders, title, other lines, answer
	if len(list) > room {
		more := len(list) - (room - 1)
		list = append(list[:room-1:room-1], "  … and "+strconv.Itoa(more)+" more")
	}
	return strings.Join(list, "\n")
}

// countWord is "1 session", "3 sessions".
func countWord(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
