package ui

// The idle guard (config idleGuard:, per profile): once a runtime has
// been idle by every signal for the guard's time, it warns, or with
// action delete gives a last warning and deletes the runtime
// state.GuardGrace later through the dashboard's own delete, unless the
// user pressed the guard's cancel key (keymap guard_cancel) on it
// meanwhile. state.GuardDecide decides; never in --readonly. A runtime
// whose signals are not all known (terminals, jobs, GPUs not read, the
// kernels' list stale) is never idle to the guard.

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/state/monitor"
	"github.com/colabdash/colabdash/ui/common"
)

// guardPolicy is the idle guard in effect now (After 0: off).
func (m *app) guardPolicy() state.GuardPolicy {
	if m.opts.IdleGuard == nil {
		return state.GuardPolicy{}
	}
	g := m.opts.IdleGuard(m.cx.Profile)
	return state.GuardPolicy{After: g.After, Delete: g.Action == config.GuardDelete, ReadOnly: m.opts.ReadOnly}
}

// runtimeVerdict is the verdict the panes show of runtime name
// (monitor.Runtime.Verdict: Decide over its kernels, terminals, jobs and
// GPUs as read); ok is false before its kernels were read or once they
// are stale. Signals not read stay unknown (the verdict's Unknown), which
// keeps the guard from acting.
func (m *app) runtimeVerdict(name string, now time.Time) (monitor.Verdict, bool) {
	if m.notes.verdict != nil {
		return m.notes.verdict(name, now)
	}
	if m.mon == nil {
		return monitor.Verdict{}, false
	}
	r := m.mon.poll.Runtime(name)
	if r == nil || r.KernelsAt.IsZero() || r.KernelsStale() {
		return monitor.Verdict{}, false
	}
	return r.Verdict(now), true
}

// guardTick runs the idle guard over the runtimes listed: warnings
// (status line and notification), and deletes due.
func (m *app) guardTick(now time.Time) []tea.Cmd {
	n := m.notes
	p := m.guardPolicy()
	if p.After <= 0 {
		return nil
	}
	var cmds []tea.Cmd
	for _, r := range m.cx.Snap.Rows(state.SortByName, "") {
		if r.Gone() || n.culling[r.Name] {
			continue
		}
		var since time.Time
		if v, ok := m.runtimeVerdict(r.Name, now); ok && v.State == monitor.StateIdle && v.AllKnown() {
			since = v.Since
		}
		step, memo := state.GuardDecide(p, n.guard[r.Name], since, now)
		if memo == (state.GuardMemo{}) {
			delete(n.guard, r.Name)
		} else {
			n.guard[r.Name] = memo
		}
		if c := m.guardStep(r.Name, step, since, now); c != nil {
			cmds = append(cmds, c)
		}
	}
	return cmds
}

// guardStep carries out the guard's step for runtime name, idle since
// since.
func (m *app) guardStep(name string, step state.GuardStep, since, now time.Time) tea.Cmd {
	id := api.LastSegment(name)
	idle := "idle " + state.FormatDuration(now.Sub(since).Truncate(time.Minute))
	ev := state.Event{Runtime: id, Instance: since.UTC().Format(time.RFC3339Nano), At: now}
	switch step {
	case state.GuardWarnNow:
		ev.Kind, ev.Status = state.EventRuntimeIdle, idle
		ev.Text = id + " has been idle by every signal for " + state.FormatDuration(now.Sub(since).Truncate(time.Minute))
		m.guardSay(now, id+" "+idle+" by every signal (idle guard)", false)
	case state.GuardLastWarning:
		key := m.cx.Keys.Dashboard.GuardCancel.Help().Key
		ev.Kind, ev.Status = state.EventGuardDelete, idle+", deleting in "+state.FormatDuration(state.GuardGrace)
		ev.Text = "the idle guard deletes " + id + " in " + state.FormatDuration(state.GuardGrace) + " unless " + key + " keeps it"
		m.guardSay(now, id+" "+idle+": the idle guard deletes it in "+state.FormatDuration(state.GuardGrace)+" · select it and press "+key+" to keep it", true)
	case state.GuardDeleteNow:
		m.notes.culling[name] = true
		m.scr.noteEvent(now, "idle guard", name, "deleting "+id+": "+idle+" by every signal, "+state.FormatDuration(state.GuardGrace)+" after the last warning")
		return m.ops.startDelete(name, now)
	default:
		return nil
	}
	return m.tell(ev)
}

// guardSay shows a warning of the guard in the status line until the
// grace time is over (or another status replaces it).
func (m *app) guardSay(now time.Time, text string, err bool) {
	m.scr.say(now, common.Say{Text: text, Err: err})
	st := m.cx.Status
	st.Until = now.Add(state.GuardGrace)
	m.scr.setLine(st)
}

// guardDeleted tells the outcome of a delete the guard made (nil for
// another delete).
func (m *app) guardDeleted(msg deleteDoneMsg, now time.Time) tea.Cmd {
	n := m.notes
	if !n.culling[msg.name] {
		return nil
	}
	delete(n.culling, msg.name)
	id := api.LastSegment(msg.name)
	if msg.err != nil {
		delete(n.guard, msg.name) // a new stretch may try again
		return nil
	}
	m.scr.noteEvent(now, "idle guard", msg.name, "deleted "+id+" (idle by every signal)")
	return m.tell(state.Event{Kind: state.EventGuardDelete, Runtime: id, Status: "deleted by the idle guard",
		Text: "the idle guard deleted " + id + ": idle by every signal past the guard's time", At: now})
}

// cancelGuard keeps the selected runtime from the idle guard's delete
// for its current stretch of idleness (the cancel key).
func (m *app) cancelGuard(now time.Time) {
	name := m.rt.Selected()
	memo, ok := m.notes.guard[name]
	if name == "" || !ok || memo.Warned.IsZero() || memo.Cancelled {
		m.scr.say(now, common.Say{Text: "the idle guard has no delete coming for this runtime"})
		return
	}
	memo.Cancelled = true
	m.notes.guard[name] = memo
	id := api.LastSegment(name)
	m.scr.noteEvent(now, "idle guard", name, "kept "+id+": the delete was cancelled by the user")
	m.scr.say(now, common.Say{Text: "the idle guard keeps " + id + " (until it has worked and gone idle again)"})
}
