package kit

import (
	"fmt"
	"io"
	"strings"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/termtext"
)

// PrintExecOutput writes what code run by execute_code printed, as exec
// and run show it in text: its stdout (and the value of its last
// expression) on stdout, its stderr on stderr, a note for a truncated
// output and for each rich output, and the traceback of the error it
// raised, if any, on stderr.
func (v *Verb) PrintExecOutput(res api.ExecuteCodeResult) {
	out := res.Stdout
	if res.Result != "" {
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		out += res.Result + "\n"
	}
	v.program(v.S.Out, v.S.OutTTY, out)
	v.program(v.S.Err, v.S.ErrTTY, res.Stderr)
	if res.OutputTruncated {
		v.Note("the server truncated the output (the end is kept)")
	}
	for _, ro := range res.RichOutputs {
		what := strings.Join(ro.MimeTypes, ", ")
		if ro.FilePath != "" {
			v.Note(fmt.Sprintf("rich output %d (%s) is on the runtime at %s", ro.Index, termtext.Cut(what, 80), termtext.Line(ro.FilePath)))
		} else {
			v.Note(fmt.Sprintf("rich output %d (%s) was dropped by the server", ro.Index, termtext.Cut(what, 80)))
		}
	}
	xe := res.ExecutionError
	if xe == nil {
		return
	}
	tb := make([]string, 0, len(xe.Traceback)+1)
	for _, frame := range xe.Traceback {
		tb = append(tb, strings.TrimRight(termtext.Output(frame), "\n"))
	}
	if len(tb) == 0 {
		tb = append(tb, termtext.Line(xe.Line()))
	}
	v.Mu.Lock()
	fmt.Fprintln(v.S.Err, v.Red().Redact(strings.Join(tb, "\n")))
	v.Mu.Unlock()
}

// program writes the code's own output to w: the exact bytes into a pipe
// or file; on a terminal sanitized and redacted like any server text.
func (v *Verb) program(w io.Writer, tty bool, s string) {
	if s == "" {
		return
	}
	if tty {
		s = v.Red().Redact(termtext.Output(s))
	}
	v.Mu.Lock()
	defer v.Mu.Unlock()
	io.WriteString(w, s)
}

// MaxCode bounds the code exec and run read from a file or stdin (1 MiB).
const MaxCode = 1 << 20
