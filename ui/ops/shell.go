package ops

import (
	"context"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
)

// Listed returns the check a shell makes after its connection closed:
// whether list_runtimes still lists runtime name (runtimes/ID), so that
// reconnecting makes sense (a runtime no longer listed was reclaimed).
// Errors are list_runtimes' own.
func Listed(svc api.Service, name string) func(ctx context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		rts, err := svc.ListRuntimes(ctx)
		if err != nil {
			return false, err
		}
		for _, rt := range rts {
			if rt.Name == name {
				return true, nil
			}
		}
		return false, nil
	}
}

// ShellTarget is what a shell needs of its runtime, whatever front end
// opens it: the Jupyter client (it renews the token itself) and the
// "still listed" check (Listed). The front end adds the terminal, the
// redactor and how the outcome is shown.
type ShellTarget struct {
	Client *jupyter.Client
	Listed func(ctx context.Context) (bool, error)
}

// Shell builds the ShellTarget of runtime name reached through ci. It
// does no I/O; errors are Jupyter's.
func Shell(svc api.Service, name string, ci api.ConnectionInfo, o JupyterOptions) (ShellTarget, error) {
	jc, err := Jupyter(svc, name, ci, o)
	if err != nil {
		return ShellTarget{}, err
	}
	return ShellTarget{Client: jc, Listed: Listed(svc, name)}, nil
}
