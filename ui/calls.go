package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api/auth"
	"github.com/colabdash/colabdash/ui/termtext"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/pane/runtimes"
)

// callKind is a read call the dashboard repeats: the lists and the
// token renewal.
type callKind int

const (
	callRuntimes callKind = iota
	callSessions
	callSubscription
	callSpecs
	callRenew
)

// String is the call's MCP tool name.
func (k callKind) String() string {
	return [...]string{api.ToolListRuntimes, api.ToolListSessions, api.ToolGetSubscription, api.ToolListRuntimeSpecs, api.ToolGetRuntime}[k]
}

// callKey says what a call is for: its kind and, for per-runtime calls,
// the runtime name.
type callKey struct {
	kind    callKind
	runtime string
}

type pendingCall struct {
	gen     uint64
	started time.Time
	version uint64    // snapshot version when sent
	expire  time.Time // a renewal: the token's expireTime when sent
	counted bool      // recorded in the call budget: its reply frees the slot
}

// resultMsg is the answer to one API call. gen is the request generation:
// the answer is applied only if it is still the latest request for key.
type resultMsg struct {
	key      callKey
	gen      uint64
	err      error
	runtimes []api.Runtime
	sessions []api.Session
	owned    []string // of sessions, those the state directory records as colabdash's
	runtime  api.Runtime
	sub      api.Subscription
	specs    []api.RuntimeSpec
}

// callState is the bookkeeping of the read calls: what is in flight, when
// the next refresh is due, and the renewal schedule of each runtime. It
// reads the selection (rt) and writes the snapshot, the event log and the
// status line; what an answer means to the other domain types the root
// hands them (app.onResult).
type callState struct {
	cx          *common.Context
	opts        *Options
	link        *link
	scr         *screen
	rt          *runtimes.Pane // the selection comes first
	seq         uint64
	pending     map[callKey]pendingCall
	renew       *state.Renewals   // when each proxy token is renewed (and backed off)
	budget      *state.CallBudget // background calls that could wait, in the last minute
	deferring   time.Time         // since when session counts wait for the budget (zero: none)
	deferNoted  time.Time         // when the event log last said so
	renewNoted  time.Time         // when the event log last said renewals wait for the budget
	manualRenew map[string]bool   // R pressed: report the renewal's outcome
	manualRef   bool              // r pressed: report the refresh's outcome
	nextRefresh time.Time
}

// newCalls is the call state of a new dashboard: nothing in flight, the
// renewal lead and the call budget of o.
func newCalls(cx *common.Context, o *Options, l *link, scr *screen, rt *runtimes.Pane) *callState {
	return &callState{cx: cx, opts: o, link: l, scr: scr, rt: rt, pending: map[callKey]pendingCall{}, manualRenew: map[string]bool{},
		renew: state.NewRenewals(o.RenewLead), budget: state.NewCallBudget(o.CallBudget, state.ReserveFor(o.RefreshInterval))}
}

// issue registers a call for key and returns its command, or nil when the
// same call is already in flight (and not overdue): refreshes coalesce.
func (m *callState) issue(k callKey, now time.Time) tea.Cmd {
	if p, ok := m.pending[k]; ok {
		if el := now.Sub(p.started); el >= 0 && el < m.opts.CallTimeout+5*time.Second {
			return nil
		}
	}
	m.seq++
	gen := m.seq
	pc := pendingCall{gen: gen, started: now, version: m.cx.Snap.Version()}
	if r := m.cx.Snap.Runtime(k.runtime); r != nil && k.kind == callRenew {
		pc.expire = r.ExpireTime()
	}
	m.pending[k] = pc
	spec := m.link.apiCall(k.kind.String())
	if k.runtime != "" {
		spec.sem = m.link.life.sem
	}
	stateDir := openedStateDir(m.opts)
	return guard(spec, func(ctx context.Context, svc api.Service) tea.Msg {
		res := resultMsg{key: k, gen: gen}
		switch k.kind {
		case callRuntimes:
			res.runtimes, res.err = svc.ListRuntimes(ctx)
		case callSessions:
			res.sessions, res.owned, res.err = listSessionsOwned(ctx, svc, k.runtime, stateDir)
		case callSubscription:
			res.sub, res.err = svc.GetSubscription(ctx)
		case callSpecs:
			res.specs, res.err = svc.ListRuntimeSpecs(ctx)
		case callRenew:
			res.runtime, res.err = svc.GetRuntime(ctx, k.runtime)
		}
		return res
	}, func(err error) tea.Msg { return resultMsg{key: k, gen: gen, err: err} })
}

