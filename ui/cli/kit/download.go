package kit

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/ui/termtext"
)

// Download is one --download RUNTIME_PATH[:LOCAL] of run and wait: Arg
// as typed, Remote the runtime path (absolute: a relative RUNTIME_PATH
// is under /content, never above /), Local where it lands (default ".",
// a leading "~/" expanded) and Dir whether Local is a directory to copy
// into (it exists as one, or ends in "/").
type Download struct {
	Arg, Remote, Local string
	Dir                bool
}

// ParseDownload reads one --download argument. Errors (ExitUsage): no
// RUNTIME_PATH.
func ParseDownload(arg string) (Download, error) {
	remote, local, _ := strings.Cut(arg, ":")
	if strings.TrimSpace(remote) == "" {
		return Download{}, &ExitError{Code: ExitUsage, Msg: "--download " + termtext.Cut(arg, 200) + ": no RUNTIME_PATH (e.g. --download outputs/model.pt:./model.pt)"}
	}
	if local == "" {
		local = "."
	}
	local = ExpandHome(local)
	st, err := os.Stat(local)
	return Download{Arg: arg, Remote: "/" + jupyter.ResolvePath(remote), Local: local,
		Dir: strings.HasSuffix(local, "/") || (err == nil && st.IsDir())}, nil
}

// CheckLocal refuses, before anything starts, a download that could not
// land: a directory to land in that does not exist, or (unless force) a
// landing place that exists (Local, or Local/NAME when Local is a
// directory). Refused only at the end, the results would be left on a
// runtime about to be deleted. nothing words what did not happen ("nothing
// started", "nothing was waited for"). Errors: ExitUsage.
func (d Download) CheckLocal(force bool, nothing string) error {
	target, dir := d.Local, filepath.Dir(filepath.Clean(d.Local))
	if d.Dir {
		target, dir = filepath.Join(d.Local, path.Base(d.Remote)), d.Local
	}
	arg := termtext.Cut(d.Arg, 200)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return &ExitError{Code: ExitUsage, Msg: "--download " + arg + ": no directory " + termtext.Cut(dir, 200) +
			" here to copy into; " + nothing + " (create it first: mkdir -p " + termtext.Cut(dir, 200) + ")"}
	}
	if _, err := os.Lstat(target); err != nil || force {
		return nil
	}
	return &ExitError{Code: ExitUsage, Msg: "--download " + arg + ": " + termtext.Cut(target, 200) +
		" exists and would be replaced; " + nothing + " (--force replaces local files)"}
}

// RemoteMissing reports whether a --download failed because the runtime
// has no such path (Jupyter's 404, or a hidden name), not for a local
// reason such as a missing local directory, which is a failure.
func RemoteMissing(err error) bool {
	var je *jupyter.Error
	return errors.As(err, &je) && (je.Kind == jupyter.ErrNotFound || je.Kind == jupyter.ErrHidden)
}

// MissingError is the failure of --download paths the runtime lacks
// (RemoteMissing) after a job that succeeded: exit 7 (ExitPartial),
// naming them, since a script must not go on as if its results had come
// back.
func MissingError(paths []string) *ExitError {
	return &ExitError{Code: ExitPartial, Msg: "--download " + termtext.Cut(strings.Join(paths, ", "), 200) + ": not on the runtime, nothing copied"}
}
