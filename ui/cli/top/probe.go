package top

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/colabdash/colabdash/api"
	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/state/monitor"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/termtext"
)

// parallel is how many runtimes are probed at once (each runtime's two
// requests go one after the other, never two at once for one runtime, and
// a round ends when every read has: the next round never overlaps it).
const parallel = 8

// prober reads every runtime's resources and kernels through its proxy,
// round after round (--watch), and keeps what it learnt in a
// state/monitor Store: the last figures of a runtime whose poll failed
// (stale after monitor.StaleAfter misses), the time a kernel was first
// seen starting, and which runtimes do not offer the resources route.
type prober struct {
	conn   *kit.Connection
	client *apimon.Client
	store  *monitor.Store

	mu sync.Mutex
	// infos are the connectionInfos in use, renewed ones included (a
	// list_runtimes after a renewal may still carry the older token).
	infos map[string]api.ConnectionInfo
	// notOfferedAt is when a runtime's resources were last found not
	// offered: they are asked again only after monitor.NotOfferedRecheck,
	// so a 404 that persists never becomes a renewal every round.
	notOfferedAt map[string]time.Time
	// probeErr is why a runtime could not be probed at all this round
	// (no connectionInfo, the renewal failed), by runtime name.
	probeErr map[string]string
	// watch is what --watch keeps of each runtime between rounds: when it
	// was last read, and its backoff after failures (watch.go); kept only
	// when watching (a single round has no next one to back off).
	watch    map[string]*watchState
	watching bool
}

func newProber(conn *kit.Connection, red *api.Redactor) *prober {
	return &prober{conn: conn, client: apimon.New(apimon.Options{Redactor: red}), store: monitor.NewStore(),
		infos: map[string]api.ConnectionInfo{}, notOfferedAt: map[string]time.Time{}, probeErr: map[string]string{},
		watch: map[string]*watchState{}}
}

// round probes the runtimes of rts that pick chooses at now() (all of
// them with limit ≤ 0 and none backing off after a failure; see pick),
// each at most once and parallel at a time, and returns the rows of every
// runtime of rts at now, in the order of rts: the ones not read this
// round show what the last read found. When watching, each read's outcome backs its
// runtime off or resets it (readDone).
func (p *prober) round(ctx context.Context, rts []api.Runtime, now func() time.Time, limit int) []row {
	in := make(map[string]bool, len(rts))
	for _, rt := range rts {
		in[rt.Name] = true
	}
	keep := func(name string) bool { return in[name] }
	p.store.Retain(keep)
	p.mu.Lock()
	for name := range p.watch {
		if !keep(name) {
			delete(p.watch, name)
		}
	}
	read := p.pick(rts, now(), limit)
	p.mu.Unlock()
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for _, rt := range read {
		wg.Add(1)
		sem <- struct{}{}
		go func(rt api.Runtime) {
			defer func() { <-sem; wg.Done() }()
			start := now()
			p.probe(ctx, rt, now)
			if ctx.Err() != nil || !p.watching {
				return
			}
			p.mu.Lock()
			end := now()
			p.readDone(rt.Name, start, end, newRow(rt, p.store.Get(rt.Name), p.probeErr[rt.Name], end).failed())
			p.mu.Unlock()
		}(rt)
	}
	wg.Wait()
	at := now()
	rows := make([]row, 0, len(rts))
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, rt := range rts {
		r := newRow(rt, p.store.Get(rt.Name), p.probeErr[rt.Name], at)
		r.retryAt = p.retryAt(rt.Name, at)
		rows = append(rows, r)
	}
	return rows
}

