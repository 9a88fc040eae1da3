package ops

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/colabdash/colabdash/api"
	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/state/monitor"
)

// Reading is what one poll of a runtime's proxy brought back: its
// resources (valid when ResErr is nil), its kernels (valid when KerErr
// is nil) and its terminals (valid when TermErr is nil). A part not
// asked, or not reached, is zero (nil) with a nil error.
type Reading struct {
	Resources apimon.Resources
	ResErr    error
	Kernels   []apimon.Kernel
	KerErr    error
	Terminals []apimon.Terminal
	TermErr   error
}

// Read is one poll of the runtime behind ci through client: its
// resources when resources is set, then its kernels when kernels is set,
// one after the other (never two requests at once for one runtime). It
// renews nothing (see Prober and state/monitor's Renewals for the rule).
func Read(ctx context.Context, client *apimon.Client, ci api.ConnectionInfo, resources, kernels bool) Reading {
	return ReadPoll(ctx, client, ci, monitor.Poll{Resources: resources, Kernels: kernels})
}

// ReadPoll is Read of the parts p asks for: the resources, the kernels,
// then the terminals (Terminals), one after the other. The kernels are
// asked even after the proxy refused the resources: whether the proxy
// takes the same token for them tells a refused token from a resources
// route it lacks (Absent). A token refused for the kernels ends the poll
// there. A server without terminals (a 404 from Jupyter: terminals turned
// off) has none: an empty list, not an error.
func ReadPoll(ctx context.Context, client *apimon.Client, ci api.ConnectionInfo, p monitor.Poll) Reading {
	var r Reading
	if p.Resources {
		r.Resources, r.ResErr = client.Resources(ctx, ci)
		if ctx.Err() != nil {
			return r
		}
	}
	if p.Kernels {
		r.Kernels, r.KerErr = client.Kernels(ctx, ci)
		if errors.Is(r.KerErr, apimon.ErrTokenRefused) {
			return r
		}
	}
	if p.Terminals {
		r.Terminals, r.TermErr = Terminals(ctx, client, ci)
	}
	return r
}

// Terminals lists runtime ci's terminals through client; a server
// without terminals (ErrNotOffered) has none: an empty list, nil error.
func Terminals(ctx context.Context, client *apimon.Client, ci api.ConnectionInfo) ([]apimon.Terminal, error) {
	ts, err := client.Terminals(ctx, ci)
	if errors.Is(err, apimon.ErrNotOffered) {
		return []apimon.Terminal{}, nil
	}
	return ts, err
}

// Persisting is err, a token the proxy refused (*apimon.Error), as a
// failure (apimon.KindUnavailable): the 404 came back though the token
// was renewed within monitor.RenewEvery, and it is not renewed again
// before then. A refusal is never "not offered" (Absent says when a
// route is missing). Any other err is returned as it is.
func Persisting(err error) error {
	e, ok := errors.AsType[*apimon.Error](err)
	if !ok || e.Kind != apimon.KindTokenRefused {
		return err
	}
	ne := *e
	ne.Kind, ne.Message = apimon.KindUnavailable, "the runtime proxy refuses the proxy token, renewed less than "+state.FormatDuration(monitor.RenewEvery)+" ago"
	return &ne
}

// Absent is resErr, the proxy's refusal of the resources route
// (*apimon.Error) with a proxy token that the kernels' answer kerErr (nil:
// they came) shows the proxy takes, as apimon.KindNotOffered: the runtime
// does not offer that route. The resources' error is returned as it is
// when it is no refusal, or when the kernels did not come (the token
// itself may be refused).
func Absent(resErr, kerErr error) error {
	e, ok := errors.AsType[*apimon.Error](resErr)
	if !ok || e.Kind != apimon.KindTokenRefused || kerErr != nil {
		return resErr
	}
	ne := *e
	ne.Kind, ne.Message = apimon.KindNotOffered, "the runtime proxy answers 404 to "+apimon.ResourcesPath+" with a proxy token it takes for "+apimon.KernelsPath
	return &ne
}