// markCounted notes that the call in flight for k was recorded in the
// call budget: its reply frees its slot (CallBudget.Answered).
func (m *callState) markCounted(k callKey) {
	if p, ok := m.pending[k]; ok {
		p.counted = true
		m.pending[k] = p
	}
}

// inFlight returns the number of API calls in flight.
func (m *callState) inFlight() int { return len(m.pending) }

// refresh starts list_runtimes (and, when manual, get_subscription). The
// sessions follow when the runtimes arrive. get_subscription and
// list_runtime_specs that have not succeeded yet are retried with every
// refresh, so a tier that failed to load does not stay unknown.
func (m *callState) refresh(now time.Time, manual bool) []tea.Cmd {
	m.nextRefresh = now.Add(m.opts.RefreshInterval)
	var cmds []tea.Cmd
	if !manual && !m.cx.Snap.SubscriptionFresh.Loaded() {
		if c := m.issue(callKey{kind: callSubscription}, now); c != nil {
			cmds = append(cmds, c)
		}
	}
	if !m.cx.Snap.SpecsFresh.Loaded() {
		if c := m.issue(callKey{kind: callSpecs}, now); c != nil {
			cmds = append(cmds, c)
		}
	}
	c := m.issue(callKey{kind: callRuntimes}, now)
	if c == nil {
		if manual {
			m.scr.say(now, common.Say{Text: "refresh already in progress"})
		}
		return cmds
	}
	cmds = append(cmds, c)
	if manual {
		if c := m.issue(callKey{kind: callSubscription}, now); c != nil {
			cmds = append(cmds, c)
		}
		m.scr.say(now, common.Say{Text: "refreshing…", For: api.ToolListRuntimes + " " + ""})
		m.manualRef = true
	}
	return cmds
}

// backoff is the delay after n consecutive failures: the interval doubled
// per failure, capped at MaxBackoff, and at least the server's retry delay.
func (m *callState) backoff(n int, err error) time.Duration {
	d := m.opts.RefreshInterval
	for i := 0; i < n && d < MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, MaxBackoff)
	if ae, ok := err.(*api.Error); ok && ae.RetryDelay > d {
		d = ae.RetryDelay
	}
	return d
}

// onResult folds the answer msg into the snapshot at now; ok is false
// when it was late or superseded and dropped. p is the call it answers.
func (m *callState) onResult(msg resultMsg, now time.Time) (cmd tea.Cmd, p pendingCall, ok bool) {
	p, ok = m.pending[msg.key]
	if !ok || p.gen != msg.gen {
		return nil, p, false // late or superseded answer: drop it
	}
	delete(m.pending, msg.key)
	if p.counted {
		m.budget.Answered(p.started, now)
	}
	m.scr.recordEvent(now, msg.key.kind.String(), msg.key.runtime, now.Sub(p.started), msg.err)
	switch msg.key.kind {
	case callRuntimes:
		return m.onRuntimes(msg, p, now), p, true
	case callSessions:
		if msg.err != nil {
			m.cx.Snap.ApplySessionsError(now, msg.key.runtime, msg.err)
		} else {
			m.cx.Snap.ApplySessions(now, msg.key.runtime, msg.sessions)
		}
	case callSubscription:
		if msg.err != nil {
			m.cx.Snap.ApplyError(state.ListSubscription, now, msg.err)
		} else {
			m.cx.Snap.ApplySubscription(now, msg.sub)
		}
	case callSpecs:
		if msg.err != nil {
			m.cx.Snap.ApplyError(state.ListSpecs, now, msg.err)
		} else {
			m.cx.Snap.ApplySpecs(now, msg.specs)
		}
	case callRenew:
		m.onRenewed(msg, p, now)
	}
	return nil, p, true
}

