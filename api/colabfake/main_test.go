package colabfake

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves goroutines behind: Close
// must end background creations and sessions.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
