package files

import (
	"context"

	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/ui/ops"
)

// linkCheck is cp -r down's jupyter.LinkCheck: ops.ListLinks in a
// session of colabdash's own on rf's runtime (inSession). A session that
// could not be closed after a good answer is a note, not a failure.
func (v *verb) linkCheck(rf *runtimeFiles) jupyter.LinkCheck {
	return func(ctx context.Context, remote string) (jupyter.Links, error) {
		var links jupyter.Links
		answered := false
		err := v.inSession(ctx, rf, "to check a directory for symbolic links", func(session string) error {
			var err error
			links, err = ops.ListLinks(ctx, rf.conn.Svc, session, remote)
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