// probe polls runtime rt once: its resources (unless found not offered
// within monitor.NotOfferedRecheck), then its kernels. A proxy 404 renews
// the proxy token once through get_runtime and retries once
// (apimon.WithRenewal); the kernels then use the fresh token, and do not
// renew again.
func (p *prober) probe(ctx context.Context, rt api.Runtime, now func() time.Time) {
	name := rt.Name
	ci, err := p.info(ctx, rt)
	if err != nil {
		p.setProbeErr(name, err.Error())
		return
	}
	renewed := false
	renew := func(ctx context.Context) (api.ConnectionInfo, error) {
		renewed = true
		got, err := p.conn.Svc.GetRuntime(ctx, name)
		if err != nil {
			return api.ConnectionInfo{}, renewalError(err, p.conn)
		}
		if got.ConnectionInfo == nil || got.ConnectionInfo.URL == "" {
			return api.ConnectionInfo{}, errors.New("get_runtime returned no connectionInfo")
		}
		return *got.ConnectionInfo, nil
	}
	p.mu.Lock()
	skipResources := !p.notOfferedAt[name].IsZero() && now().Sub(p.notOfferedAt[name]) < monitor.NotOfferedRecheck
	p.mu.Unlock()
	if !skipResources {
		res, used, err := apimon.WithRenewal(ctx, ci, renew, p.client.Resources)
		if ctx.Err() != nil {
			return
		}
		if renewed && used.Token != ci.Token {
			ci = used
			p.setInfo(name, ci)
		}
		var me *apimon.Error
		if err != nil && !errors.As(err, &me) { // the renewal failed: the runtime is gone, or the API
			p.setProbeErr(name, err.Error())
			return
		}
		p.mu.Lock()
		if errors.Is(err, apimon.ErrNotOffered) {
			p.notOfferedAt[name] = now()
		} else {
			delete(p.notOfferedAt, name)
		}
		p.store.RecordResources(name, now(), res, err)
		p.mu.Unlock()
	}
	if renewed {
		renew = nil // one renewal per runtime and round
	}
	ks, used, err := apimon.WithRenewal(ctx, ci, renew, p.client.Kernels)
	if ctx.Err() != nil {
		return
	}
	if used.Token != ci.Token {
		p.setInfo(name, used)
	}
	var me *apimon.Error
	if err != nil && !errors.As(err, &me) {
		p.setProbeErr(name, err.Error())
		return
	}
	p.mu.Lock()
	delete(p.probeErr, name)
	p.store.RecordKernels(name, now(), ks, err)
	p.mu.Unlock()
}

// info is the connectionInfo to reach runtime rt with: the one in use
// (renewed) when it expires later than the listed one, else the listed
// one, else get_runtime's (a runtime listed without one).
func (p *prober) info(ctx context.Context, rt api.Runtime) (api.ConnectionInfo, error) {
	p.mu.Lock()
	have, ok := p.infos[rt.Name]
	p.mu.Unlock()
	listed := rt.ConnectionInfo
	if ok && (listed == nil || listed.URL == "" || !listed.ExpireTime.After(have.ExpireTime)) {
		return have, nil
	}
	if listed != nil && listed.URL != "" {
		p.setInfo(rt.Name, *listed)
		return *listed, nil
	}
	got, err := p.conn.Svc.GetRuntime(ctx, rt.Name)
	if err != nil {
		return api.ConnectionInfo{}, renewalError(err, p.conn)
	}
	if got.ConnectionInfo == nil || got.ConnectionInfo.URL == "" {
		return api.ConnectionInfo{}, errors.New("no connection yet (Colab sent no connectionInfo; is it still starting?)")
	}
	p.setInfo(rt.Name, *got.ConnectionInfo)
	return *got.ConnectionInfo, nil
}

func (p *prober) setInfo(name string, ci api.ConnectionInfo) {
	p.mu.Lock()
	p.infos[name] = ci
	p.mu.Unlock()
}

func (p *prober) setProbeErr(name, msg string) {
	p.mu.Lock()
	p.probeErr[name] = msg
	p.mu.Unlock()
}

// renewalError is a get_runtime failure as a row's note: "runtime gone"
// for NOT_FOUND, else the classified one-line error.
func renewalError(err error, conn *kit.Connection) error {
	if ae := kit.AsAPIError(err); ae != nil && ae.Code == api.NotFound {
		return errors.New("runtime gone (get_runtime: not found)")
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
