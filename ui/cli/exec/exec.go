package exec

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/safefile"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// MaxCode bounds the code exec reads from -f FILE or stdin (1 MiB).
const MaxCode = kit.MaxCode

// Report is the JSON of `colabdash exec --json`: ExecuteCodeResult
// with every field present. ExecutionError is null
// unless the code raised; its traceback is as the server sent it (ANSI
// colours included). RichOutputs is [] when there are none.
type Report struct {
	kit.Envelope
	Session         string            `json:"session"`
	ExecutionID     string            `json:"executionId"`
	ExecutionCount  int               `json:"executionCount"`
	Stdout          string            `json:"stdout"`
	Stderr          string            `json:"stderr"`
	Result          string            `json:"result"`
	ExecutionError  *api.ExecuteError `json:"executionError"`
	OutputTruncated bool              `json:"outputTruncated"`
	RichOutputs     []api.RichOutput  `json:"richOutputs"`
}

// execOptions are exec's flags.
type execOptions struct {
	code, file  string
	codeGiven   bool
	timeout     time.Duration
	executionID string
	session     string // --session ID: run in this open session of TARGET
	keep        bool   // --keep: leave the session exec opens open afterwards
	rm          bool   // --rm (hidden, deprecated: closing is the default): close even a named session of colabdash's
}

// codeSource is where the code came from, to say how to run it again.
type codeSource struct {
	flag, value string // "-c", "-f" or "-"
}

// again is the words that give the same code again, after exec's TARGET
// and --execution-id: -f FILE, or -c CODE for short one-line code. Code
// that would not print as one line (long, several lines, a control
// character) is given on stdin instead: the words are "-" and stdin is
// true, and the line says so.
func (c codeSource) again() (words []string, stdin bool) {
	switch c.flag {
	case "-f":
		return []string{"-f", c.value}, false
	case "-c":
		if len(c.value) <= 200 && kit.PrintsAsItself(c.value, nil) {
			return []string{"-c", c.value}, false
		}
	}
	return []string{"-"}, true
}

// Command is `colabdash exec`: run Python code on a runtime's kernel.
func Command(g *kit.Globals, s *kit.Streams) *cobra.Command {
	v := newVerb(g, s, "exec")
	var o execOptions
	cmd := &cobra.Command{
		Use:   "exec TARGET (-c CODE | -f FILE | -)",
		Short: "Run Python on a runtime; its output becomes ours",
		Long: "exec runs Python with execute_code. TARGET is a session (RUNTIME/SESSION: the code shares its\n" +
			"kernel state) or a runtime (a new session colabdash-… is opened for this run alone). The code's stdout and stderr go to ours when execute_code returns them;\n" +
			"the last expression's value follows on stdout. An exception prints its traceback on stderr and\n" +
			"exits 1; sys.exit(n) exits n as python does (sys.exit() 0, sys.exit(\"msg\") prints msg and exits 1).\n" +
			"On a terminal, server text is sanitized; into a pipe or file the code's stdout and stderr\n" +
			"are the exact bytes.\n\n" +
			"A session exec opens is CLOSED when exec ends (finished, failed, interrupted or timed out), as\n" +
			"docker exec leaves nothing behind: its kernel and state go with it. --keep leaves it open (its name\n" +
			"and how to reuse it are printed on stderr). --session ID runs in an open session of TARGET instead\n" +
			"(TARGET/ID does the same); a session you name is never closed.\n\n" +
			"Every run has an executionId: when the server cuts a call off (600 s) or the connection drops,\n" +
			"exec repeats the identical call, which reattaches to the running code. ctrl+c interrupts the\n" +
			"kernel, as jupyter console does: the code raises KeyboardInterrupt and exec exits 130 (a kept or\n" +
			"named session keeps its state). In a kept or named session a second ctrl+c asks whether to stop\n" +
			"the code (closing its session, whose state is lost) or detach (it keeps running; exec prints the\n" +
			"command that reattaches and the one that closes the session); without a terminal it detaches.\n" +
			"SIGTERM and SIGHUP detach at once; --timeout detaches the same way (exit 124). In a session exec\n" +
			"opened and did not keep, each of these stops the code by closing the session instead.\n" + kit.JSONHelp + "\n" + kit.ExitCodesHelp,
		Example: "  colabdash exec rt-abc -c 'print(6*7)'\n" +
			"  colabdash exec rt-abc/colabdash-1a2b3c4d -f train.py --timeout 2h\n" +
			"  colabdash exec rt-abc --session colabdash-1a2b3c4d -c 'print(x)'   # the same session again\n" +
			"  colabdash exec rt-abc --keep -c 'x = 6*7'                         # its session stays open\n" +
			"  echo 'import sys; print(sys.version)' | colabdash exec rt-abc -\n" +
			"  colabdash exec rt-abc -c '1/0' --json | jq .executionError.name",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 || len(args) == 2 && args[1] != "-" {
				if len(args) == 0 && cmd.Flags().Changed("session") {
					return &kit.ExitError{Code: kit.ExitUsage, Msg: "--session needs the RUNTIME as TARGET: exec RUNTIME --session ID"}
				}
				return &kit.ExitError{Code: kit.ExitUsage, Msg: "exec takes TARGET and then -c CODE, -f FILE or - (stdin)"}
			}
			return nil
		},
		ValidArgsFunction: v.CompleteRuntimes,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.codeGiven = cmd.Flags().Changed("code")
			return v.exec(cmd, args, o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.code, "code", "c", "", "the Python code to run")
	f.StringVarP(&o.file, "file", "f", "", "run the Python code in FILE (at most 1 MiB)")
	kit.DurationVar(f, &o.timeout, "timeout", 0, false, "stop waiting after this long: a kept or named session is left running, one exec opened is closed; 0: no limit")
	f.StringVar(&o.session, "session", "", "run in the open session ID of TARGET (as RUNTIME/ID), keeping its state")
	f.BoolVar(&o.keep, "keep", false, "leave the session exec opens open afterwards, to reuse with --session")
	f.BoolVar(&o.rm, "rm", false, "close the session once the code has run")
	_ = f.MarkHidden("rm") // the default now; kept so scripts that pass it still run
	f.StringVar(&o.executionID, "execution-id", "", "reattach to the execution with this id (TARGET: the session it runs in); it runs if it never started")
	v.JSONFlags(cmd, "print JSON (schema: docs/scripting.md)")
	return cmd
}

