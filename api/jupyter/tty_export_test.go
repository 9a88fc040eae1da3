package jupyter

import (
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
)

// TestMain stops the shared real Jupyter server (if one was started)
// after the tests.
func TestMain(m *testing.M) { jupytertest.Main(m) }

// RealJupyterClient is, for the external tests of this package (the
// terminal of api/tty), a Client for a runtime whose proxy forwards to
// the real jupyter-server (jupytertest.RequireJupyter: skipped when it
// is not installed, fatal under COLABDASH_REQUIRE_JUPYTER=1), and that
// server's own URL.
func RealJupyterClient(t *testing.T) (*Client, string) {
	url := jupytertest.RequireJupyter(t)
	e := jupytertest.NewEnv(t, jupytertest.Jupyter, colabfake.Options{})
	c, err := New(Options{Runtime: e.Rt.Name, Info: e.Info(), Now: e.Clk.Now, Redactor: e.Red,
		RetryDelay: 10 * time.Millisecond, Renew: e.Renew})
	if err != nil {
		t.Fatal(err)
	}
	return c, url
}
