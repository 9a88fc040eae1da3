package ui

// Notifications: what the dashboard tells the user when something ends
// (state.Event, told by ui/notify). The root sees the events where the
// answers are folded: a job seen running and now ended (the jobs
// listing), a runtime the listing lost that colabdash did not delete, a
// proxy token that could not be renewed, console code that finished while
// its console was not on screen, and the idle guard's steps
// (idleguard.go). Each is told in a tea.Cmd (the user's command
// may run for seconds); its answer (notifiedMsg) goes to the event log and
// its terminal bytes to the terminal through the Painter, between frames.

import (
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/state/monitor"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/notify"
)

// notifyOps tells events and remembers what it has seen to find them:
// the runtimes listed alive and the jobs seen running, per account.
type notifyOps struct {
	n        *notify.Notifier
	svc      api.Service                // the account the memories below are of
	live     map[string]bool            // runtimes seen listed and not gone
	running  map[string]map[string]bool // runtime → jobs seen running
	guard    map[string]state.GuardMemo // the idle guard's memory per runtime
	culling  map[string]bool            // runtimes the idle guard is deleting
	stretch  map[string]string          // the stretch of idleness the guard last acted on, per runtime
	checking bool                       // a check of the keeps is under way (guardTick)
	gen      uint64                     // bumps per account: a check's answer for another is dropped
	asked    map[string]bool            // the events' keys told (or being told): never again
	version  uint64                     // the snapshot's version last scanned for runtimes gone
	// verdict, when set, replaces runtimeVerdict (tests).
	verdict func(name string, now time.Time) (monitor.Verdict, bool)
}

// notifiedMsg is a told event's answer; owner names the dashboard that
// told it (an answer for another is dropped).
type notifiedMsg struct {
	owner *notifyOps
	ev    state.Event
	d     notify.Delivery
}

// newNotifyOps builds the dashboard's Notifier from o: the notify
// settings, the state directory as the place where events are claimed
// (none in demo mode: the demo's emulator is this process's own), the
// redactor and the environment.
func newNotifyOps(o *Options) *notifyOps {
	dir := o.StateDir
	if o.Demo {
		dir = ""
	}
	return &notifyOps{n: notify.New(notify.Options{Settings: o.Notify, Getenv: o.Getenv, Environ: o.Environ,
		StateDir: dir, Redact: o.Redact, Now: o.Now})}
}

// forAccount forgets what was seen of another account's runtimes.
func (n *notifyOps) forAccount(svc api.Service) {
	if n.live != nil && n.svc == svc {
		return
	}
	n.svc = svc
	n.live, n.running = map[string]bool{}, map[string]map[string]bool{}
	n.guard, n.culling, n.stretch = map[string]state.GuardMemo{}, map[string]bool{}, map[string]string{}
	n.checking = false
	n.gen++
}

// tell is the command that tells ev (Notify blocks while the user's
// command runs), cancelled when the dashboard quits; nil for an event
// this dashboard told already (a retry failing again, a refresh).
func (m *app) tell(ev state.Event) tea.Cmd {
	n, ctx := m.notes, m.life.ctx
	if n.asked == nil {
		n.asked = map[string]bool{}
	}
	if n.asked[ev.Key()] {
		return nil
	}
	n.asked[ev.Key()] = true
	return func() tea.Msg {
		return notifiedMsg{owner: n, ev: ev, d: n.n.Notify(ctx, ev)}
	}
}

// onNotified writes a told event's terminal bytes (never while a shell
// has the terminal: the Painter keeps them until it is back) and records
// it in the event log.
func (m *app) onNotified(msg notifiedMsg, now time.Time) {
	if msg.owner != m.notes {
		return
	}
	m.life.term.Aside(msg.d.Terminal)
	how := []string{}
	switch {
	case !msg.d.Told:
		how = append(how, "told already by another colabdash")
	case msg.d.Muted:
		how = append(how, "muted")
	default:
		if len(msg.d.Terminal) > 0 {
			how = append(how, "terminal")
		}
		if msg.d.Command != "" {
			how = append(how, "command "+msg.d.Command)
		}
	}
	text := msg.ev.Title()
	if msg.ev.Text != "" {
		text += ": " + msg.ev.Text
	}
	if len(how) > 0 {
		text += " (" + strings.Join(how, ", ") + ")"
	}
	target := ""
	if msg.ev.Runtime != "" {
		target = "runtimes/" + msg.ev.Runtime
	}
	m.scr.logEvent(Event{At: now, Tool: "notify " + string(msg.ev.Kind), Target: target, Told: text})
}

