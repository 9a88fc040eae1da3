package cli

import (
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/realjupyter"
	"github.com/colabdash/colabdash/ui/cli/top"
)

// top against a real jupyter-server behind the emulator's proxy: its
// kernel is counted from Jupyter's own api/kernels, and the resources
// route a stock server lacks reads "not offered" at once, without a
// token renewal and without failing the command.
func TestTopRealJupyter(t *testing.T) {
	up := realjupyter.Require(t, realjupyter.Options{Kernels: true}).URL
	e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedEmpty, JupyterUpstream: up})
	rt, err := e.srv.AddRuntime(api.Runtime{Name: "runtimes/rt-real", ConnectionInfo: &api.ConnectionInfo{}})
	if err != nil {
		t.Fatal(err)
	}
	kernelID := realjupyter.StartKernel(t, *rt.ConnectionInfo)

	code, out, errs := e.run("top", "rt-real")
	// The kernel just started: Jupyter says "starting" until it settles,
	// and it is counted as such, then as idle.
	counted := strings.Contains(out, "0 busy 1 idle") || strings.Contains(out, "0 busy 0 idle 1 starting")
	if code != 0 || !strings.Contains(out, "resources not offered by this runtime") || !counted {
		t.Errorf("top rt-real: exit %d %q\n%s", code, errs, out)
	}
	code, out, _ = e.run("top", "rt-real", "--json")
	var rep top.Report
	mustJSON(t, out, &rep)
	if code != 0 || !rep.OK || len(rep.Runtimes) != 1 || rep.Runtimes[0].ResourcesStatus != "notOffered" ||
		len(rep.Runtimes[0].Kernels) != 1 || rep.Runtimes[0].Kernels[0].ID != kernelID || rep.Runtimes[0].Activity.Kernels != 1 {
		t.Errorf("top rt-real --json: exit %d\n%s", code, out)
	}
	if n := e.srv.CallCount("get_runtime"); n != 0 {
		t.Errorf("get_runtime called %d times for a stock server's 404, want 0", n)
	}
}
