package shell

import (
	"context"
	"errors"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
)

// A connection that closes while the listing cannot say whether the
// runtime is still there: Run ends Lost and says both, with no
// reconnect offer.
func TestClosedWhileTheListingFails(t *testing.T) {
	tm := newTerm(t)
	r := newRig(t, colabfake.Options{TTYCloseOnExpiry: true})
	o := r.options(t, tm)
	o.Listed = func(context.Context) (bool, error) { return false, errors.New("list_runtimes: backend unavailable") }
	ch := start(context.Background(), o)
	tm.waitFor(colabfake.TTYPrompt)
	r.clk.Advance(2 * colabfake.DefaultTokenTTL)
	if res := await(t, ch); res.out != Lost || res.err == nil {
		t.Fatalf("%v %v, want lost", res.out, res.err)
	}
	tm.waitFor("[colabdash] connection to rt-sh closed (")
	tm.waitFor("); whether the runtime still runs is unknown: list_runtimes: backend unavailable")
}

// A shell that cannot be opened: on a runtime already gone Run says it
// is gone (Reclaimed); for any other failure it names the runtime and
// the failure (Lost).
func TestShellNeverOpened(t *testing.T) {
	tm := newTerm(t)
	r := newRig(t, colabfake.Options{})
	r.srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, PathPrefix: "colab/tty", Status: 500, Times: -1})
	if res := await(t, start(context.Background(), r.options(t, tm))); res.out != Lost || res.err == nil {
		t.Fatalf("%v %v, want lost", res.out, res.err)
	}
	tm.waitFor("[colabdash] could not open a shell on rt-sh: ")

	tm2 := newTerm(t)
	r2 := newRig(t, colabfake.Options{})
	o := r2.options(t, tm2)
	r2.srv.Reclaim(r2.rt.Name)
	if res := await(t, start(context.Background(), o)); res.out != Reclaimed || res.err == nil {
		t.Fatalf("%v %v, want reclaimed", res.out, res.err)
	}
	tm2.waitFor("[colabdash] runtime rt-sh is gone (reclaimed)\r\n")
}
