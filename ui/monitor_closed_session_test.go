package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/state/monitor"
)

// Kernels that leave a runtime's list because another client closed
// their Colab sessions (delete_session) were closed, not dead: once the
// dashboard's session list shows the sessions gone, the runtime reads
// "no kernels", never "dead", in the row and the details.
func TestKernelsOfSessionsClosedElsewhereAreNotDead(t *testing.T) {
	testClosedKernelsAreNotDead(t, func(ms *monitorStack, name string) {
		if err := ms.cli.DeleteSession(context.Background(), name); err != nil {
			t.Fatal(err)
		}
	})
}

// The same for sessions the dashboard itself closes (x): their kernels
// read "no kernels", never "dead".
func TestKernelsOfSessionsClosedHereAreNotDead(t *testing.T) {
	testClosedKernelsAreNotDead(t, func(ms *monitorStack, name string) {
		ms.run(ms.m.ops.startCloseSession(name, ms.clk.Now()), true)
	})
}

// testClosedKernelsAreNotDead closes, with closeSession, every session of
// the demo's T4 runtime once the monitor saw its kernels idle, and checks
// that the runtime then reads "no kernels".
func testClosedKernelsAreNotDead(t *testing.T, closeSession func(ms *monitorStack, name string)) {
	ms := newMonitorStack(t, 100, colabfake.Options{})
	ms.start()
	ms.tick(time.Second)
	const id = "rt-t4demo7k2p"
	ms.m = ms.m.selectID(t, id)
	ms.tick(5 * time.Second)
	ms.tick(25 * time.Second)
	r := ms.m.mon.poll.Runtime("runtimes/" + id)
	if r == nil || r.Activity(ms.clk.Now()).Idle() == 0 {
		t.Fatalf("no idle kernel seen on %s: %+v", id, r)
	}
	sessions := ms.srv.Sessions("runtimes/" + id)
	for _, s := range sessions {
		closeSession(ms, s.Name)
	}
	if left := ms.srv.Sessions("runtimes/" + id); len(left) != 0 {
		t.Fatalf("sessions left: %v", left)
	}
	for range 4 {
		ms.tick(15 * time.Second)
	}
	v := ms.view()
	a := ms.m.mon.poll.Runtime("runtimes/" + id).Activity(ms.clk.Now())
	if a.State != monitor.StateNoKernels || strings.Contains(v, "dead") {
		t.Errorf("%d sessions closed: %s (%+v)\n%s", len(sessions), a.State, a, v)
	}
}
