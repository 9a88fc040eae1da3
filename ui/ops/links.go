package ops

import (
	"context"
	"errors"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
)

// ListLinks runs jupyter.LinkCode for the contents path remote in the
// kernel session session through execute_code and reads its answer: the
// symbolic links below that directory on the runtime, which the contents
// API cannot tell from directories. The code is given the path on the
// runtime's file system as "/" + remote: Colab's Jupyter server serves
// the runtime's root directory. An error when the call fails, the code
// raised (its exception, cut to 200 characters) or the answer is not
// readable (jupyter.ParseLinks).
func ListLinks(ctx context.Context, svc api.Service, session, remote string) (jupyter.Links, error) {
	code, err := jupyter.LinkCode("/" + remote)
	if err != nil {
		return jupyter.Links{}, err
	}
	res, err := svc.ExecuteCode(ctx, api.ExecuteCodeRequest{Session: session, Code: code})
	if err != nil {
		return jupyter.Links{}, err
	}
	if x := res.ExecutionError; x != nil {
		return jupyter.Links{}, errors.New("the check's code failed: " + api.OneLine(x.Line(), 200))
	}
	return jupyter.ParseLinks(res.Stdout)
}
