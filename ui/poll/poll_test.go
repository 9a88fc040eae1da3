package poll

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/state/monitor"
	"github.com/colabdash/colabdash/ui/poll/polltest"
)

var t0 = time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC)

// fold runs cmds and folds their answers at now; it returns the runtimes
// whose token was refused. info is the runtimes' connectionInfo now
// (none: the one each poll was sent with).
func fold(p *Poller, cmds []tea.Cmd, now time.Time, info ...func(string) (api.ConnectionInfo, bool)) []string {
	var renew []string
	for _, c := range cmds {
		if c == nil {
			continue
		}
		msg := c().(ResultMsg)
		same := func(string) (api.ConnectionInfo, bool) { return api.ConnectionInfo{Token: msg.Token}, true }
		if len(info) > 0 {
			same = info[0]
		}
		if name := p.Fold(msg, now, same); name != "" {
			renew = append(renew, name)
		}
	}
	return renew
}

// The selected runtime and the others on screen are polled (resources,
// then kernels, then terminals, with the proxy token alone), off-screen ones never; the
// answers land in the Store by runtime name.
func TestPollsLandOnTheirRuntime(t *testing.T) {
	px := polltest.New(t, polltest.Options{Tokens: []string{"tok-a", "tok-b", "tok-c"}})
	p := New(apimon.New(apimon.Options{}))
	infos := map[string]api.ConnectionInfo{"runtimes/a": px.Info("a", "tok-a"), "runtimes/b": px.Info("b", "tok-b"), "runtimes/c": px.Info("c", "tok-c")}
	info := func(name string) (api.ConnectionInfo, bool) { ci, ok := infos[name]; return ci, ok }
	ctx := context.Background()
	cmds := p.Due(ctx, t0, "runtimes/a", []string{"runtimes/a", "runtimes/b"}, info)
	if len(cmds) != 2 {
		t.Fatalf("%d polls", len(cmds))
	}
	if renew := fold(p, cmds, t0); renew != nil {
		t.Fatalf("renewals asked: %v", renew)
	}
	for _, name := range []string{"runtimes/a", "runtimes/b"} {
		m := p.Runtime(name)
		if m == nil || m.Last.MemUsed != 400 || len(m.Kernels) != 1 || !m.Activity(t0).IdleWarning() {
			t.Errorf("%s: %+v", name, m)
		}
	}
	if p.Runtime("runtimes/c") != nil || px.Requests("c") != 0 {
		t.Errorf("an off-screen runtime was polled")
	}
	// Resources, kernels and terminals of each.
	if p.Requests() != 6 || px.Requests("a")+px.Requests("b") != 6 {
		t.Errorf("%d requests counted, %d served", p.Requests(), px.Requests("a")+px.Requests("b"))
	}
	// Nothing more before the selected runtime's 5 s.
	if cmds := p.Due(ctx, t0.Add(4*time.Second), "runtimes/a", []string{"runtimes/a", "runtimes/b"}, info); len(cmds) != 0 {
		t.Errorf("%d polls after 4 s", len(cmds))
	}
	if cmds := p.Due(ctx, t0.Add(5*time.Second), "runtimes/a", []string{"runtimes/a", "runtimes/b"}, info); len(cmds) != 1 {
		t.Errorf("%d polls after 5 s, want the selected one", len(cmds))
	}
	// A profile switch: the answers of earlier polls are dropped.
	cmds = p.Due(ctx, t0.Add(30*time.Second), "", []string{"runtimes/b"}, info)
	p.Reset()
	fold(p, cmds, t0.Add(30*time.Second))
	if p.Runtime("runtimes/b") != nil {
		t.Errorf("an answer of before the reset was recorded")
	}
}

