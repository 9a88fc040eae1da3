package jupyter

import (
	"os"
	"testing"
)

// TestMain stops the shared real Jupyter server (if one was started)
// after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	stopJupyter()
	os.Exit(code)
}
