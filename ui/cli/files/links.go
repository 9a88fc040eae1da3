package files

import (
	"context"
	"errors"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/ui/termtext"
)

// linkCheck is cp -r down's jupyter.LinkCheck: it runs jupyter.LinkCode
// on rf's runtime through execute_code, in a session of colabdash's own
// (inSession), and reads its answer. The code is given the directory's
// path on the runtime's file system as "/" + its contents path: Colab's
// Jupyter server serves the runtime's root directory. A session that
// could not be closed after a good answer is a note, not a failure.
func (v *verb) linkCheck(rf *runtimeFiles) jupyter.LinkCheck {
	return func(ctx context.Context, remote string) (jupyter.Links, error) {
		code, err := jupyter.LinkCode("/" + remote)
		if err != nil {
			return jupyter.Links{}, err
		}
		var links jupyter.Links
		answered := false
		err = v.inSession(ctx, rf, "to check a directory for symbolic links", func(session string) error {
			res, err := rf.conn.Svc.ExecuteCode(ctx, api.ExecuteCodeRequest{Session: session, Code: code})
			if err != nil {
				return err
			}
			if x := res.ExecutionError; x != nil {
				return errors.New("the check's code failed: " + termtext.Cut(api.OneLine(x.Name+": "+x.Value, 0), 200))
			}
			links, err = jupyter.ParseLinks(res.Stdout)
			answered = err == nil
			return err
		})
		if err != nil && answered {
			v.Note(err.Error())
			return links, nil
		}
		return links, err
	}
}
