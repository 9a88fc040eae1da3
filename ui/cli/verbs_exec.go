package cli

// Why this file is over 400 lines: exec's run, reattach, detach and stop paths share one state machine.

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/safefile"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/termtext"
)

// maxCode bounds the code exec reads from -f FILE or stdin (1 MiB).
const maxCode = 1 << 20

// maxExecDrops is how many execute_code calls in a row may fail with a
// dropped connection (UNAVAILABLE, each after the client's own retries)
// before exec gives up and says how to reattach; execDropWait is the wait
// after the first, doubled for each further one (1 s, 2 s … 16 s: half a
// minute of outage is ridden out). DEADLINE_EXCEEDED, the server's 600 s
// cut-off, is no failure: exec reattaches until --timeout. Variables so
// tests need not wait.
var (
	maxExecDrops = 5
	execDropWait = time.Second
)

// execReport is the JSON of `colabdash exec --json`: ExecuteCodeResult
// (colab-api.md §2.7) with every field present. ExecutionError is null
// unless the code raised; its traceback is as the server sent it (ANSI
// colours included). RichOutputs is [] when there are none.
type execReport struct {
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
		if len(c.value) <= 200 && printsAsItself(c.value, nil) {
			return []string{"-c", c.value}, false
		}
	}
	return []string{"-"}, true
}

func execCmd(g *globalFlags, s *streams) *cobra.Command {
	v := newVerb(g, s, "exec")
	var o execOptions
	cmd := &cobra.Command{
		Use:   "exec TARGET (-c CODE | -f FILE | -)",
		Short: "Run Python on a runtime; its output becomes ours",
		Long: "exec runs Python with execute_code. TARGET is a session (RUNTIME/SESSION: the code shares its\n" +
			"kernel state) or a runtime (a new session colabdash-… is opened; its name is printed on stderr so\n" +
			"later runs can reuse it). The code's stdout and stderr go to ours when execute_code returns them;\n" +
			"the last expression's value follows on stdout. An exception prints its traceback on stderr and\n" +
			"exits 1. On a terminal, server text is sanitized; into a pipe or file the code's stdout and stderr\n" +
			"are the exact bytes.\n\n" +
			"Every run has an executionId: when the server cuts a call off (600 s) or the connection drops,\n" +
			"exec repeats the identical call, which reattaches to the running code. ctrl+c asks whether to\n" +
			"stop the code (closing its session, whose state is lost) or detach (it keeps running; exec\n" +
			"prints the command that reattaches); without a terminal, ctrl+c and SIGTERM detach. --timeout\n" +
			"detaches the same way.\n" + exitCodesHelp,
		Example: "  colabdash exec rt-abc -c 'print(6*7)'\n" +
			"  colabdash exec rt-abc/colabdash-1a2b3c4d -f train.py --timeout 2h\n" +
			"  echo 'import sys; print(sys.version)' | colabdash exec rt-abc -\n" +
			"  colabdash exec rt-abc -c '1/0' --json | jq .executionError.name",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 || len(args) == 2 && args[1] != "-" {
				return &exitError{exitUsage, "exec takes TARGET and then -c CODE, -f FILE or - (stdin)"}
			}
			return nil
		},
		ValidArgsFunction: v.completeRuntimes,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.codeGiven = cmd.Flags().Changed("code")
			return v.exec(cmd, args, o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.code, "code", "c", "", "the Python code to run")
	f.StringVarP(&o.file, "file", "f", "", "run the Python code in FILE (at most 1 MiB)")
	durationVar(f, &o.timeout, "timeout", 0, false, "stop waiting after this long and detach (the code keeps running); 0: no limit")
	f.StringVar(&o.executionID, "execution-id", "", "reattach to the execution with this id (TARGET: the session it runs in); it runs if it never started")
	f.BoolVar(&v.asJSON, "json", false, "print JSON (schema in README, Scripting)")
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
		return "", codeSource{}, &exitError{exitUsage, "give the code one way: -c CODE, -f FILE or - (stdin)"}
	}
	var (
		code string
		src  codeSource
	)
	switch {
	case o.codeGiven:
		code, src = o.code, codeSource{"-c", o.code}
	case o.file != "":
		b, err := safefile.Read(expandHome(o.file), maxCode, 0)
		if err != nil {
			return "", codeSource{}, &exitError{exitUsage, "-f: " + err.Error()}
		}
		code, src = string(b), codeSource{"-f", o.file}
	default:
		b, err := v.readStdin(ctx)
		if ctx.Err() != nil {
			return "", codeSource{}, &exitError{exitInterrupted, "interrupted while reading the code from stdin; nothing was run"}
		}
		if err != nil {
			return "", codeSource{}, &exitError{exitUsage, "reading the code from stdin: " + err.Error()}
		}
		if len(b) > maxCode {
			return "", codeSource{}, &exitError{exitUsage, "the code on stdin is longer than 1 MiB"}
		}
		code, src = string(b), codeSource{"-", ""}
	}
	if strings.TrimSpace(code) == "" {
		return "", codeSource{}, &exitError{exitUsage, "no code to run (it is empty)"}
	}
	return code, src, nil
}

