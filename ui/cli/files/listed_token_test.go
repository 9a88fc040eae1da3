package files

import (
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/cli/kit/kittest"
)

// A file verb reaches the runtime with the proxy token list_runtimes gave
// while it has more than 5 minutes left: ls costs the one listing that
// resolves the runtime and no get_runtime (a round trip to Colab saved on
// every ls, cp and rm). A listed token closer to its expiry is replaced
// by get_runtime's before the first request, once.
func TestFileVerbsUseTheListedTokenWhileFresh(t *testing.T) {
	e := kittest.Empty(t)
	for _, rt := range []api.Runtime{
		{Name: "runtimes/rt-fresh", ConnectionInfo: &api.ConnectionInfo{ExpireTime: time.Now().Add(50 * time.Minute)}},
		{Name: "runtimes/rt-near", ConnectionInfo: &api.ConnectionInfo{ExpireTime: time.Now().Add(2 * time.Minute)}},
	} {
		if _, err := e.Srv.AddRuntime(rt); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		runtime string
		renews  int
	}{{"rt-fresh", 0}, {"rt-near", 1}} {
		before := e.Srv.CallCount("get_runtime")
		r := e.Run(lsCmd, tc.runtime+":/content")
		if r.Code != 0 {
			t.Fatalf("ls %s: exit %d, stderr %q", tc.runtime, r.Code, r.Err)
		}
		if got := e.Srv.CallCount("get_runtime") - before; got != tc.renews {
			t.Errorf("ls %s made %d get_runtime calls, want %d", tc.runtime, got, tc.renews)
		}
	}
}
