package transfer

import (
	"errors"
	"fmt"
	"strings"

	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// skip is one entry a recursive download did not copy: its remote path
// and why, as the error kind the download ends with (proxy.ErrLocal: refused
// for what is in its place locally; proxy.ErrSkipped: the server would not
// serve it; proxy.ErrBadListing: the listing named it twice or looped).
type skip struct {
	remote string
	kind   error
}

// note records an entry that was not copied, after its warning: the
// walk goes on, and incomplete makes the download fail at the end.
func (w *walker) note(remote string, kind error) {
	w.skipped = append(w.skipped, skip{remote, kind})
}

// refuse warns that an entry was refused locally (e names it: a link or
// something else in its place below the destination) and records it.
func (w *walker) refuse(e *proxy.Error) {
	w.o.warn("not copied: %s", e.Error())
	w.note(e.Path, proxy.ErrLocal)
}

// skip reports whether a failure to copy the listed entry remote is one
// the rest of a recursive download goes on after: Jupyter itself
// answered that the entry it had just listed does not exist (deleted
// meanwhile, a dangling or unreadable link; a 404 fingerprinted as
// Jupyter's, field case 75) or that it may not read it (field case 65).
// Such an entry gets one warning naming it and is recorded for the error
// the download ends with. Any other failure (network, runtime gone, a
// local error) stops the walk.
func (w *walker) skip(remote string, err error) bool {
	var je *proxy.Error
	if !errors.As(err, &je) || (je.Kind != proxy.ErrNotFound && je.Kind != proxy.ErrHidden && je.Kind != proxy.ErrPermission) {
		return false
	}
	why := "the runtime's Jupyter server listed it but answers that it does not exist (deleted meanwhile, or a link it cannot follow)"
	if je.Kind == proxy.ErrPermission {
		why = "the runtime's Jupyter server listed it but may not read it (permission denied)"
	}
	w.o.warn("skipped %s:%s: %s", w.c.id, proxy.DisplayName("/"+proxy.CleanRemote(remote)), why)
	w.note(remote, proxy.ErrSkipped)
	return true
}

// incomplete is the error a recursive download of src ends with when
// entries were not copied (nil when none were): one line counting them
// and naming the first few, of the first one's kind (each was warned
// about as it happened).
func (w *walker) incomplete(src string) error {
	if len(w.skipped) == 0 {
		return nil
	}
	names := make([]string, 0, 4)
	for i, s := range w.skipped {
		if i == 3 {
			names = append(names, "…")
			break
		}
		names = append(names, proxy.DisplayName("/"+proxy.CleanRemote(s.remote)))
	}
	n := len(w.skipped)
	return &proxy.Error{Op: "download", Runtime: w.c.id, Path: src, Kind: w.skipped[0].kind,
		Message: fmt.Sprintf("%d %s not copied, each named above; the rest was copied: %s", n, plural(n, "entry", "entries"), strings.Join(names, ", "))}
}