// notifyTick finds the runtimes the listing lost (runtime-gone): alive
// when last seen, gone now, and neither deleted by this dashboard nor
// being deleted by it.
func (m *app) notifyTick(now time.Time) []tea.Cmd {
	n := m.notes
	n.forAccount(m.link.svc)
	cmds := []tea.Cmd{m.notifyUnseenRuns(now)}
	if v := m.cx.Snap.Version(); v != n.version || len(m.ops.deleting) > 0 {
		n.version = v
		cmds = append(cmds, m.goneRuntimes(now)...)
	}
	return append(cmds, m.guardTick(now)...)
}

// goneRuntimes tells the runtimes alive when last seen and gone now,
// neither deleted nor being deleted by this dashboard (nor its guard).
func (m *app) goneRuntimes(now time.Time) []tea.Cmd {
	n := m.notes
	var cmds []tea.Cmd
	seen := map[string]bool{}
	for _, r := range m.cx.Snap.Rows(state.SortByName, "") {
		seen[r.Name] = true
		_, deleting := m.ops.deleting[r.Name]
		switch {
		case !r.Gone():
			n.live[r.Name] = true
		case n.live[r.Name] && !r.Deleted() && !deleting && !n.culling[r.Name]:
			delete(n.live, r.Name)
			id := api.LastSegment(r.Name)
			if job, ok := m.jobs.whenDoneJob(r.Name); ok {
				// Gone as a job note asked: another colabdash (wait, jobs
				// --watch, a dashboard) carried out the delete. Not a loss.
				m.scr.say(now, common.Say{Text: "runtime " + id + " is gone: its job " + job + " ended and asked for delete-when-done (another colabdash deleted it)"})
				continue
			}
			text := "runtime " + id + " is no longer listed"
			if r.GoneReason != "" {
				text += " (" + r.GoneReason + ")"
			}
			cmds = append(cmds, m.tell(state.Event{Kind: state.EventRuntimeGone, Runtime: id, Status: "gone", Text: text, At: now}))
		default:
			delete(n.live, r.Name)
		}
	}
	for name := range n.live {
		if !seen[name] {
			delete(n.live, name) // deleted by this dashboard: left Rows at once
		}
	}
	return cmds
}

// notifyJobs tells the ends of runtime's jobs seen running before and
// ended in its listing now.
func (m *app) notifyJobs(runtime string, now time.Time) tea.Cmd {
	js, ok := m.jobs.Jobs(runtime)
	if !ok {
		return nil
	}
	n := m.notes
	n.forAccount(m.link.svc)
	was := n.running[runtime]
	is := map[string]bool{}
	var cmds []tea.Cmd
	for _, j := range js {
		v := state.JudgeJob(j.Record, now, 0)
		id := j.Record.Spec.ID
		if !v.Ended() {
			is[id] = true
			continue
		}
		if was[id] {
			cmds = append(cmds, m.tell(state.JobEnded(j.Record, v, now)))
		}
	}
	n.running[runtime] = is
	return tea.Batch(cmds...)
}

// notifyRenewFailed tells that runtime's proxy token could not be
// renewed: once per token (its expireTime tells it apart).
func (m *app) notifyRenewFailed(runtime string, err error, now time.Time) tea.Cmd {
	if err == nil {
		return nil
	}
	r := m.cx.Snap.Runtime(runtime)
	if r == nil || r.Gone() {
		return nil
	}
	id := api.LastSegment(runtime)
	exp := r.ExpireTime()
	text := "the proxy token of " + id + " could not be renewed: " + common.ErrLine(err)
	if !exp.IsZero() {
		text += "; it expires in " + state.FormatCountdown(exp.Sub(now))
	}
	return m.tell(state.Event{Kind: state.EventTokenFailed, Runtime: id, Status: "token not renewed", Text: text,
		Instance: strconv.FormatInt(exp.Unix(), 10), At: now})
}

// notifyUnseenRuns tells the console runs that finished while their
// console was not on screen (execState.unseen), and forgets them.
func (m *app) notifyUnseenRuns(now time.Time) tea.Cmd {
	var cmds []tea.Cmd
	for _, r := range m.ex.unseen {
		word := "finished"
		if out, code, _ := state.ExitAsPython(r.res); r.err != nil || out.ExecutionError != nil || code != 0 {
			word = "failed"
		}
		rt := api.LastSegment(api.Session{Name: r.session}.Parent())
		cmds = append(cmds, m.tell(state.Event{Kind: state.EventCodeDone, Runtime: rt, Status: "code " + word,
			Text:     "code run on " + rt + " " + word + " after " + state.FormatCountdown(now.Sub(r.started)),
			Instance: r.session + "/" + strconv.Itoa(r.id) + "@" + strconv.FormatInt(r.started.UnixNano(), 10), At: now}))
	}
	m.ex.unseen = nil
	return tea.Batch(cmds...)
}
