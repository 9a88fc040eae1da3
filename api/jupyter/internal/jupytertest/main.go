package jupytertest

import (
	"os"
	"testing"
)

// Main runs a package's tests, then stops the shared real jupyter-server
// if one was started, and exits with the tests' code: a TestMain's whole
// body.
func Main(m *testing.M) {
	code := m.Run()
	StopJupyter()
	os.Exit(code)
}
