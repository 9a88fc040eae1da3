package exec

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/ops"
)

// interruptTimeout bounds a kernel interrupt: get_runtime for a fresh
// proxy token, the Jupyter sessions listed, the interrupt posted.
const interruptTimeout = 20 * time.Second

// interruptKernel interrupts the kernel of Colab session session as
// jupyter console does on ctrl+c: through the runtime proxy, it finds the
// session's kernel among the runtime's Jupyter sessions and posts
// api/kernels/{id}/interrupt, so the running code raises
// KeyboardInterrupt and the session keeps its state. It returns the
// kernel id.
func (v *verb) interruptKernel(ctx context.Context, conn *kit.Connection, session string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, interruptTimeout)
	defer cancel()
	name, _, ok := strings.Cut(session, "/sessions/")
	if !ok {
		return "", errors.New("not a session name: " + session)
	}
	rt, err := ops.Connection(ctx, conn.Svc, name)
	if errors.Is(err, ops.ErrNoConnection) {
		return "", errors.New("the runtime has no connectionInfo")
	}
	if err != nil {
		return "", kit.Classify(err, conn.Creds)
	}
	jc, err := ops.Jupyter(conn.Svc, name, *rt.ConnectionInfo, ops.JupyterOptions{Redactor: v.Red(), Logger: v.G.Logs.Log})
	if err != nil {
		return "", err
	}
	return jc.InterruptSession(ctx, session)
}

// KeyboardInterrupt is the exception a kernel interrupt raises.
const KeyboardInterrupt = "KeyboardInterrupt"
