package jupyter

import (
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
)

// RealJupyterClient is, for the external tests of this package (the
// terminal of api/tty), a Client for a runtime whose proxy forwards to
// the real jupyter-server (requireJupyter: skipped when it is not
// installed, fatal under COLABDASH_REQUIRE_JUPYTER=1), and that
// server's own URL.
func RealJupyterClient(t *testing.T) (*Client, string) {
	e := newEnv(t, backendJupyter, colabfake.Options{})
	return e.client(), jupyterServer.url
}
