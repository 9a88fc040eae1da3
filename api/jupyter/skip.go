package jupyter

import (
	"errors"
	"fmt"
	"strings"
)

// ErrSkipped: a recursive download copied everything it could but
// skipped entries the listing named and the server then would not serve
// (see walker.skip); the command fails (exit 1) after the rest is copied.
var ErrSkipped = errors.New("some listed entries were not copied")

func init() { classes[ErrSkipped] = "incomplete" }

// skip reports whether a failure to copy the listed entry remote is one
// the rest of a recursive download goes on after: Jupyter itself
// answered that the entry it had just listed does not exist (deleted
// meanwhile, a dangling or unreadable link; a 404 fingerprinted as
// Jupyter's, field case 75) or that it may not read it (field case 65).
// Such an entry gets one warning naming it and is counted for the error
// the download ends with. Any other failure (network, runtime gone, a
// local error) stops the walk.
func (w *walker) skip(remote string, err error) bool {
	var je *Error
	if !errors.As(err, &je) || (je.Kind != ErrNotFound && je.Kind != ErrHidden && je.Kind != ErrPermission) {
		return false
	}
	why := "the runtime's Jupyter server listed it but answers that it does not exist (deleted meanwhile, or a link it cannot follow)"
	if je.Kind == ErrPermission {
		why = "the runtime's Jupyter server listed it but may not read it (permission denied)"
	}
	w.o.warn("skipped %s:%s: %s", w.c.id, DisplayName("/"+CleanRemote(remote)), why)
	w.skipped = append(w.skipped, remote)
	return true
}

// incomplete is the error a recursive download of src ends with when
// entries were skipped (nil when none were): ErrSkipped, naming the
// first few.
func (w *walker) incomplete(src string) error {
	if len(w.skipped) == 0 {
		return nil
	}
	names := make([]string, 0, 3)
	for i, p := range w.skipped {
		if i == 3 {
			names = append(names, "…")
			break
		}
		names = append(names, DisplayName("/"+CleanRemote(p)))
	}
	return &Error{Op: "download", Runtime: w.c.id, Path: src, Kind: ErrSkipped,
		Message: fmt.Sprintf("%d %s skipped, the rest copied: %s", len(w.skipped), plural(len(w.skipped), "entry", "entries"), strings.Join(names, ", "))}
}
