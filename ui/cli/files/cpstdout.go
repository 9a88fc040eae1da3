package files

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/termtext"
)

// noParentFix is the fix line of an upload whose remote directory does
// not exist: cp makes no directory for a file.
const noParentFix = "fix: cp does not create directories: copy into one that exists (colabdash ls RUNTIME:DIR), " +
	"or copy a local directory with cp -r DIR RUNTIME:PATH, which creates DIR there"

// dashArgs checks cp's "-" arguments: "-" as DST is stdout (one file,
// no -r); "-" as SRC (stdin) is refused, since an upload needs the size
// and a file it can read again. A local file named "-" is "./-".
func dashArgs(args []string, recursive bool) error {
	switch {
	case args[0] == "-":
		return &kit.ExitError{Code: kit.ExitUsage, Msg: "cp cannot upload from stdin (-): save the data to a file and copy that file (a local file named - is ./-)"}
	case args[1] != "-":
		return nil
	case recursive:
		return &kit.ExitError{Code: kit.ExitUsage, Msg: "cp -r cannot copy to stdout (-): it takes one file; copy the directory to a local path"}
	case runtime.GOOS == "windows":
		return &kit.ExitError{Code: kit.ExitUsage, Msg: "cp to stdout (-) is not supported on Windows: copy to a local file (a local file named - is ./-)"}
	}
	return nil
}

// downloadToStdout downloads the remote file src to stdout ("-"): the
// transfer writes it in place, as it writes /dev/stdout, into a pipe
// whose bytes go to stdout as they are (the file's data, not a line of
// colabdash's: they bypass the redactor, as a write to /dev/stdout does).
func (v *verb) downloadToStdout(ctx context.Context, rf *runtimeFiles, src string, opts jupyter.CopyOptions) error {
	var out io.Writer = v.S.Out
	if f, ok := kit.File(v.S.Out); ok {
		out = f
	}
	r, w, err := os.Pipe()
	if err != nil {
		return &jupyter.Error{Op: "download", Kind: jupyter.ErrLocal, Message: err.Error()}
	}
	done := make(chan error, 1)
	go func() {
		_, err := io.Copy(out, r)
		r.Close() // a stdout that stopped taking data fails the writes into the pipe
		done <- err
	}()
	err = rf.jc.DownloadPath(ctx, src, fmt.Sprintf("/dev/fd/%d", w.Fd()), false, opts)
	w.Close()
	if cerr := <-done; cerr != nil && err == nil {
		err = &jupyter.Error{Op: "download", Kind: jupyter.ErrLocal, Message: "writing to stdout: " + cerr.Error()}
	}
	return err
}

// copiedLine is the line said for each file copied, on a terminal's
// stderr only: "SRC → DST (24 B)", with the time and the rate once the
// file took a second or more ("(1.2 GB in 12s, 100.0 MB/s)").
func copiedLine(r jupyter.FileResult) string {
	what := state.FormatBytes(r.Bytes)
	if s := r.Duration.Seconds(); s >= 1 {
		what += " in " + state.FormatDuration(r.Duration) + ", " + state.FormatBytes(int64(float64(r.Bytes)/s)) + "/s"
	}
	return fmt.Sprintf("%s → %s (%s)", termtext.Line(jupyter.DisplayName(r.Src)), termtext.Line(jupyter.DisplayName(r.Dst)), what)
}

// missingColon, for cp arguments that are both local, suggests the colon
// a runtime id was typed without ("cp x.csv rt-abc12"): an argument with
// no colon, no such local file, and the shape of a runtime id (an id
// holding a hyphen and a digit, as Colab's and the emulator's do; no
// runtime listing is spent on a guess). "" when none fits.
func missingColon(args []string) string {
	for _, a := range args {
		if strings.Contains(a, ":") || api.ValidateID(a) != nil || !strings.Contains(a, "-") || !strings.ContainsAny(a, "0123456789") {
			continue
		}
		if _, err := os.Lstat(a); err == nil || !errors.Is(err, os.ErrNotExist) {
			continue
		}
		return fmt.Sprintf("; did you mean %s: ? (RUNTIME:PATH needs the colon)", a)
	}
	return ""
}
