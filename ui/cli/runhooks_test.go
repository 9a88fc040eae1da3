package cli

import (
	"testing"

	"github.com/colabdash/colabdash/ui/cli/kit"
)

// run reaches create's and exec's drivers through kit's hooks (verb
// packages do not import each other); the command tree must fill them.
func TestRunReachesCreateAndExecDrivers(t *testing.T) {
	if kit.CreateHooks.CreateFailed == nil || kit.CreateHooks.WaitListed == nil {
		t.Error("the create verb's driver is not reachable from run")
	}
	if kit.ExecHooks.RunCode == nil || kit.ExecHooks.ExecDone == nil {
		t.Error("the exec verb's driver is not reachable from run")
	}
}