// readStdin reads all of stdin, at most maxCode+1 bytes. The read runs in
// a goroutine so ctx's end returns at once (with ctx.Err()): a terminal,
// or a pipe nobody writes to or closes, would hold it forever. On a
// terminal it first says what it waits for.
func (v *verb) readStdin(ctx context.Context) ([]byte, error) {
	if v.s.inTTY && v.s.errTTY {
		v.note("reading the code from the terminal: ctrl+d on a line of its own ends it, ctrl+c cancels")
	}
	type read struct {
		b   []byte
		err error
	}
	ch := make(chan read, 1)
	in := v.s.in
	go func() {
		b, err := io.ReadAll(io.LimitReader(in, maxCode+1))
		ch <- read{b, err}
	}()
	select {
	case r := <-ch:
		return r.b, r.err
	case <-ctx.Done():
		if v.s.inTTY {
			v.mu.Lock()
			fmt.Fprintln(v.s.err) // off the line the "^C" was echoed on
			v.mu.Unlock()
		}
		return nil, ctx.Err()
	}
}

func (v *verb) exec(cmd *cobra.Command, args []string, o execOptions) error {
	code, src, err := v.readCode(cmd.Context(), args, o)
	if err != nil {
		return err
	}
	if o.executionID != "" {
		if _, err := uuid.Parse(o.executionID); err != nil {
			return &exitError{exitUsage, "--execution-id must be the UUID an earlier exec printed"}
		}
	}
	// ctrl+c is this command's own business from here on: the first one
	// asks (or detaches), so the calls must not die with the process's
	// context.
	var sigs <-chan os.Signal
	if v.s.interrupts != nil {
		ch, stop := v.s.interrupts()
		defer stop()
		sigs = ch
	}
	v.s.signals.own() // a ctrl+c answered "keep waiting" does not end the run
	base := context.WithoutCancel(cmd.Context())
	prep, cancelPrep := context.WithCancel(base)
	defer cancelPrep()
	watching := make(chan struct{})
	go func() {
		defer close(watching)
		select {
		case sig := <-sigs:
			v.s.signals.record(sig)
			cancelPrep() // ctrl+c before the code was sent: just stop
		case <-prep.Done():
		}
	}()
	conn, err := v.connect(base)
	if err != nil {
		return err
	}
	// detached: the command leaves a run going server-side. Closing the
	// MCP session then is not waited for: the server may hold its DELETE
	// until the abandoned call has noticed it was cancelled, and go-sdk
	// waits up to 5 s for it, so ctrl+c, d took 5 s to detach.
	detached := false
	defer func() {
		if detached {
			go conn.close()
			return
		}
		conn.close()
	}()
	session, err := v.execTarget(prep, conn, args[0], o)
	interrupted := prep.Err() != nil
	cancelPrep()
	<-watching // from here on the signals are the loop's below
	switch {
	case interrupted:
		return &exitError{exitInterrupted, "interrupted before the code was sent"}
	case err != nil:
		return err
	}

	req := api.ExecuteCodeRequest{Session: session, Code: code, ExecutionID: o.executionID}
	if req.ExecutionID == "" {
		req.ExecutionID = uuid.NewString()
	}
	hint := v.g.reattachHint(session, req.ExecutionID, src)
	if v.s.errTTY {
		v.note("running on " + sessionRef(session) + " (executionId " + req.ExecutionID + "); ctrl+c to stop or detach")
	}

	type outcome struct {
		res api.ExecuteCodeResult
		err error
	}
	done := make(chan outcome, 1)
	callCtx, cancelCall := context.WithCancel(base)
	defer cancelCall()
	go func() {
		res, err := v.runCode(callCtx, conn, req)
		done <- outcome{res, err}
	}()
	// abandon stops waiting for the call and returns err once the call has
	// noticed (nothing writes to stderr behind our back afterwards).
	abandon := func(err error) error {
		cancelCall()
		<-done
		return err
	}
	// detach abandons the call and leaves the run going: nothing more to
	// wait for.
	detach := func(err error) error {
		detached = true
		return abandon(err)
	}
	var deadline <-chan time.Time
	if o.timeout > 0 {
		t := time.NewTimer(o.timeout)
		defer t.Stop()
		deadline = t.C
	}
	for {
		select {
		case r := <-done:
			return v.execDone(r.res, r.err, session, hint, conn)
		case <-deadline:
			return detach(&exitError{exitAPI, fmt.Sprintf("gave up waiting after --timeout %s; %s", o.timeout, hint)})
		case sig := <-sigs:
			v.s.signals.record(sig)
			// Only ctrl+c asks: SIGTERM (kill) and SIGHUP (the terminal
			// is gone) detach at once.
			if sig != os.Interrupt {
				return detach(&exitError{exitInterrupted, "detached; " + hint})
			}
		}
		if !v.canPrompt() {
			return detach(&exitError{exitInterrupted, "detached; " + hint})
		}
		answer := make(chan string, 1)
		q := "\nStop the code (s: closes session " + sessionRef(session) + ", its state is lost) or detach (d: it keeps running)? "
		// On a terminal one key answers (raw mode, restored on every
		// path); where raw mode cannot be had, a line does.
		kp := v.openKeyPrompt()
		endAsk := func() {
			if kp != nil && kp.close() {
				v.mu.Lock()
				fmt.Fprintln(v.s.err)
				v.mu.Unlock()
			}
		}
		defer endAsk() // a panic too leaves the terminal as it was
		switch {
		case kp == nil:
			go func() {
				a, _, _ := v.ask(base, q+"Type s or d, then Enter (anything else: keep waiting): ")
				answer <- a
			}()
		default:
			// The question first, while line ends still return the
			// carriage; then raw mode.
			v.mu.Lock()
			fmt.Fprint(v.s.err, termtext.Block(v.red().Redact(q+"Press s or d (any other key: keep waiting) ")))
			v.mu.Unlock()
			if kp.raw() != nil {
				kp = nil
				v.mu.Lock()
				fmt.Fprint(v.s.err, "then Enter: ")
				v.mu.Unlock()
				go func() {
					a, _ := v.readLine(base)
					answer <- strings.TrimSpace(a)
				}()
				break
			}
			go func() {
				b, err := kp.read()
				if kp.close() {
					echo := ""
					if err == nil && b > ' ' && b < 0x7f {
						echo = string(rune(b))
					}
					v.mu.Lock()
					fmt.Fprintln(v.s.err, echo)
					v.mu.Unlock()
				}
				if err != nil {
					return
				}
				if b == 0x03 { // ctrl+c in raw mode: a second ctrl+c
					answer <- "ctrl+c"
					return
				}
				answer <- string(rune(b))
			}()
		}
		select {
		case r := <-done:
			endAsk()
			return v.execDone(r.res, r.err, session, hint, conn)
		case <-deadline:
			endAsk()
			return detach(&exitError{exitAPI, fmt.Sprintf("gave up waiting after --timeout %s; %s", o.timeout, hint)})
		case sig := <-sigs: // a second ctrl+c (or SIGTERM): leave at once
			v.s.signals.record(sig)
			endAsk()
			return detach(&exitError{exitInterrupted, "detached; " + hint})
		case a := <-answer:
			switch strings.ToLower(a) {
			case "s":
				abandon(nil)
				ctx, cancel := context.WithTimeout(base, 30*time.Second)
				defer cancel()
				if err := conn.svc.DeleteSession(ctx, session); err != nil {
					return &exitError{exitAPI, "could not stop the code: delete_session: " + classify(err, conn.creds).msg + "; " + hint}
				}
				return &exitError{exitInterrupted, "stopped: closed session " + sessionRef(session)}
			case "d", "ctrl+c":
				return detach(&exitError{exitInterrupted, "detached; " + hint})
			}
			v.note("still waiting")
		}
	}
}