// Prober is the blocking monitor probe (`top`): it reads runtimes'
// resources and kernels through their proxies and keeps what it learnt
// in a state/monitor Store (the last figures of a runtime whose poll
// failed, the time a kernel was first seen starting), the connectionInfo
// in use for each runtime (a renewed one included), and which runtimes do
// not offer the resources route. Build it with NewProber; it is safe for
// concurrent use (one Probe per runtime at a time).
type Prober struct {
	svc     api.Service
	client  *apimon.Client
	explain func(error) string

	mu    sync.Mutex
	store *monitor.Store
	// infos are the connectionInfos in use, renewed ones included (a
	// list_runtimes after a renewal may still carry the older token).
	infos map[string]api.ConnectionInfo
	// notOfferedAt is when a runtime's resources were last found not
	// offered (monitor.ResourcesDue).
	notOfferedAt map[string]time.Time
	// probeErr is why a runtime could not be probed at all (no
	// connectionInfo, the renewal failed), by runtime name.
	probeErr map[string]string
	// jobsAt is when ProbeJobs last listed each runtime's jobs.
	jobsAt   map[string]time.Time
	renewals *monitor.Renewals
}

// NewProber returns a Prober that reads through client and renews tokens
// through get_runtime on svc. explain words a get_runtime failure for
// ProbeError ("runtime gone (get_runtime: not found)"); nil: the error's
// own text.
func NewProber(svc api.Service, client *apimon.Client, explain func(error) string) *Prober {
	if explain == nil {
		explain = func(err error) string { return err.Error() }
	}
	return &Prober{svc: svc, client: client, explain: explain, store: monitor.NewStore(),
		infos: map[string]api.ConnectionInfo{}, notOfferedAt: map[string]time.Time{}, probeErr: map[string]string{},
		jobsAt: map[string]time.Time{}, renewals: monitor.NewRenewals()}
}

// Runtime returns what is known of runtime name (nil: nothing yet).
func (p *Prober) Runtime(name string) *monitor.Runtime {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.store.Get(name)
}

// ProbeError is why runtime name could not be probed at all by its last
// Probe ("" when it could).
func (p *Prober) ProbeError(name string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.probeErr[name]
}

// Retain forgets every runtime for which keep is false.
func (p *Prober) Retain(keep func(name string) bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.store.Retain(keep)
	p.renewals.Retain(keep)
	for name := range p.infos {
		if !keep(name) {
			delete(p.infos, name)
			delete(p.notOfferedAt, name)
			delete(p.probeErr, name)
			delete(p.jobsAt, name)
		}
	}
}

// Probe polls runtime rt once, at now(): its resources (unless found not
// offered within monitor.NotOfferedRecheck), then its kernels, then its
// terminals (none on a server without them). A proxy 404 on the kernels
// (a refused token) renews the token through get_runtime and reads both
// again once, when the rule allows (monitor.Renewals: once every
// monitor.RenewEvery per runtime); a refusal the rule does not let renew,
// or that comes back after the renewal, is Persisting: a failure, never
// "not offered". A proxy 404 on the resources alone, with a token the
// kernels show the proxy takes, is a route the runtime lacks (Absent).
func (p *Prober) Probe(ctx context.Context, rt api.Runtime, now func() time.Time) {
	name := rt.Name
	ci, err := p.info(ctx, rt)
	if err != nil {
		p.setProbeErr(name, err.Error())
		return
	}
	p.mu.Lock()
	askResources := monitor.ResourcesDue(p.notOfferedAt[name], now())
	p.mu.Unlock()
	r := ReadPoll(ctx, p.client, ci, monitor.Poll{Resources: askResources, Kernels: true})
	if ctx.Err() != nil {
		return
	}
	if refusedToken(r) {
		var ok bool
		if r, ci, ok = p.renewAndRead(ctx, name, ci, askResources, r, now); !ok {
			return
		}
	}
	if askResources {
		if !p.recordResources(name, now(), r.Resources, Persisting(Absent(r.ResErr, r.KerErr))) {
			return
		}
	}
	p.recordKernels(name, now(), r.Kernels, Persisting(r.KerErr))
	if errors.Is(r.KerErr, apimon.ErrTokenRefused) {
		return
	}
	ts, err := Terminals(ctx, p.client, ci)
	if ctx.Err() != nil {
		return
	}
	p.mu.Lock()
	p.store.RecordTerminals(name, now(), ts, err)
	p.mu.Unlock()
}

