package forward

import (
	"testing"

	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/internal/proxytest"
)

// env is the test bed (internal/proxytest): the emulator's runtime proxy
// in front of its own Jupyter tree or of a real jupyter-server, with a
// proxy client for the runtime.
type env = proxytest.Env

// TestMain stops the shared real Jupyter server (if one was started)
// after the tests.
func TestMain(m *testing.M) { jupytertest.Main(m) }