// execTarget resolves TARGET to the session to run in: a session must be
// open; a runtime gets a new session of colabdash's, announced on stderr.
func (v *verb) execTarget(ctx context.Context, conn *connection, target string, o execOptions) (string, error) {
	if r, sid, ok := splitSessionArg(target); ok {
		rt, err := findRuntime(ctx, conn, r)
		if err != nil {
			return "", err
		}
		name := rt.Name + "/sessions/" + sid
		if err := v.checkListed(ctx, conn, map[string][]api.Session{}, rt, name); err != nil {
			return "", err
		}
		return name, nil
	}
	if o.executionID != "" {
		return "", &exitError{exitUsage, "--execution-id needs the session the execution runs in as TARGET (RUNTIME/SESSION)"}
	}
	rt, err := findRuntime(ctx, conn, target)
	if err != nil {
		return "", err
	}
	se, err := conn.svc.CreateSession(ctx, rt.Name, state.NewSessionID())
	if err != nil {
		return "", classify(err, conn.creds)
	}
	ref := sessionRef(se.Name)
	v.note("opened session " + ref + " (reuse it as TARGET); " + v.g.closeSessionHint(se.Name))
	return se.Name, nil
}

// runCode calls execute_code, repeating the identical call (same session,
// executionId and code) while it is cut off or the connection drops.
func (v *verb) runCode(ctx context.Context, conn *connection, req api.ExecuteCodeRequest) (api.ExecuteCodeResult, error) {
	drops := 0
	for {
		res, err := conn.svc.ExecuteCode(ctx, req)
		ae := asAPIError(err)
		if err == nil || ctx.Err() != nil || ae == nil || !ae.Reattachable() {
			return res, err
		}
		wait := time.Duration(0)
		if ae.Code == api.Unavailable {
			if drops++; drops > maxExecDrops {
				return res, err
			}
			wait = execDropWait << (drops - 1)
		} else {
			drops = 0
		}
		if v.s.errTTY {
			v.note("reattaching to the running code (" + string(ae.Code) + "; same executionId)")
		}
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(wait):
		}
	}
}

