package ui

// The idle guard (config idleGuard:, per profile): once a runtime has
// been idle by every signal for the guard's time, it warns, or with
// action delete gives a last warning and deletes the runtime
// state.GuardGrace later through the dashboard's own delete, unless the
// user pressed the guard's cancel key (keymap guard_cancel) on it
// meanwhile. state.GuardDecide decides; never in --readonly. A runtime
// whose signals are not all known (terminals, jobs, GPUs not read, the
// kernels' list stale) is never idle to the guard; one never used (no
// kernels, nothing ever active) is, from when it was first seen
// (monitor.Verdict.GuardSince).
//
// The cancel key's keep is recorded in the state directory (ui/notify's
// Keep) for the runtime's stretch of idleness, and every dashboard reads
// the keeps (off Update, in a tea.Cmd) before it warns or deletes: a keep
// holds across dashboards and after the one that recorded it quit. A
// delete follows only a last warning this dashboard showed in its own
// status line, which names every runtime warned in the same tick and
// counts down to the delete at each tick (guardLine).

import (
	"maps"
	"slices"
	"strconv"
	"strings"
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

// guardItem is a step the guard decided for runtime name, quiet since
// since (its stretch named stretch), waiting for the check of the keeps:
// before is its memo when decided, after the memo the step leaves.
type guardItem struct {
	name, stretch string
	step          state.GuardStep
	since         time.Time
	before, after state.GuardMemo
	kept          bool
}

// guardCheckedMsg is the answer of the keeps' check (the state directory
// is read off Update) for the steps of one tick.
type guardCheckedMsg struct {
	owner *notifyOps
	gen   uint64
	items []guardItem
}

// guardKeptMsg is the answer of recording a keep (the cancel key).
type guardKeptMsg struct {
	owner *notifyOps
	name  string
	err   error
}

// guardKey is the key of the keep of runtime name for its stretch of
// idleness, in this account (profile and endpoint).
func (m *app) guardKey(name, stretch string) string {
	return strings.Join([]string{m.cx.Profile, m.opts.Endpoint, api.LastSegment(name), stretch}, "\x00")
}

// guardTick runs the idle guard over the runtimes listed: the steps due
// (warnings, deletes) go to a check of the keeps every colabdash of this
// state directory recorded (guardChecked carries them out), one check at
// a time.
func (m *app) guardTick(now time.Time) []tea.Cmd {
	n := m.notes
	p := m.guardPolicy()
	if p.After <= 0 || n.checking {
		return nil
	}
	var items []guardItem
	var keys []string
	for _, r := range m.cx.Snap.Rows(state.SortByName, "") {
		if r.Gone() || n.culling[r.Name] {
			continue
		}
		var since time.Time
		stretch := ""
		if v, ok := m.runtimeVerdict(r.Name, now); ok {
			since, stretch = v.GuardSince(), v.Stretch()
		}
		before := n.guard[r.Name]
		step, memo := state.GuardDecide(p, before, since, now)
		if step != state.GuardNone {
			items = append(items, guardItem{name: r.Name, stretch: stretch, step: step, since: since, before: before, after: memo})
			keys = append(keys, m.guardKey(r.Name, stretch))
			continue
		}
		if memo == (state.GuardMemo{}) {
			delete(n.guard, r.Name)
		} else {
			n.guard[r.Name] = memo
		}
	}
	if len(items) == 0 {
		return nil
	}
	n.checking = true
	nn, gen := n.n, n.gen
	return []tea.Cmd{func() tea.Msg {
		for i := range items {
			items[i].kept = nn.Kept(keys[i])
		}
		return guardCheckedMsg{owner: n, gen: gen, items: items}
	}}
}

// guardChecked carries out the steps of msg whose runtime is still as
// when they were decided (listed, its memo unchanged): a runtime kept
// with the cancel key, by this colabdash or another, is left alone for
// its stretch of idleness; the others are warned (the status line names
// every one) or deleted.
func (m *app) guardChecked(msg guardCheckedMsg, now time.Time) tea.Cmd {
	n := m.notes
	if msg.owner != n || msg.gen != n.gen {
		return nil
	}
	n.checking = false
	var cmds []tea.Cmd
	var warned []string
	deletes := false
	for _, it := range msg.items {
		if r := m.cx.Snap.Runtime(it.name); r == nil || r.Gone() || n.culling[it.name] || n.guard[it.name] != it.before {
			continue
		}
		id := api.LastSegment(it.name)
		n.stretch[it.name] = it.stretch
		if it.kept {
			n.guard[it.name] = state.GuardMemo{IdleSince: it.since, Cancelled: true}
			m.scr.noteEvent(now, "idle guard", it.name, "left "+id+" alone: kept with "+m.guardCancelKey()+" until it has worked and gone idle again")
			continue
		}
		n.guard[it.name] = it.after
		if it.step != state.GuardDeleteNow {
			warned = append(warned, it.name)
			deletes = deletes || it.step == state.GuardLastWarning
		}
		cmds = append(cmds, m.guardStep(it, now))
	}
	if len(warned) > 0 {
		m.guardSay(now, warned, deletes)
	}
	return tea.Batch(cmds...)
}

// guardCancelKey is the cancel key as the help names it ("ctrl+g").
func (m *app) guardCancelKey() string { return m.cx.Keys.Dashboard.GuardCancel.Help().Key }

// guardStep carries out the guard's step it: a warning is told (and
// logged by name), a delete started.
func (m *app) guardStep(it guardItem, now time.Time) tea.Cmd {
	name, since := it.name, it.since
	id := api.LastSegment(name)
	idle := "idle " + state.FormatDuration(now.Sub(since).Truncate(time.Minute))
	ev := state.Event{Runtime: id, Instance: it.stretch, At: now}
	switch it.step {
	case state.GuardWarnNow:
		ev.Kind, ev.Status = state.EventRuntimeIdle, idle
		ev.Text = id + " has been idle by every signal for " + state.FormatDuration(now.Sub(since).Truncate(time.Minute))
		m.scr.noteEvent(now, "idle guard", name, "warned: "+id+" "+idle+" by every signal")
	case state.GuardLastWarning:
		key := m.guardCancelKey()
		ev.Kind, ev.Status = state.EventGuardDelete, idle+", deleting in "+state.FormatDuration(state.GuardGrace)
		ev.Text = "the idle guard deletes " + id + " in " + state.FormatDuration(state.GuardGrace) + " unless " + key + " keeps it"
		// A last warning told by another colabdash stands in for this
		// one's only within the same grace time (two dashboards warning
		// together ring once; a dashboard started later warns afresh).
		ev.Instance += " warned " + now.UTC().Truncate(state.GuardGrace).Format(time.RFC3339)
		m.scr.noteEvent(now, "idle guard", name, "last warning: "+id+" "+idle+" by every signal, deleting it in "+
			state.FormatDuration(state.GuardGrace)+" unless "+key+" keeps it")
	case state.GuardDeleteNow:
		m.notes.culling[name] = true
		m.scr.noteEvent(now, "idle guard", name, "deleting "+id+": "+idle+" by every signal, "+state.FormatDuration(state.GuardGrace)+" after the last warning")
		return m.ops.startDelete(name, now)
	default:
		return nil
	}
	return m.tell(ev)
}

// guardSay shows the guard's warnings of one tick, of runtimes names, in
// the status line until the grace time is over (or another status
// replaces it): one runtime by id with its idle time, several by id (the
// first three) and count. A last warning counts down to the delete at
// each tick (guardLine), naming every runtime whose delete is still
// coming, warned in this tick or an earlier one; once none is, the line
// goes.
func (m *app) guardSay(now time.Time, names []string, deletes bool) {
	if !deletes {
		text, _ := m.guardLine(now, names, false)
		m.scr.say(now, common.Say{Text: text})
		st := m.cx.Status
		st.Until = now.Add(state.GuardGrace)
		m.scr.setLine(st)
		return
	}
	// Every runtime whose delete is coming, warned in this tick or an
	// earlier one: a later warning must not hide an earlier one's delete.
	live := func(at time.Time) (string, bool) { return m.guardLine(at, m.guardWarned(), true) }
	text, _ := live(now)
	m.scr.sayLive(now, common.Say{Text: text, Err: true}, now.Add(state.GuardGrace), live)
}

// guardWarned is every runtime the guard remembers, the soonest delete
// first (then by name): guardLine keeps those whose delete is coming.
func (m *app) guardWarned() []string {
	p := m.guardPolicy()
	names := slices.Collect(maps.Keys(m.notes.guard))
	at := func(name string) time.Time { t, _ := m.notes.guard[name].DeleteAt(p); return t }
	slices.SortFunc(names, func(a, b string) int {
		if c := at(a).Compare(at(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return names
}

// guardLine is the status line of the guard's warnings of runtimes names
// at now. For last warnings (deletes) it names those whose delete is
// still coming (warned, not kept, not gone, not being deleted) with the
// time left before it, "rt-abc idle 32m: the idle guard deletes it in
// 2m59s · select it and press ctrl+g to keep it"; ok is false when none
// is, or its time has come.
func (m *app) guardLine(now time.Time, names []string, deletes bool) (text string, ok bool) {
	n, p := m.notes, m.guardPolicy()
	var ids []string
	var since, at time.Time // the first runtime's idle start, the earliest delete
	for _, name := range names {
		memo := n.guard[name]
		if deletes {
			when, coming := memo.DeleteAt(p)
			if r := m.cx.Snap.Runtime(name); !coming || r == nil || r.Gone() || n.culling[name] {
				continue
			}
			if at.IsZero() || when.Before(at) {
				at = when
			}
		}
		if len(ids) == 0 {
			since = memo.IdleSince
		}
		ids = append(ids, api.LastSegment(name))
	}
	if len(ids) == 0 || deletes && !now.Before(at) {
		return "", false
	}
	key := m.guardCancelKey()
	left := state.FormatCountdown(at.Sub(now))
	if len(ids) == 1 {
		idle := "idle " + state.FormatDuration(now.Sub(since).Truncate(time.Minute))
		if deletes {
			return ids[0] + " " + idle + ": the idle guard deletes it in " + left + " · select it and press " + key + " to keep it", true
		}
		return ids[0] + " " + idle + " by every signal (idle guard)", true
	}
	list := strings.Join(ids[:min(len(ids), 3)], ", ")
	if len(ids) > 3 {
		list += " and " + strconv.Itoa(len(ids)-3) + " more"
	}
	if deletes {
		return strconv.Itoa(len(ids)) + " runtimes idle: the idle guard deletes " + list + " in " + left +
			" · select one and press " + key + " to keep it", true
	}
	return strconv.Itoa(len(ids)) + " runtimes idle by every signal (idle guard): " + list, true
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
// for its current stretch of idleness (the cancel key), here at once and,
// through a keep recorded in the state directory, in every colabdash
// sharing it, now and after this one quits.
func (m *app) cancelGuard(now time.Time) tea.Cmd {
	n := m.notes
	name := m.rt.Selected()
	memo, ok := n.guard[name]
	if name == "" || !ok || memo.Warned.IsZero() || memo.Cancelled {
		m.scr.say(now, common.Say{Text: "the idle guard has no delete coming for this runtime"})
		return nil
	}
	memo.Cancelled = true
	n.guard[name] = memo
	id := api.LastSegment(name)
	m.scr.noteEvent(now, "idle guard", name, "kept "+id+": the delete was cancelled by the user")
	m.scr.say(now, common.Say{Text: "the idle guard keeps " + id + " (until it has worked and gone idle again)"})
	nn, key := n.n, m.guardKey(name, n.stretch[name])
	return func() tea.Msg { return guardKeptMsg{owner: n, name: name, err: nn.Keep(key)} }
}

// guardKept tells when a keep could not be recorded for the other
// dashboards (this one keeps the runtime all the same).
func (m *app) guardKept(msg guardKeptMsg, now time.Time) {
	if msg.owner != m.notes || msg.err == nil {
		return
	}
	id := api.LastSegment(msg.name)
	text := "the idle guard keeps " + id + " here, but other colabdash dashboards may not know: " + common.ErrLine(msg.err)
	m.scr.noteEvent(now, "idle guard", msg.name, text)
	m.scr.say(now, common.Say{Text: text, Err: true})
}
