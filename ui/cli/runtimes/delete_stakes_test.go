package runtimes

import (
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/cli/kit/kittest"
)

// On a terminal, delete's question names the job the delete would stop
// under the runtime it runs on; answered n, nothing is deleted. With
// --yes nothing is asked and the runtime is deleted.
func TestDeleteQuestionNamesTheRunningJob(t *testing.T) {
	e := kittest.Demo(t)
	tty := kittest.Term{InTTY: true, ErrTTY: true, In: "n\n"}
	r := e.RunTerm(tty, DeleteCommand, "rt-t4demo7k2p", "rt-cpudemo4qx")
	want := "  rt-t4demo7k2p  GPU/T4/STANDARD\n    It also stops its running job " + colabfake.DemoRunningJob + " (python train.py"
	if r.Code != kit.ExitFailure || !strings.Contains(r.Err, want) || len(e.Srv.Runtimes()) != 3 {
		t.Fatalf("exit %d, runtimes %d, stderr:\n%s", r.Code, len(e.Srv.Runtimes()), r.Err)
	}
	if cpu := r.Err[strings.Index(r.Err, "rt-cpudemo4qx"):]; strings.Contains(cpu, "It also stops") {
		t.Errorf("a runtime without a running job is said to have one:\n%s", r.Err)
	}
	r = e.RunTerm(tty, DeleteCommand, "rt-t4demo7k2p", "--yes")
	if r.Code != 0 || strings.Contains(r.Err, "It also stops") || len(e.Srv.Runtimes()) != 2 {
		t.Fatalf("--yes: exit %d, stderr:\n%s", r.Code, r.Err)
	}
}
