// Package poll runs the dashboard's monitor polls: on the
// root's 1 Hz tick it asks the Scheduler (state/monitor) which runtimes
// are due — the selected one every 5 s, the others on screen every 30 s,
// none off screen, never two polls at once for one runtime, backing off
// on failure, at most 120 requests a minute — and returns a tea.Cmd per
// poll that reads the runtime's resources and kernels through its proxy
// (api/monitor, with the live proxy token and nothing else). Each answer
// is a ResultMsg naming its runtime; the root hands it back to Fold,
// which records it in the Store the panes read (common.Monitor).
//
// A proxy 404 (the token refused) is not recorded: Fold names the
// runtime, the root renews its token through its one renewal path
// (get_runtime) and calls Renewed; the next poll the Scheduler plans is
// the retry, with the fresh token (so retries count against the request
// bound). A refusal within RenewEvery of that renewal is a failure
// (backed off), never "not offered": a runtime's token is renewed for the
// monitor at most once every RenewEvery, so it never becomes a renewal
// loop. "Not offered by this runtime" (re-checked every 10 minutes) is
// only a route the server answers as absent: Jupyter's own 404, or the
// proxy's 404 for the resources with a token it takes for the kernels.
//
// A Poller is owned by the root's Update: it does no I/O itself (its
// commands do) and is not safe for concurrent use. It never deletes a
// runtime nor keeps one alive.
package poll

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter/jobs"
	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/state/monitor"
	"github.com/colabdash/colabdash/ui/ops"
)

// RenewEvery is the shortest time between two renewals of one runtime's
// proxy token asked for by the monitor (after a proxy 404): the monitor's
// one renewal rule (state/monitor's Renewals), which `top` follows too.
const RenewEvery = monitor.RenewEvery

// waitLimit is how long a poll waits for the renewal it asked for before
// it ends failed (the renewal's answer was lost or dropped).
const waitLimit = 2 * time.Minute

// ResultMsg is the answer to one poll of runtime Runtime: what Poll asked
// for and what came back (Resources valid when ResErr is nil and
// Poll.Resources is set; Kernels likewise). Gen is the Poller's
// generation when it was sent: answers of an earlier one are dropped.
// Token is the proxy token the poll was sent with (never shown).
type ResultMsg struct {
	Runtime   string
	Gen       uint64
	Poll      monitor.Poll
	Token     string
	Resources apimon.Resources
	ResErr    error
	Kernels   []apimon.Kernel
	KerErr    error
	// Terminals and TermErr: the terminal list, when Poll.Terminals (a
	// server without terminals: an empty list).
	Terminals []apimon.Terminal
	TermErr   error
}

// waiting is a poll whose token the proxy refused, waiting for its
// renewal since since.
type waiting struct {
	poll  monitor.Poll
	since time.Time
}

// Poller plans, starts and records the monitor's polls. Build it with
// New.
type Poller struct {
	client   *apimon.Client
	sched    *monitor.Scheduler
	store    *monitor.Store
	gen      uint64
	waiting  map[string]waiting
	renewals *monitor.Renewals // when the monitor last asked to renew each runtime's token
	sent     int               // requests started, for tests and benchmarks
}

// New returns a Poller that reads through client.
func New(client *apimon.Client) *Poller {
	p := &Poller{client: client}
	p.Reset()
	return p
}

// Reset forgets every runtime (another account: a profile switch);
// answers of the polls in flight are dropped.
func (p *Poller) Reset() {
	p.gen++
	p.sched, p.store = monitor.NewScheduler(), monitor.NewStore()
	p.waiting, p.renewals = map[string]waiting{}, monitor.NewRenewals()
}

// Runtime returns what is known of runtime name (nil: nothing yet); it
// makes a Poller a common.Monitor.
func (p *Poller) Runtime(name string) *monitor.Runtime { return p.store.Get(name) }

// Store is the Poller's Store, for tests and benchmarks that fill it;
// the dashboard reads it through Runtime only.
func (p *Poller) Store() *monitor.Store { return p.store }

// Requests returns how many requests the Poller's commands were started
// for (two per poll at most; a retry counts again).
func (p *Poller) Requests() int { return p.sent }

// Due starts the polls due at now: selected (every 5 s; "" for none)
// and the other runtimes on screen (every 30 s). Every name given must
// have a connectionInfo URL: info returns it. The commands run under ctx
// (the dashboard's life: quitting cancels them).
func (p *Poller) Due(ctx context.Context, now time.Time, selected string, onScreen []string,
	info func(name string) (api.ConnectionInfo, bool)) []tea.Cmd {
	var cmds []tea.Cmd
	for name, w := range p.waiting {
		if now.Sub(w.since) >= waitLimit {
			p.Renewed(name, now, errors.New("no renewal came"))
		}
	}
	for _, poll := range p.sched.Plan(now, selected, onScreen) {
		ci, ok := info(poll.Runtime)
		if !ok {
			p.sched.Done(poll.Runtime, now, monitor.OutcomeSkipped, monitor.OutcomeSkipped)
			continue
		}
		cmds = append(cmds, p.cmd(ctx, poll, ci))
	}
	return cmds
}

// Retain forgets every runtime for which keep is false (gone, or no
// longer listed).
func (p *Poller) Retain(keep func(name string) bool) {
	p.store.Retain(keep)
	p.sched.Retain(keep)
	for name := range p.waiting {
		if !keep(name) {
			delete(p.waiting, name)
		}
	}
	p.renewals.Retain(keep)
}