// refusedToken reports whether poll r's proxy token was refused: the
// kernels refused it, or the resources did and the kernels did not come
// to show the proxy takes it.
func refusedToken(r Reading) bool {
	return errors.Is(r.KerErr, apimon.ErrTokenRefused) ||
		errors.Is(r.ResErr, apimon.ErrTokenRefused) && r.KerErr != nil
}

// renewAndRead renews runtime name's refused token ci, when the rule
// allows, and reads again (the resources when asked, the kernels) with
// the fresh one, which it keeps; it returns the reading to record and the
// token it used. ok is false when the renewal failed (the probe error is
// set) or ctx ended.
func (p *Prober) renewAndRead(ctx context.Context, name string, ci api.ConnectionInfo, askResources bool, r Reading,
	now func() time.Time) (Reading, api.ConnectionInfo, bool) {
	p.mu.Lock()
	due := p.renewals.Due(name, now())
	if due {
		p.renewals.Renewed(name, now())
	}
	p.mu.Unlock()
	if !due {
		return r, ci, true
	}
	fresh, err := Renewal(p.svc, name)(ctx)
	if ctx.Err() != nil {
		return r, ci, false
	}
	if err != nil {
		if !errors.Is(err, ErrNoConnection) {
			err = errors.New(p.explain(err))
		}
		p.setProbeErr(name, err.Error())
		return r, ci, false
	}
	p.setInfo(name, fresh)
	r = ReadPoll(ctx, p.client, fresh, monitor.Poll{Resources: askResources, Kernels: true})
	return r, fresh, ctx.Err() == nil
}

// RecordJobs records runtime name's jobs for its verdict (Store's
// RecordJobs: running, the newest end, known false when they could not
// be listed).
func (p *Prober) RecordJobs(name string, running int, lastEnd time.Time, known bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.store.RecordJobs(name, running, lastEnd, known)
}

// Seen records that runtime name was first listed at at (Store's Seen:
// the earliest kept, for a runtime probed once at least): a runtime on
// which nothing was ever active is quiet since then.
func (p *Prober) Seen(name string, at time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.store.Seen(name, at)
}

// recordResources records a resources answer; false (and the probe error
// set) when err is not the proxy's but the renewal's.
func (p *Prober) recordResources(name string, at time.Time, res apimon.Resources, err error) bool {
	var me *apimon.Error
	if err != nil && !errors.As(err, &me) { // the renewal failed: the runtime is gone, or the API
		p.setProbeErr(name, err.Error())
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if errors.Is(err, apimon.ErrNotOffered) {
		p.notOfferedAt[name] = at
	} else {
		delete(p.notOfferedAt, name)
	}
	p.store.RecordResources(name, at, res, err)
	return true
}

// recordKernels records a kernels answer, or the renewal's failure as
// the probe error.
func (p *Prober) recordKernels(name string, at time.Time, ks []apimon.Kernel, err error) {
	var me *apimon.Error
	if err != nil && !errors.As(err, &me) {
		p.setProbeErr(name, err.Error())
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.probeErr, name)
	p.store.RecordKernels(name, at, ks, err)
}

// info is the connectionInfo to reach runtime rt with: the one in use
// (renewed) when it expires later than the listed one, else the listed
// one, else get_runtime's (a runtime listed without one).
func (p *Prober) info(ctx context.Context, rt api.Runtime) (api.ConnectionInfo, error) {
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
	got, err := Connection(ctx, p.svc, rt.Name)
	if errors.Is(err, ErrNoConnection) {
		return api.ConnectionInfo{}, errors.New("no connection yet (Colab sent no connectionInfo; is it still starting?)")
	}
	if err != nil {
		return api.ConnectionInfo{}, errors.New(p.explain(err))
	}
	p.setInfo(rt.Name, *got.ConnectionInfo)
	return *got.ConnectionInfo, nil
}

func (p *Prober) setInfo(name string, ci api.ConnectionInfo) {
	p.mu.Lock()
	p.infos[name] = ci
	p.mu.Unlock()
}

func (p *Prober) setProbeErr(name, msg string) {
	p.mu.Lock()
	p.probeErr[name] = msg
	p.mu.Unlock()
}
