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
	tm, r, o := newShell(t, colabfake.Options{TTYCloseOnExpiry: true})
	o.Listed = func(context.Context) (bool, error) { return false, errors.New("list_runtimes: backend unavailable") }
	ch := start(context.Background(), o)
	r.expireAtPrompt(tm)
	if res := awaitOutcome(t, ch, Lost); res.err == nil {
		t.Fatal("lost without an error")
	}
	tm.waitFor("[colabdash] connection to rt-sh closed (")
	tm.waitFor("); whether the runtime still runs is unknown: list_runtimes: backend unavailable")
}

// A shell that cannot be opened: on a runtime already gone Run says it
// is gone (Reclaimed); for any other failure it names the runtime and
// the failure (Lost).
func TestShellNeverOpened(t *testing.T) {
	tm, r, o := newShell(t, colabfake.Options{})
	r.srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, PathPrefix: "colab/tty", Status: 500, Times: -1})
	if res := awaitOutcome(t, start(context.Background(), o), Lost); res.err == nil {
		t.Fatal("lost without an error")
	}
	tm.waitFor("[colabdash] could not open a shell on rt-sh: ")

	tm2, r2, o2 := newShell(t, colabfake.Options{})
	r2.srv.Reclaim(r2.rt.Name)
	if res := awaitOutcome(t, start(context.Background(), o2), Reclaimed); res.err == nil {
		t.Fatal("reclaimed without an error")
	}
	tm2.waitFor("[colabdash] runtime rt-sh is gone (reclaimed)\r\n")
}
