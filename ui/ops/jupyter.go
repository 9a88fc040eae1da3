package ops

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
)

// ErrNoConnection is get_runtime's answer without a connectionInfo (or
// with one without a URL): the runtime is still starting, or no longer
// reachable.
var ErrNoConnection = errors.New("get_runtime returned no connectionInfo")

// Connection asks get_runtime for runtime name (runtimes/ID) and returns
// it with a connectionInfo that has a URL. Errors: get_runtime's own, as
// the API gave it; ErrNoConnection (the runtime is returned all the same,
// for its id).
func Connection(ctx context.Context, svc api.Service, name string) (api.Runtime, error) {
	rt, err := svc.GetRuntime(ctx, name)
	if err != nil {
		return api.Runtime{}, err
	}
	if rt.ConnectionInfo == nil || rt.ConnectionInfo.URL == "" {
		return rt, ErrNoConnection
	}
	return rt, nil
}

// Renewal is the one way a runtime's proxy token is renewed: get_runtime
// on runtime name, its connectionInfo. Errors are Connection's.
func Renewal(svc api.Service, name string) func(ctx context.Context) (api.ConnectionInfo, error) {
	return func(ctx context.Context) (api.ConnectionInfo, error) {
		rt, err := Connection(ctx, svc, name)
		if err != nil {
			return api.ConnectionInfo{}, err
		}
		return *rt.ConnectionInfo, nil
	}
}

// JupyterOptions are what a front end adds to a runtime's Jupyter client;
// the zero value is usable.
type JupyterOptions struct {
	// Redactor learns each proxy token and cleans errors (nil: the
	// client's own).
	Redactor *api.Redactor
	// Logger gets the client's debug records (nil discards).
	Logger *slog.Logger
	// Now is the clock the token's expireTime is read against (nil:
	// time.Now).
	Now func() time.Time
}

// Jupyter builds the Jupyter client of runtime name (runtimes/ID) reached
// through ci; its proxy token is renewed through get_runtime on svc
// (Renewal) when it nears its expireTime or the proxy refuses it. It does
// no I/O. Errors are jupyter.New's (an unusable connectionInfo).
func Jupyter(svc api.Service, name string, ci api.ConnectionInfo, o JupyterOptions) (*jupyter.Client, error) {
	return jupyter.New(jupyter.Options{Runtime: name, Info: ci, Redactor: o.Redactor, Logger: o.Logger, Now: o.Now,
		Renew: Renewal(svc, name)})
}

// OpenJupyter is Connection then Jupyter: the client of runtime name with
// a token fresh from get_runtime, and the runtime as get_runtime gave it.
// Errors are Connection's, then Jupyter's.
func OpenJupyter(ctx context.Context, svc api.Service, name string, o JupyterOptions) (*jupyter.Client, api.Runtime, error) {
	rt, err := Connection(ctx, svc, name)
	if err != nil {
		return nil, rt, err
	}
	jc, err := Jupyter(svc, name, *rt.ConnectionInfo, o)
	return jc, rt, err
}

// OpenListed is the Jupyter client of runtime rt as list_runtimes gave
// it: through its listed connectionInfo while that proxy token has more
// than jupyter.DefaultRenewLead left (no get_runtime: a verb mints no
// token it does not need, and the token stays renewed on the proxy's
// refusal or near its expiry as Jupyter's are), else OpenJupyter's (a
// token from get_runtime). It returns rt, or get_runtime's runtime when
// it asked. Errors are OpenJupyter's.
func OpenListed(ctx context.Context, svc api.Service, rt api.Runtime, o JupyterOptions) (*jupyter.Client, api.Runtime, error) {
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	if ci := rt.ConnectionInfo; ci != nil && ci.URL != "" && ci.Token != "" && now().Before(ci.ExpireTime.Add(-jupyter.DefaultRenewLead)) {
		jc, err := Jupyter(svc, rt.Name, *ci, o)
		return jc, rt, err
	}
	return OpenJupyter(ctx, svc, rt.Name, o)
}