// readCode returns the code to run and where it came from. Reading stdin
// (-) ends when ctx does (ctrl+c, SIGTERM: exit code 130), even when
// nothing was written to it.
func (v *verb) readCode(ctx context.Context, args []string, o execOptions) (string, codeSource, error) {
	n := 0
	for _, b := range []bool{o.codeGiven, o.file != "", len(args) == 2} {
		if b {
			n++
		}
	}
	if n != 1 {
		return "", codeSource{}, &kit.ExitError{Code: kit.ExitUsage, Msg: "give the code one way: -c CODE, -f FILE or - (stdin)"}
	}
	var (
		code string
		src  codeSource
	)
	switch {
	case o.codeGiven:
		code, src = o.code, codeSource{"-c", o.code}
	case o.file != "":
		b, err := safefile.Read(kit.ExpandHome(o.file), MaxCode, 0)
		if err != nil {
			return "", codeSource{}, &kit.ExitError{Code: kit.ExitUsage, Msg: "-f: " + err.Error()}
		}
		code, src = string(b), codeSource{"-f", o.file}
	default:
		b, err := v.readStdin(ctx)
		if ctx.Err() != nil {
			return "", codeSource{}, &kit.ExitError{Code: kit.ExitInterrupted, Msg: "interrupted while reading the code from stdin; nothing was run"}
		}
		if err != nil {
			return "", codeSource{}, &kit.ExitError{Code: kit.ExitUsage, Msg: "reading the code from stdin: " + err.Error()}
		}
		if len(b) > MaxCode {
			return "", codeSource{}, &kit.ExitError{Code: kit.ExitUsage, Msg: "the code on stdin is longer than 1 MiB"}
		}
		code, src = string(b), codeSource{"-", ""}
	}
	if strings.TrimSpace(code) == "" {
		return "", codeSource{}, &kit.ExitError{Code: kit.ExitUsage, Msg: "no code to run (it is empty)"}
	}
	return code, src, nil
}

// readStdin reads all of stdin, at most maxCode+1 bytes. The read runs in
// a goroutine so ctx's end returns at once (with ctx.Err()): a terminal,
// or a pipe nobody writes to or closes, would hold it forever. On a
// terminal it first says what it waits for.
func (v *verb) readStdin(ctx context.Context) ([]byte, error) {
	if v.S.InTTY && v.S.ErrTTY {
		v.Note("reading the code from the terminal: ctrl+d on a line of its own ends it, ctrl+c cancels")
	}
	type read struct {
		b   []byte
		err error
	}
	ch := make(chan read, 1)
	in := v.S.In
	go func() {
		b, err := io.ReadAll(io.LimitReader(in, MaxCode+1))
		ch <- read{b, err}
	}()
	select {
	case r := <-ch:
		return r.b, r.err
	case <-ctx.Done():
		if v.S.InTTY {
			v.Mu.Lock()
			fmt.Fprintln(v.S.Err) // off the line the "^C" was echoed on
			v.Mu.Unlock()
		}
		return nil, ctx.Err()
	}
}
