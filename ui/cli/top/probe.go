package top

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/colabdash/colabdash/api"
	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/termtext"
)

// parallel is how many runtimes are probed at once (each runtime's two
// requests go one after the other, never two at once for one runtime, and
// a round ends when every read has: the next round never overlaps it).
const parallel = 8

// prober probes every runtime round after round (--watch) through
// ui/ops' Prober, which keeps what it learnt (the last figures of a
// runtime whose poll failed, stale after monitor.StaleAfter misses; the
// time a kernel was first seen starting; which runtimes do not offer the
// resources route; the connectionInfo in use) and follows the monitor's
// one renewal rule.
type prober struct {
	ops *ops.Prober

	mu sync.Mutex
	// watch is what --watch keeps of each runtime between rounds: when it
	// was last read, and its backoff after failures (watch.go); kept only
	// when watching (a single round has no next one to back off).
	watch    map[string]*watchState
	watching bool
	// firstListed is when this top first listed each runtime (the start
	// of the first round that had it): a runtime never used is quiet
	// since then, as in a dashboard started at the same time (Colab's
	// listing gives no creation time).
	firstListed map[string]time.Time
	// gone are the runtimes found deleted or reclaimed (get_runtime's
	// NOT_FOUND, or a listing without them): a runtime never comes back
	// under its id, so they are not read again.
	gone map[string]bool
}

func newProber(conn *kit.Connection, red *api.Redactor) *prober {
	explain := func(err error) string { return renewalError(err, conn).Error() }
	return &prober{ops: ops.NewProber(conn.Svc, apimon.New(apimon.Options{Redactor: red}), explain),
		watch: map[string]*watchState{}, gone: map[string]bool{}, firstListed: map[string]time.Time{}}
}

// round probes the runtimes of rts that pick chooses at now() (all of
// them with limit ≤ 0 and none backing off after a failure; see pick),
// each at most once and parallel at a time, and returns the rows of every
// runtime of rts at now, in the order of rts: the ones not read this
// round show what the last read found. When watching, each read's outcome backs its
// runtime off or resets it (readDone). A runtime is first seen at the
// start of the first round that has it (firstListed).
func (p *prober) round(ctx context.Context, rts []api.Runtime, now func() time.Time, limit int) []row {
	in := make(map[string]bool, len(rts))
	for _, rt := range rts {
		in[rt.Name] = true
	}
	keep := func(name string) bool { return in[name] }
	p.ops.Retain(keep)
	p.mu.Lock()
	for name := range p.watch {
		if !keep(name) {
			delete(p.watch, name)
		}
	}
	for name := range p.firstListed {
		if !keep(name) {
			delete(p.firstListed, name)
		}
	}
	begin := now()
	for _, rt := range rts {
		if _, ok := p.firstListed[rt.Name]; !ok {
			p.firstListed[rt.Name] = begin
		}
	}
	read := p.pick(rts, begin, limit)
	p.mu.Unlock()
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for _, rt := range read {
		wg.Add(1)
		sem <- struct{}{}
		go func(rt api.Runtime) {
			defer func() { <-sem; wg.Done() }()
			start := now()
			p.ops.Probe(ctx, rt, now)
			p.ops.ProbeJobs(ctx, rt.Name, now) // the jobs signal (at most every ops.ProbeJobsEvery)
			if p.ops.ProbeError(rt.Name) == goneNote {
				p.markGone(rt.Name)
			}
			if ctx.Err() != nil || !p.watching {
				return
			}
			p.mu.Lock()
			end := now()
			p.readDone(rt.Name, start, end, newRow(rt, p.ops.Runtime(rt.Name), p.ops.ProbeError(rt.Name), end).failed())
			p.mu.Unlock()
		}(rt)
	}
	wg.Wait()
	at := now()
	rows := make([]row, 0, len(rts))
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, rt := range rts {
		if p.gone[rt.Name] {
			rows = append(rows, row{rt: rt, at: at, gone: true})
			continue
		}
		p.ops.Seen(rt.Name, p.firstListed[rt.Name])
		r := newRow(rt, p.ops.Runtime(rt.Name), p.ops.ProbeError(rt.Name), at)
		r.oneRead = !p.watching
		r.retryAt = p.retryAt(rt.Name, at)
		rows = append(rows, r)
	}
	return rows
}

// markGone records that runtime name is gone: it is not read again.
func (p *prober) markGone(name string) {
	p.mu.Lock()
	p.gone[name] = true
	p.mu.Unlock()
}

// markUnlisted marks gone every runtime of rts that listed (a successful
// list_runtimes) no longer has.
func (p *prober) markUnlisted(rts, listed []api.Runtime) {
	for _, rt := range rts {
		if !slices.ContainsFunc(listed, func(l api.Runtime) bool { return l.Name == rt.Name }) {
			p.markGone(rt.Name)
		}
	}
}

// goneNote is a probe's error when get_runtime answered NOT_FOUND while
// renewing the runtime's proxy token: the runtime was deleted or
// reclaimed (renewalError words it; round marks the runtime gone by it).
const goneNote = "runtime gone (get_runtime: not found)"

// renewalError is a get_runtime failure as a row's note: goneNote for
// NOT_FOUND, else the classified one-line error.
func renewalError(err error, conn *kit.Connection) error {
	if ae := kit.AsAPIError(err); ae != nil && ae.Code == api.NotFound {
		return errors.New(goneNote)
	}
	return fmt.Errorf("get_runtime: %s", kit.Classify(err, conn.Creds).Msg)
}

// targets resolves the RUNTIME arguments among the listed runtimes (all
// of them, by id, when there are none). Errors are *kit.ExitError (exit
// code 2 for an unknown runtime, as every verb).
func targets(rts []api.Runtime, args []string) ([]api.Runtime, error) {
	if len(args) == 0 {
		out := append([]api.Runtime(nil), rts...)
		sort.Slice(out, func(i, j int) bool { return out[i].ID() < out[j].ID() })
		return out, nil
	}
	var out []api.Runtime
	seen := map[string]bool{}
	for _, a := range args {
		rt, err := kit.ResolveRuntime(rts, a)
		if err != nil {
			return nil, err
		}
		if !seen[rt.Name] {
			seen[rt.Name] = true
			out = append(out, rt)
		}
	}
	return out, nil
}

// refresh is rts with each runtime's listing replaced by the one in
// listed (its connectionInfo may be newer); runtimes no longer listed
// stay, and their probe says they are gone.
func refresh(rts, listed []api.Runtime) []api.Runtime {
	by := make(map[string]api.Runtime, len(listed))
	for _, rt := range listed {
		by[rt.Name] = rt
	}
	out := make([]api.Runtime, len(rts))
	for i, rt := range rts {
		if l, ok := by[rt.Name]; ok {
			rt = l
		}
		out[i] = rt
	}
	return out
}

// cutID is a runtime id ready for the terminal.
func cutID(rt api.Runtime) string { return termtext.Cut(rt.ID(), 63) }
