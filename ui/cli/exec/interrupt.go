package exec

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/ui/cli/kit"
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
	rt, err := conn.Svc.GetRuntime(ctx, name)
	if err != nil {
		return "", kit.Classify(err, conn.Creds)
	}
	if rt.ConnectionInfo == nil || rt.ConnectionInfo.URL == "" {
		return "", errors.New("the runtime has no connectionInfo")
	}
	jc, err := jupyter.New(jupyter.Options{Runtime: name, Info: *rt.ConnectionInfo, Redactor: v.Red(), Logger: v.G.Logs.Log,
		Renew: func(ctx context.Context) (api.ConnectionInfo, error) {
			rt, err := conn.Svc.GetRuntime(ctx, name)
			if err != nil {
				return api.ConnectionInfo{}, err
			}
			if rt.ConnectionInfo == nil {
				return api.ConnectionInfo{}, errors.New("get_runtime returned no connectionInfo")
			}
			return *rt.ConnectionInfo, nil
		}})
	if err != nil {
		return "", err
	}
	return jc.InterruptSession(ctx, session)
}

// KeyboardInterrupt is the exception a kernel interrupt raises.
const KeyboardInterrupt = "KeyboardInterrupt"
