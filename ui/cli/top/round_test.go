package top

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/state/monitor"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/cli/kit/kittest"
	"github.com/colabdash/colabdash/ui/render"
)

// A round renews a runtime's token once at most: the proxy refuses the
// listed token for the resources (renewed, read again) and refuses the
// kernels even with the fresh one; that is the kernels' failure, not a
// second get_runtime.
func TestTopRenewsATokenOnceARound(t *testing.T) {
	e := kittest.Demo(t)
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, PathPrefix: "api/colab/resources", Status: 404, Times: 1})
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, PathPrefix: "api/kernels", Status: 404, Times: -1})
	r := e.Run(Command, "rt-t4demo7k2p", "--json")
	if n := e.Srv.CallCount(api.ToolGetRuntime); n != 1 {
		t.Errorf("one round renewed the token %d times, want once; stderr %q", n, r.Err)
	}
	var rep Report
	if err := json.Unmarshal([]byte(r.Out), &rep); err != nil || len(rep.Runtimes) != 1 {
		t.Fatalf("%v: %q", err, r.Out)
	}
	if rr := rep.Runtimes[0]; rr.ResourcesStatus != "ok" || rr.KernelsError == "" || rr.OK {
		t.Errorf("resources %q, kernels error %q, ok %v: want the resources read and the kernels failed", rr.ResourcesStatus, rr.KernelsError, rr.OK)
	}
}

// Every error field of top's output leaves through the redactor, in
// --json and in the table: an error text that quotes a secret the
// redactor knows (one learnt after the text was made, which no earlier
// layer could clean) does not print it.
func TestTopRedactsErrorFields(t *testing.T) {
	const secret = "proxy-token-s3cr3t-4b7e9d"
	red := &api.Redactor{}
	red.Add(secret)
	quote := func(op string) error {
		return &apimon.Error{Op: op, Kind: apimon.KindUnavailable, Status: 500, Message: "HTTP 500: bad token " + secret}
	}
	at := time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)
	st := monitor.NewStore()
	st.RecordResources("runtimes/rt-a", at, apimon.Resources{}, quote("resources"))
	st.RecordKernels("runtimes/rt-a", at, nil, quote("kernels"))
	rows := []row{
		newRow(api.Runtime{Name: "runtimes/rt-a"}, st.Get("runtimes/rt-a"), "", at),
		newRow(api.Runtime{Name: "runtimes/rt-b"}, nil, "get_runtime: "+errors.New("denied for "+secret).Error(), at),
	}
	for _, asJSON := range []bool{true, false} {
		var out bytes.Buffer
		v := &verb{Verb: kit.NewVerb(&kit.Globals{Logs: kit.Logs{Red: red}}, &kit.Streams{Out: &out, Err: &out}, "top")}
		v.AsJSON = asJSON
		if err := v.print(rows); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.String(), secret) || !strings.Contains(out.String(), "bad token") || !strings.Contains(out.String(), "denied for") {
			t.Errorf("--json %v: the secret is printed, or the errors are missing:\n%s", asJSON, out.String())
		}
	}
}

// Once the kernels' reads have failed monitor.StaleAfter times in a row,
// top no longer shows the last list's word: ACTIVITY says stale, KERNELS
// shows none, and --json's activity is unknown; one failure keeps the
// last reading (with the error in the note).
func TestTopActivitySaysStaleAfterFailedReads(t *testing.T) {
	at := time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)
	st := monitor.NewStore()
	busy := []apimon.Kernel{{ID: "k1", ExecutionState: "busy", LastActivity: at}}
	st.RecordKernels("runtimes/rt-a", at, busy, nil)
	fail := &apimon.Error{Op: "kernels", Kind: apimon.KindUnavailable, Status: 500, Message: "HTTP 500"}
	for i := 1; i <= monitor.StaleAfter; i++ {
		at = at.Add(5 * time.Second)
		st.RecordKernels("runtimes/rt-a", at, nil, fail)
		r := newRow(api.Runtime{Name: "runtimes/rt-a"}, st.Get("runtimes/rt-a"), "", at)
		word, state := r.cells()[6], r.report().Activity.State
		if i < monitor.StaleAfter {
			if !strings.HasPrefix(word, "busy") || state != "busy" {
				t.Errorf("after %d failed read(s): ACTIVITY %q, --json state %q; want the last reading, busy", i, word, state)
			}
			continue
		}
		if none := render.KernelsCell(monitor.Activity{}); word != "stale" || state != "unknown" || r.cells()[5] != none {
			t.Errorf("after %d failed reads: ACTIVITY %q, KERNELS %q, --json state %q; want stale, none, unknown", i, word, r.cells()[5], state)
		}
	}
}