// execDone prints what the code did and returns the exit code: 0, or 1
// when the code raised.
func (v *verb) execDone(res api.ExecuteCodeResult, err error, session, hint string, conn *connection) error {
	if err != nil {
		ee := classify(err, conn.creds)
		if ae := asAPIError(err); ae != nil && ae.Reattachable() {
			ee.msg += "; " + hint
		}
		return ee
	}
	if res.Session == "" {
		res.Session = session
	}
	if v.asJSON {
		rep := execReport{Session: res.Session, ExecutionID: res.ExecutionID, ExecutionCount: res.ExecutionCount,
			Stdout: res.Stdout, Stderr: res.Stderr, Result: res.Result, ExecutionError: res.ExecutionError,
			OutputTruncated: res.OutputTruncated, RichOutputs: res.RichOutputs}
		if rep.RichOutputs == nil {
			rep.RichOutputs = []api.RichOutput{}
		}
		if err := v.writeJSON(rep); err != nil {
			return err
		}
	} else {
		out := res.Stdout
		if res.Result != "" {
			if out != "" && !strings.HasSuffix(out, "\n") {
				out += "\n"
			}
			out += res.Result + "\n"
		}
		v.program(v.s.out, v.s.outTTY, out)
		v.program(v.s.err, v.s.errTTY, res.Stderr)
		if res.OutputTruncated {
			v.note("the server truncated the output (the end is kept)")
		}
		for _, ro := range res.RichOutputs {
			what := strings.Join(ro.MimeTypes, ", ")
			if ro.FilePath != "" {
				v.note(fmt.Sprintf("rich output %d (%s) is on the runtime at %s", ro.Index, termtext.Cut(what, 80), termtext.Line(ro.FilePath)))
			} else {
				v.note(fmt.Sprintf("rich output %d (%s) was dropped by the server", ro.Index, termtext.Cut(what, 80)))
			}
		}
	}
	xe := res.ExecutionError
	if xe == nil {
		return nil
	}
	if !v.asJSON {
		tb := make([]string, 0, len(xe.Traceback)+1)
		for _, frame := range xe.Traceback {
			tb = append(tb, strings.TrimRight(termtext.Output(frame), "\n"))
		}
		if len(tb) == 0 {
			tb = append(tb, termtext.Line(xe.Name+": "+xe.Value))
		}
		v.mu.Lock()
		fmt.Fprintln(v.s.err, v.red().Redact(strings.Join(tb, "\n")))
		v.mu.Unlock()
	}
	return &exitError{exitPartial, ""}
}

// program writes the code's own output to w: the exact bytes into a pipe
// or file; on a terminal sanitized and redacted like any server text.
func (v *verb) program(w io.Writer, tty bool, s string) {
	if s == "" {
		return
	}
	if tty {
		s = v.red().Redact(termtext.Output(s))
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	io.WriteString(w, s)
}