// cmd is the command of one poll of ci's runtime: its resources (when
// asked), then its kernels, one after the other; a refused token ends it
// early (the next poll asks both again).
func (p *Poller) cmd(ctx context.Context, poll monitor.Poll, ci api.ConnectionInfo) tea.Cmd {
	client, gen := p.client, p.gen
	p.sent += poll.Requests()
	return func() (msg tea.Msg) {
		res := ResultMsg{Runtime: poll.Runtime, Gen: gen, Poll: poll, Token: ci.Token}
		defer func() {
			if r := recover(); r != nil {
				text := fmt.Sprintf("internal error: %v", r)
				res.ResErr = &apimon.Error{Op: "resources", Kind: apimon.KindUnavailable, Message: text}
				res.KerErr = &apimon.Error{Op: "kernels", Kind: apimon.KindUnavailable, Message: text}
				msg = res
			}
		}()
		r := ops.ReadPoll(ctx, client, ci, poll)
		res.Resources, res.ResErr, res.Kernels, res.KerErr = r.Resources, r.ResErr, r.Kernels, r.KerErr
		res.Terminals, res.TermErr = r.Terminals, r.TermErr
		return res
	}
}

// Fold records msg at now. A resources route the proxy answers with
// its bare 404 while it takes the same token for the kernels is "not
// offered" (ops.Absent). A poll whose token the proxy refused (the
// kernels refused it, or the resources did and the kernels did not come)
// is not recorded: when info, the runtime's connectionInfo now, holds
// another token (renewed while the poll ran), the poll just ends and the
// next one uses it; otherwise Fold returns the runtime: the root renews
// its token and calls Renewed. A refusal within RenewEvery of such a
// renewal is recorded as a failure (backed off; ops.Persisting), never as
// "not offered", and renews nothing. Retries are polls the Scheduler
// plans, so they count against its request bound.
func (p *Poller) Fold(msg ResultMsg, now time.Time, info func(name string) (api.ConnectionInfo, bool)) (renew string) {
	if msg.Gen != p.gen {
		return ""
	}
	name := msg.Runtime
	if msg.Poll.Kernels {
		msg.ResErr = ops.Absent(msg.ResErr, msg.KerErr)
	}
	refused := errors.Is(msg.KerErr, apimon.ErrTokenRefused) ||
		errors.Is(msg.ResErr, apimon.ErrTokenRefused) && (!msg.Poll.Kernels || msg.KerErr != nil)
	if refused {
		if ci, ok := info(name); ok && ci.Token != msg.Token {
			p.sched.Done(name, now, monitor.OutcomeSkipped, monitor.OutcomeSkipped)
			return ""
		}
		if p.renewals.Due(name, now) {
			p.renewals.Renewed(name, now)
			p.waiting[name] = waiting{poll: msg.Poll, since: now}
			return name
		}
		msg.ResErr, msg.KerErr = ops.Persisting(msg.ResErr), ops.Persisting(msg.KerErr)
	}
	p.record(name, now, msg)
	return ""
}

// record stores msg's figures and kernels and ends the poll in the
// Scheduler.
func (p *Poller) record(name string, now time.Time, msg ResultMsg) {
	res, ker := monitor.OutcomeSkipped, monitor.OutcomeSkipped
	if msg.Poll.Resources {
		res = p.store.RecordResources(name, now, msg.Resources, msg.ResErr)
	}
	if msg.Poll.Kernels {
		ker = p.store.RecordKernels(name, now, msg.Kernels, msg.KerErr)
	}
	if msg.Poll.Terminals && (msg.Terminals != nil || msg.TermErr != nil) {
		p.store.RecordTerminals(name, now, msg.Terminals, msg.TermErr)
	}
	p.sched.Done(name, now, res, ker)
}

// RecordJobs feeds runtime name's jobs as listed at now (recs, or err
// when the listing failed: the jobs are then unknown) into its verdict:
// how many run and when the newest of the others ended (ops.JobSignal).
func (p *Poller) RecordJobs(name string, now time.Time, recs []jobs.Record, err error) {
	running, lastEnd := ops.JobSignal(recs, now)
	p.store.RecordJobs(name, running, lastEnd, err == nil)
}

// Renewed is the end at now of the renewal of runtime name's proxy
// token (err its failure) that Fold asked for. After a success the
// waiting poll ends without a record: the next one, when the Scheduler
// plans it, uses the fresh token. After a failure it ends failed (backed
// off).
func (p *Poller) Renewed(name string, now time.Time, err error) {
	w, ok := p.waiting[name]
	if !ok {
		return
	}
	delete(p.waiting, name)
	if err == nil {
		p.sched.Done(name, now, monitor.OutcomeSkipped, monitor.OutcomeSkipped)
		return
	}
	text := api.OneLine("the runtime proxy refused the token and its renewal failed: "+err.Error(), 200)
	p.record(name, now, ResultMsg{Runtime: name, Poll: w.poll,
		ResErr: &apimon.Error{Op: "resources", Kind: apimon.KindUnavailable, Status: 404, Message: text},
		KerErr: &apimon.Error{Op: "kernels", Kind: apimon.KindUnavailable, Status: 404, Message: text}})
}