func (m *callState) onRuntimes(msg resultMsg, p pendingCall, now time.Time) tea.Cmd {
	manual := m.manualRef
	m.manualRef = false
	if msg.err != nil {
		m.cx.Snap.ApplyError(state.ListRuntimes, now, msg.err)
		m.nextRefresh = now.Add(m.backoff(m.cx.Snap.RuntimesFresh.Failures, msg.err))
		if headline, fix := auth.Explain(msg.err, nil); fix != "" && (manual || m.cx.Snap.RuntimesFresh.Failures == 1) {
			// A credentials failure gets the CLI's words and fix on the
			// status line, which the header's cut reason has no room for:
			// the fix's first step there (on two lines if need be), the
			// whole fix in the event log, which the status line's hint
			// names.
			if strings.Contains(fix, auth.ColabScope) { // the fix's command names the scope: said once
				headline = strings.Replace(headline, " ("+auth.ColabScope+")", "", 1)
			}
			first, _, _ := strings.Cut(fix, "; ")
			m.scr.logEvent(Event{At: now, Tool: "credentials", Note: api.OneLine(headline+"; fix: "+fix, 0)})
			m.scr.say(now, common.Say{Text: termtext.Line(api.OneLine(headline+"; fix: "+first, 0)), Err: true})
		} else if manual { // "refreshing…" must not outlive the failure
			m.scr.say(now, common.Say{Text: "refresh failed: " + common.ErrLine(msg.err), Err: true})
		}
		return nil
	}
	if manual && m.scr.statusFor == api.ToolListRuntimes+" " { // a newer message stays
		m.scr.say(now, common.Say{Text: "✓ refreshed"})
	}
	m.cx.Snap.ApplyRuntimesSince(now, p.version, msg.runtimes)
	// Never more refreshes in a window than the budget's reserve counts.
	m.nextRefresh = now.Add(m.opts.RefreshInterval)
	if at := m.budget.Refreshed(p.started); at.After(m.nextRefresh) {
		m.nextRefresh = at
	}
	for r := range m.cx.Snap.All() {
		if r.Gone() {
			// Answers still on their way for it are dropped.
			delete(m.pending, callKey{kind: callSessions, runtime: r.Name})
			delete(m.pending, callKey{kind: callRenew, runtime: r.Name})
			m.renew.Forget(r.Name)
		}
	}
	if manual { // r: the user asked for everything, budget or not
		var cmds []tea.Cmd
		for r := range m.cx.Snap.All() {
			if !r.Gone() {
				if c := m.issue(callKey{kind: callSessions, runtime: r.Name}, now); c != nil {
					cmds = append(cmds, c)
				}
			}
		}
		return tea.Batch(cmds...)
	}
	return tea.Batch(m.refreshSessions(now, true)...)
}

// budgetNoteEvery is how often the event log repeats that session counts
// or renewals wait for the call budget while they do (the log keeps 200
// entries: about eight idle minutes).
const budgetNoteEvery = 5 * time.Minute

// refreshSessions starts list_sessions for the runtimes state.PlanSessions
// picks at now (withList: right after list_runtimes), leaving room in the
// call budget for the renewals due within the minute. While counts wait
// for the budget, the event log says so every budgetNoteEvery, and once
// more when they no longer do.
func (m *callState) refreshSessions(now time.Time, withList bool) []tea.Cmd {
	inFlight := func(name string) bool {
		_, ok := m.pending[callKey{kind: callSessions, runtime: name}]
		return ok
	}
	keep := 0
	if !m.opts.NoAutoRenew {
		soon := now.Add(time.Minute)
		for r := range m.cx.Snap.All() {
			if at, ok := m.renew.Due(r.Name, r.ExpireTime(), now); ok && !r.Gone() && at.Before(soon) {
				keep++
			}
		}
	}
	plan := m.cx.Snap.PlanSessions(now, m.rt.Selected(), withList, m.opts.RefreshInterval, m.budget, keep, inFlight)
	cmds := make([]tea.Cmd, 0, len(plan.Refresh))
	for i, name := range plan.Refresh {
		k := callKey{kind: callSessions, runtime: name}
		if c := m.issue(k, now); c != nil {
			if i >= len(plan.Refresh)-plan.Counted {
				m.markCounted(k)
			}
			cmds = append(cmds, c)
		}
	}
	switch {
	case plan.Deferred > 0 && (m.deferring.IsZero() || now.Sub(m.deferNoted) >= budgetNoteEvery):
		if m.deferring.IsZero() {
			m.deferring = now
		}
		m.deferNoted = now
		note := fmt.Sprintf("%d session counts wait for the call budget (%d calls a minute); refreshed oldest first", plan.Deferred, m.budget.PerMinute())
		if plan.OldestDeferred > 0 {
			note += ", oldest " + state.FormatAgo(plan.OldestDeferred)
		}
		m.scr.noteEvent(now, "list_sessions", "", note)
	case plan.Deferred == 0 && !m.deferring.IsZero() && withList:
		m.scr.noteEvent(now, "list_sessions", "", "every session count is fresh again (they waited for the call budget for "+state.FormatDuration(now.Sub(m.deferring))+")")
		m.deferring = time.Time{}
	}
	return cmds
}

