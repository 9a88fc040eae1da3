package kit

import (
	"context"
	"errors"
	"strings"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/auth"
	"github.com/colabdash/colabdash/api/jupyter"
)

// FileError turns a file-command failure (cp, ls, rm, shell, run's
// uploads and downloads) into its exit code and one line: a
// *jupyter.Error by its kind (2 for a missing -r or a top-level path, 6
// for a missing file, 4 for the runtime or its proxy, 130 when
// interrupted), else as Classify with creds.
func FileError(err error, creds *auth.Credentials) *ExitError {
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee
	}
	var je *jupyter.Error
	if errors.As(err, &je) {
		code := ExitFailure
		switch je.Kind {
		case jupyter.ErrIsDir:
			if je.Message == "" { // a directory named without -r: the flag is missing
				code = ExitUsage
			}
		case jupyter.ErrTopLevel:
			code = ExitUsage
		case jupyter.ErrNotFound, jupyter.ErrHidden, jupyter.ErrNoParent, jupyter.ErrLocalNotFound:
			code = ExitNotFound
		case jupyter.ErrRuntimeGone, jupyter.ErrRefused, jupyter.ErrTransport, jupyter.ErrServer,
			jupyter.ErrRedirect, jupyter.ErrNoConnection:
			code = ExitAPI
		case jupyter.ErrInterrupted:
			code = ExitInterrupted
		}
		return &ExitError{Code: code, Msg: api.OneLine(je.Error(), 0)}
	}
	if errors.Is(err, context.Canceled) {
		return &ExitError{Code: ExitInterrupted, Msg: "interrupted"}
	}
	return Classify(err, creds)
}

// CopiedFile is one file cp (or run's downloads) copied: cp --json's
// files[].
type CopiedFile struct {
	Src     string  `json:"src"`
	Dst     string  `json:"dst"`
	Bytes   int64   `json:"bytes"`
	Seconds float64 `json:"seconds"`
}

// AbsRemote writes a remote path (Jupyter's form, relative to the
// runtime's root: "content/x", "" for the root) as every output of ls, cp
// and rm names it: absolute on the runtime ("/content/x", "/").
func AbsRemote(p string) string { return "/" + jupyter.CleanRemote(p) }

// AbsRemoteArg rewrites a remote side written RUNTIME:PATH in Jupyter's
// form ("rt-abc:content/x", as jupyter.FileResult has it) with PATH
// absolute ("rt-abc:/content/x"). Runtime ids hold no colon.
func AbsRemoteArg(s string) string {
	id, p, ok := strings.Cut(s, ":")
	if !ok {
		return s
	}
	return id + ":" + AbsRemote(p)
}
