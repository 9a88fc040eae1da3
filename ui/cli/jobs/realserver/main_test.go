// Package realserver holds the jobs' end-to-end tests against a real
// jupyter-server: the real binary's run, logs, wait and stop, with real
// kernels and processes behind the emulator. They mostly wait on the
// server's processes (one holds the network down for a minute), so they
// are a package of their own, run beside the others rather than after
// the command-line package's tests.
package realserver

import (
	"os"
	"testing"

	"github.com/colabdash/colabdash/ui/cli/internal/clitest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	clitest.RemoveBinary()
	os.Exit(code)
}