// noteDeferredRenewals says in the event log, every budgetNoteEvery while
// it lasts, that token renewals wait for the call budget.
func (m *callState) noteDeferredRenewals(now time.Time, deferred int) {
	if deferred == 0 || (!m.renewNoted.IsZero() && now.Sub(m.renewNoted) < budgetNoteEvery) {
		return
	}
	m.renewNoted = now
	m.scr.noteEvent(now, "get_runtime", "", fmt.Sprintf("%d token renewals wait for the call budget (%d calls a minute); tokens go stale meanwhile, the soonest to expire are renewed first", deferred, m.budget.PerMinute()))
}

func (m *callState) onRenewed(msg resultMsg, p pendingCall, now time.Time) {
	id := api.LastSegment(msg.key.runtime)
	manual := m.manualRenew[msg.key.runtime]
	delete(m.manualRenew, msg.key.runtime)
	m.scr.endProgress(api.ToolGetRuntime, msg.key.runtime)
	if manual {
		if msg.err != nil {
			m.scr.say(now, common.Say{Text: "renew " + id + " failed: " + common.ErrLine(msg.err), Err: true})
		} else if _, rem := state.TokenAt(msg.runtime.ExpireTime(), now, 0); !msg.runtime.ExpireTime().IsZero() {
			m.scr.say(now, common.Say{Text: "✓ renewed " + id + " (expires in " + state.FormatCountdown(rem) + ")"})
		} else {
			m.scr.say(now, common.Say{Text: "✓ renewed " + id + " (expiry unknown)"})
		}
	}
	if msg.err == nil && msg.runtime.Name != msg.key.runtime {
		return // not an answer about this runtime
	}
	// Against the token it was sent to replace: a list_runtimes answered
	// meanwhile may already hold the renewed token.
	retry, failed, notExtended := m.renew.Done(msg.key.runtime, p.started, p.expire, msg.runtime.ExpireTime(), msg.err)
	if msg.err != nil {
		m.cx.Snap.ApplyRenewError(now, msg.key.runtime, msg.err)
	} else {
		m.cx.Snap.UpdateRuntime(now, msg.runtime)
		if !failed {
			m.learnTokenLife(msg.runtime, p.started)
		}
	}
	if notExtended != nil {
		// The call succeeded but the token is as old as before: a failed
		// renewal, backed off (not one get_runtime a second, forever).
		m.cx.Snap.ApplyRenewError(now, msg.key.runtime, notExtended)
		m.scr.noteEvent(now, "get_runtime", msg.key.runtime, notExtended.Error())
	} else if failed {
		m.scr.noteEvent(now, "get_runtime", msg.key.runtime, "token stale: renewal backed off, next try in "+state.FormatCountdown(retry))
	}
}

// learnTokenLife records the lifetime of rt's proxy token as seen from a
// call sent at sent that issued it (get_runtime, create_runtime): it
// bounds the renewal lead and the expiring threshold of the runtime.
func (m *callState) learnTokenLife(rt api.Runtime, sent time.Time) {
	if exp := rt.ExpireTime(); !exp.IsZero() && exp.After(sent) {
		m.renew.Learn(rt.Name, exp.Sub(sent))
	}
}

