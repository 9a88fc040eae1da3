package top

import (
	"slices"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state/monitor"
)

// What --watch asks of the runtimes' proxies after its first round
// (the same cost rules as the dashboard's monitor): at most
// monitor.MaxPerMinute requests a minute whatever the number of runtimes,
// a runtime whose read failed backed off (monitor.Backoff: 30 s doubling
// to 5 min), never two requests at once for one runtime.

// RoundLimit is how many runtimes a --watch round after the first reads
// at most at interval: monitor.MaxPerMinute's share of the interval,
// readRequests a runtime, at least one: 2 at the default 5 s, 15 at
// 30 s. The first round reads every runtime, as top without --watch does.
func RoundLimit(interval time.Duration) int {
	n := int(int64(monitor.MaxPerMinute)*int64(interval)/int64(time.Minute)) / readRequests
	return max(n, 1)
}

// readRequests is what one runtime's read costs: its resources, kernels
// and terminals, and the listing of its jobs directory (at most every
// ops.ProbeJobsEvery; two more small reads per job found; one more
// request after a token renewal).
const readRequests = 4

// watchState is what --watch keeps of one runtime between rounds.
type watchState struct {
	lastRead time.Time // when its last read started (zero: never)
	failures int       // failed reads in a row
	retryAt  time.Time // after a failure: not read before
}

// pick returns the runtimes of rts to read at now: not those found gone,
// nor those backing off after a failure, and at most limit (≤ 0: no limit), those read longest
// ago first (never read before all), then in the order of rts. Callers
// hold p.mu.
func (p *prober) pick(rts []api.Runtime, now time.Time, limit int) []api.Runtime {
	out := make([]api.Runtime, 0, len(rts))
	for _, rt := range rts {
		if st := p.watch[rt.Name]; p.gone[rt.Name] || st != nil && now.Before(st.retryAt) {
			continue
		}
		out = append(out, rt)
	}
	if limit <= 0 || len(out) <= limit {
		return out
	}
	last := func(rt api.Runtime) time.Time {
		if st := p.watch[rt.Name]; st != nil {
			return st.lastRead
		}
		return time.Time{}
	}
	slices.SortStableFunc(out, func(a, b api.Runtime) int { return last(a).Compare(last(b)) })
	return out[:limit]
}

// readDone records the end of runtime name's read that started at start:
// failed backs it off (monitor.Backoff of the failures in a row, from
// now), a success resets it. Callers hold p.mu.
func (p *prober) readDone(name string, start, now time.Time, failed bool) {
	st := p.watch[name]
	if st == nil {
		st = &watchState{}
		p.watch[name] = st
	}
	st.lastRead = start
	if !failed {
		st.failures, st.retryAt = 0, time.Time{}
		return
	}
	st.failures++
	st.retryAt = now.Add(monitor.Backoff(st.failures))
}

// retryAt is when runtime name is read again after failures, zero when
// it is not backing off at now. Callers hold p.mu.
func (p *prober) retryAt(name string, now time.Time) time.Time {
	if st := p.watch[name]; st != nil && now.Before(st.retryAt) {
		return st.retryAt
	}
	return time.Time{}
}