// A refused proxy token asks for one renewal; the next poll, when the
// Scheduler plans it, uses the fresh token and lands. A 404 that persists
// after it is a failure (never "not offered": the row would say "a stock
// Jupyter server" for ten minutes), and no second renewal comes within
// RenewEvery; a failed renewal ends the poll failed and backs it off; a
// token renewed while the poll ran needs no renewal.
func TestRefusedTokenRenewsOnce(t *testing.T) {
	px := polltest.New(t, polltest.Options{Tokens: []string{"fresh"}})
	p := New(apimon.New(apimon.Options{}))
	ctx := context.Background()
	name := "runtimes/a"
	stale := func(string) (api.ConnectionInfo, bool) { return px.Info("a", "old"), true }
	fresh := func(string) (api.ConnectionInfo, bool) { return px.Info("a", "fresh"), true }
	renew := fold(p, p.Due(ctx, t0, name, nil, stale), t0)
	if len(renew) != 1 || renew[0] != name || p.Runtime(name) != nil {
		t.Fatalf("renew %v, recorded %+v", renew, p.Runtime(name))
	}
	if px.Requests("a") != 2 {
		t.Errorf("%d requests, want the resources and the kernels (which tell a refused token from a missing route)", px.Requests("a"))
	}
	// While the renewal runs nothing else is sent for it.
	if cmds := p.Due(ctx, t0.Add(10*time.Second), name, nil, stale); len(cmds) != 0 {
		t.Errorf("a poll while its renewal runs")
	}
	p.Renewed(name, t0.Add(11*time.Second), nil)
	if renew := fold(p, p.Due(ctx, t0.Add(11*time.Second), name, nil, fresh), t0.Add(11*time.Second)); renew != nil {
		t.Fatalf("a second renewal: %v", renew)
	}
	if m := p.Runtime(name); m == nil || m.ResourcesAt.IsZero() || m.Kernels == nil {
		t.Fatalf("the poll after the renewal did not land: %+v", m)
	}

	// A token renewed while the poll ran: no renewal, the next poll uses it.
	q0 := New(apimon.New(apimon.Options{}))
	if renew := fold(q0, q0.Due(ctx, t0, name, nil, stale), t0, fresh); renew != nil || q0.Runtime(name) != nil {
		t.Fatalf("renewal asked though the token was renewed meanwhile: %v", renew)
	}
	fold(q0, q0.Due(ctx, t0.Add(5*time.Second), name, nil, fresh), t0.Add(5*time.Second))
	if m := q0.Runtime(name); m == nil || m.ResourcesErr != nil || m.Kernels == nil {
		t.Fatalf("the poll with the renewed token did not land: %+v", m)
	}

	// A 404 that persists after the renewal: a failure, not "not
	// offered", and no renewal loop.
	q := New(apimon.New(apimon.Options{}))
	if renew := fold(q, q.Due(ctx, t0, name, nil, stale), t0); len(renew) != 1 {
		t.Fatalf("renew %v", renew)
	}
	q.Renewed(name, t0, nil)
	fold(q, q.Due(ctx, t0.Add(5*time.Second), name, nil, stale), t0.Add(5*time.Second))
	m := q.Runtime(name)
	if m == nil || m.NotOffered || errors.Is(m.ResourcesErr, apimon.ErrNotOffered) || !errors.Is(m.ResourcesErr, apimon.ErrUnavailable) ||
		!strings.Contains(m.ResourcesErr.Error(), "refuses the proxy token") {
		t.Fatalf("a persisting refusal: %+v, want a failure", m)
	}
	// Its kernels, refused, are not read as "no kernels".
	if m.Kernels != nil || m.Activity(t0.Add(5*time.Second)).State != monitor.StateUnknown {
		t.Errorf("kernels refused recorded as %v (activity %v)", m.Kernels, m.Activity(t0.Add(5*time.Second)).State)
	}
	for i := 1; i <= 20; i++ {
		now := t0.Add(time.Duration(i) * 30 * time.Second)
		if renew := fold(q, q.Due(ctx, now, name, nil, stale), now); renew != nil && now.Sub(t0) < RenewEvery {
			t.Fatalf("renewal asked again after %v", now.Sub(t0))
		}
	}

	// A failed renewal: the poll ends failed and is backed off.
	r := New(apimon.New(apimon.Options{}))
	fold(r, r.Due(ctx, t0, name, nil, stale), t0)
	r.Renewed(name, t0, errors.New("get_runtime: NOT_FOUND"))
	m = r.Runtime(name)
	if m == nil || !errors.Is(m.ResourcesErr, apimon.ErrUnavailable) || !strings.Contains(m.ResourcesErr.Error(), "renewal failed: get_runtime: NOT_FOUND") {
		t.Fatalf("after a failed renewal: %+v", m)
	}
	if cmds := r.Due(ctx, t0.Add(monitor.BackoffMin-time.Second), name, nil, stale); len(cmds) != 0 {
		t.Errorf("polled again within the backoff")
	}
	// A renewal that never answers: the poll gives up after waitLimit.
	w := New(apimon.New(apimon.Options{}))
	fold(w, w.Due(ctx, t0, name, nil, stale), t0)
	fold(w, w.Due(ctx, t0.Add(waitLimit), name, nil, stale), t0.Add(waitLimit))
	if m := w.Runtime(name); m == nil || m.ResourcesErr == nil {
		t.Errorf("a poll waits for a renewal forever: %+v", m)
	}
}

// A resources route the proxy answers with its bare 404 while it takes
// the same token for the kernels is "not offered by this runtime" at
// once: no renewal, the kernels recorded, the resources asked again only
// after NotOfferedRecheck.
func TestResourcesRefusedWithATokenTheKernelsTakeIsNotOffered(t *testing.T) {
	px := polltest.New(t, polltest.Options{Tokens: []string{"good"}, NoResources: true})
	p := New(apimon.New(apimon.Options{}))
	name := "runtimes/a"
	info := func(string) (api.ConnectionInfo, bool) { return px.Info("a", "good"), true }
	if renew := fold(p, p.Due(context.Background(), t0, name, nil, info), t0); renew != nil {
		t.Fatalf("renewal asked for a route the runtime lacks: %v", renew)
	}
	m := p.Runtime(name)
	if m == nil || !m.NotOffered || !errors.Is(m.ResourcesErr, apimon.ErrNotOffered) || len(m.Kernels) != 1 {
		t.Fatalf("after the poll: %+v, want the resources not offered and the kernels read", m)
	}
}

// A runtime without a connectionInfo is not polled and not held in
// flight.
func TestNoConnectionInfo(t *testing.T) {
	p := New(apimon.New(apimon.Options{}))
	none := func(string) (api.ConnectionInfo, bool) { return api.ConnectionInfo{}, false }
	if cmds := p.Due(context.Background(), t0, "runtimes/a", nil, none); len(cmds) != 0 || p.Requests() != 0 {
		t.Errorf("%d polls", len(cmds))
	}
}