// renewDue starts the renewals that are due: proxy tokens within the lead
// time of expireTime, or expired (an expired token does not mean the
// runtime is gone); a failed renewal is
// backed off (state.Renewals). The selected runtime's at once, the others
// within the call budget (less a call kept for the selected runtime's when
// it comes within the minute), soonest expiry first (state.PlanRenewals). One
// get_runtime per runtime in flight.
func (m *callState) renewDue(now time.Time) []tea.Cmd {
	if m.opts.NoAutoRenew {
		return nil
	}
	var due []*state.Runtime
	for r := range m.cx.Snap.All() {
		if r.Gone() || m.cx.Activity.Renewals.InFlight(r.Name) {
			continue
		}
		if at, ok := m.renew.Due(r.Name, r.ExpireTime(), now); ok && !now.Before(at) {
			due = append(due, r)
		}
	}
	if len(due) == 0 {
		return nil
	}
	renew, deferred := state.PlanRenewals(now, due, m.rt.Selected(), m.budget, m.selectedRenewalSoon(now))
	var cmds []tea.Cmd
	for _, name := range renew {
		k := callKey{kind: callRenew, runtime: name}
		if c := m.issue(k, now); c != nil {
			m.markCounted(k)
			m.renew.Started(name, now)
			cmds = append(cmds, c)
		}
	}
	m.noteDeferredRenewals(now, deferred)
	return cmds
}

// selectedRenewalSoon is the room to keep in the call budget for the
// selected runtime's renewal (made whatever the budget, and counted in
// it): 1 while it is due within the minute but not yet, and not in
// flight, else 0. Keeping it, the other runtimes' calls never push a
// minute past the budget when it comes.
func (m *callState) selectedRenewalSoon(now time.Time) int {
	r := m.cx.Snap.Runtime(m.rt.Selected())
	if r == nil || r.Gone() || m.cx.Activity.Renewals.InFlight(r.Name) {
		return 0
	}
	if at, ok := m.renew.Due(r.Name, r.ExpireTime(), now); ok && now.Before(at) && at.Before(now.Add(time.Minute)) {
		return 1
	}
	return 0
}

// renewForPoll renews runtime name's token because the monitor's poll was
// refused it (the proxy's 404), unless the call budget is spent for a
// runtime that is not selected (the error says so). A nil command with a
// nil error: a renewal of it is in flight already.
func (m *callState) renewForPoll(name string, now time.Time) (tea.Cmd, error) {
	if name != m.rt.Selected() && m.budget.Room(now) <= 0 {
		return nil, errors.New("the renewal waits for the call budget")
	}
	c := m.issue(callKey{kind: callRenew, runtime: name}, now)
	if c == nil {
		return nil, nil
	}
	if name != m.rt.Selected() {
		m.budget.Record(now, 1)
		m.markCounted(callKey{kind: callRenew, runtime: name})
	}
	m.renew.Started(name, now)
	return c, nil
}

// renewNow is R: the proxy token of sel renewed now, its outcome said in
// the status line (onRenewed); or why not, when one is in flight.
func (m *callState) renewNow(sel *state.Runtime, now time.Time) tea.Cmd {
	if c := m.issue(callKey{kind: callRenew, runtime: sel.Name}, now); c != nil {
		m.renew.Started(sel.Name, now)
		m.manualRenew[sel.Name] = true
		m.scr.say(now, common.Say{Text: "renewing the proxy token of " + sel.ID() + "…", For: api.ToolGetRuntime + " " + sel.Name})
		return c
	}
	m.scr.say(now, common.Say{Text: "a renewal of " + sel.ID() + " is already in flight", About: sel.Name})
	return nil
}

// forget drops the answers still on their way about runtime name (it is
// gone): its sessions and its renewal.
func (m *callState) forget(name string) {
	delete(m.pending, callKey{kind: callSessions, runtime: name})
	delete(m.pending, callKey{kind: callRenew, runtime: name})
}

// reset forgets every call in flight and the renewal schedule (a profile
// switch: they were the old account's); their answers are dropped.
func (m *callState) reset(now time.Time) {
	m.pending = map[callKey]pendingCall{}
	m.renew.Reset()
	m.deferring = time.Time{}
	m.manualRenew, m.manualRef = map[string]bool{}, false
	m.nextRefresh = now.Add(m.opts.RefreshInterval)
}
