package clienttest

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/client"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/colabfaketest"
)

// Bed is the Colab emulator on a fake clock, an MCP client of it, and a
// hook run on every request its runtime proxy receives: the set-up of a
// test that reaches a runtime as colabdash does (get_runtime for the
// connectionInfo, the proxy for the runtime).
type Bed struct {
	// Srv is the emulator, stopped when the test ends.
	Srv *colabfake.Server
	// Clk is the emulator's clock.
	Clk *colabfake.Clock
	// Svc is an MCP client of the emulator (New), closed when the test
	// ends.
	Svc *client.Client

	onProxy atomic.Pointer[func(*http.Request)]
}

// NewBed starts the emulator with o (colabfaketest.Start) on a clock set
// to start, which the emulator reads unless o.Now is set, and connects Svc
// to it. The bed's hook (SetOnProxy) replaces o.OnProxyRequest. A failure
// fails the test.
func NewBed(t testing.TB, start time.Time, o colabfake.Options) *Bed {
	t.Helper()
	b := &Bed{Clk: colabfake.NewClock(start)}
	if o.Now == nil {
		o.Now = b.Clk.Now
	}
	o.OnProxyRequest = func(r *http.Request) {
		if f := b.onProxy.Load(); f != nil {
			(*f)(r)
		}
	}
	srv, ep := colabfaketest.Start(t, o)
	b.Srv = srv
	b.Svc = New(t, ep)
	return b
}

// SetOnProxy makes f run on each following proxy request, before its
// token is checked, on the server's goroutine; nil runs nothing.
func (b *Bed) SetOnProxy(f func(*http.Request)) {
	if f == nil {
		b.onProxy.Store(nil)
		return
	}
	b.onProxy.Store(&f)
}

// MustAdd adds a runtime named name (Server.AddRuntime) with a
// connectionInfo of the emulator's making and returns it; a refusal fails
// the test.
func (b *Bed) MustAdd(t testing.TB, name string) api.Runtime {
	t.Helper()
	rt, err := b.Srv.AddRuntime(api.Runtime{Name: name, ConnectionInfo: &api.ConnectionInfo{}})
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// Renewer is a renewal of runtime name's connectionInfo through
// get_runtime, as colabdash renews a proxy token; a runtime that comes
// back without connectionInfo is an error.
func (b *Bed) Renewer(name string) func(context.Context) (api.ConnectionInfo, error) {
	return func(ctx context.Context) (api.ConnectionInfo, error) {
		rt, err := b.Svc.GetRuntime(ctx, name)
		if err != nil {
			return api.ConnectionInfo{}, err
		}
		if rt.ConnectionInfo == nil {
			return api.ConnectionInfo{}, fmt.Errorf("%s came back without connectionInfo", name)
		}
		return *rt.ConnectionInfo, nil
	}
}
