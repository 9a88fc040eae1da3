package pyemu

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// timeline records a script's run as a process's observer would see it:
// each write ("out:" or "err:" and its text) and each sleep, in order.
type timeline struct{ events []string }

type streamRec struct {
	t    *timeline
	name string
}

func (s streamRec) Write(p []byte) (int, error) {
	s.t.events = append(s.t.events, s.name+":"+string(p))
	return len(p), nil
}

func (tl *timeline) process(argv ...string) Process {
	return Process{File: "/content/train.py", Argv: argv,
		Stdout: streamRec{tl, "out"}, Stderr: streamRec{tl, "err"},
		Sleep: func(_ context.Context, d time.Duration) error {
			tl.events = append(tl.events, "sleep:"+d.String())
			return nil
		}}
}

// A script's output comes out one piece at a time, each when the script
// writes it: a loop's lines are separated by its sleeps, a progress line
// drawn over itself with "\r" and end="" goes out without a newline, and
// a sleep of hours is not capped as a console's run is.
func TestRunScriptWritesAsItGoes(t *testing.T) {
	code := "import sys, time\n" +
		"for epoch in range(2):\n" +
		"    for step in range(2):  # a tqdm-like bar on stderr\n" +
		"        print(f\"\\r{'#' * (step + 1)}{'.' * (1 - step)} {step + 1}/2\", end=\"\", file=sys.stderr, flush=True)\n" +
		"        time.sleep(0.5)\n" +
		"    print(f\"\\repoch {epoch + 1}/2 loss 0.{90 - 5 * epoch}\")\n" +
		"time.sleep(7200)\n" +
		"sys.stdout.write('done\\n')\n"
	var tl timeline
	status, err := RunScript(context.Background(), code, tl.process("train.py"))
	if err != nil || status != 0 {
		t.Fatalf("status %d, %v", status, err)
	}
	want := []string{
		"err:\r#. 1/2", "sleep:500ms", "err:\r## 2/2", "sleep:500ms", "out:\repoch 1/2 loss 0.90\n",
		"err:\r#. 1/2", "sleep:500ms", "err:\r## 2/2", "sleep:500ms", "out:\repoch 2/2 loss 0.85\n",
		"sleep:2h0m0s", "out:done\n",
	}
	if strings.Join(tl.events, "|") != strings.Join(want, "|") {
		t.Fatalf("the script's run:\n%q\nwant\n%q", tl.events, want)
	}
}

// A script ends with the status python gives it: sys.exit(n), exit(n)
// and quit(n) end at once with n (masked to a byte), a message is
// written to stderr and ends with 1, the end of the code is 0.
func TestRunScriptExitStatus(t *testing.T) {
	for _, c := range []struct {
		code, out, err string
		status         int
	}{
		{code: "print('a')\nsys.exit(3)\nprint('never')", out: "a\n", status: 3},
		{code: "exit(4)\nprint('never')", status: 4},
		{code: "for i in range(9):\n    print(i)\n    quit(i + 2)", out: "0\n", status: 2},
		{code: "sys.exit()", status: 0},
		{code: "sys.exit(None)", status: 0},
		{code: "raise SystemExit", status: 0},
		{code: "sys.exit(256 + 7)", status: 7},
		{code: "sys.exit(-1)", status: 255},
		{code: "sys.exit('bad input')", err: "bad input\n", status: 1},
		{code: "print('fine')", out: "fine\n", status: 0},
	} {
		var tl timeline
		status, err := RunScript(context.Background(), c.code, tl.process("x.py"))
		out, errs := tl.streams()
		if err != nil || status != c.status || out != c.out || errs != c.err {
			t.Errorf("%q: status %d (%v) out %q err %q, want %d %q %q", c.code, status, err, out, errs, c.status, c.out, c.err)
		}
	}
}

func (tl *timeline) streams() (out, errs string) {
	for _, ev := range tl.events {
		if s, ok := strings.CutPrefix(ev, "out:"); ok {
			out += s
		} else if s, ok := strings.CutPrefix(ev, "err:"); ok {
			errs += s
		}
	}
	return out, errs
}

// An uncaught exception writes Python's traceback to stderr, pointing at
// the script's file and line, and ends with 1; input() fails at once with
// EOFError after its prompt, as with stdin on /dev/null.
func TestRunScriptExceptions(t *testing.T) {
	for _, c := range []struct{ code, out, err string }{
		{code: "print('loading')\nraise ValueError('bad shape')\nprint('never')", out: "loading\n",
			err: "Traceback (most recent call last):\n  File \"/content/train.py\", line 2, in <module>\n    raise ValueError('bad shape')\nValueError: bad shape\n"},
		{code: "x = 1\n\nraise KeyError", err: "Traceback (most recent call last):\n  File \"/content/train.py\", line 3, in <module>\n    raise KeyError\nKeyError\n"},
		{code: "name = input('name? ')", out: "name? ",
			err: "Traceback (most recent call last):\n  File \"/content/train.py\", line 1, in <module>\n    name = input('name? ')\nEOFError: EOF when reading a line\n"},
		{code: "print(sys.argv[3])", err: "Traceback (most recent call last):\n  File \"/content/train.py\", line 1, in <module>\n    print(sys.argv[3])\nIndexError: list index out of range\n"},
	} {
		var tl timeline
		status, err := RunScript(context.Background(), c.code, tl.process("train.py", "--lr"))
		out, errs := tl.streams()
		if err != nil || status != 1 || out != c.out || errs != c.err {
			t.Errorf("%q: status %d (%v)\nout %q\nerr %q\nwant 1 %q\n%q", c.code, status, err, out, errs, c.out, c.err)
		}
	}
}

// A script sees its own process: __file__ is its path, sys.argv what it
// was started with.
func TestRunScriptArgvAndFile(t *testing.T) {
	var tl timeline
	code := "print(__file__)\nprint(sys.argv)\nprint(len(sys.argv), sys.argv[1], sys.argv[-1])\nprint(f\"args {sys.argv[1:]}\")"
	if _, err := RunScript(context.Background(), code, tl.process("train.py", "--name", "it's")); err != nil {
		t.Fatal(err)
	}
	out, _ := tl.streams()
	want := "/content/train.py\n['train.py', '--name', \"it's\"]\n3 --name it's\nargs ['--name', \"it's\"]\n"
	if out != want {
		t.Fatalf("out %q, want %q", out, want)
	}
}

// A script that ignores SIGTERM says so; a stopped run ends at once with
// the sleep's error, status -1.
func TestRunScriptSignalsAndStop(t *testing.T) {
	var ignored []string
	ctx, cancel := context.WithCancel(context.Background())
	killed := errors.New("killed")
	p := Process{File: "/content/x.py", Argv: []string{"x.py"},
		Signal: func(name string, ign bool) {
			if ign {
				ignored = append(ignored, name)
			}
		},
		Sleep: func(context.Context, time.Duration) error { cancel(); return killed }}
	status, err := RunScript(ctx, "import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(60)\nprint('never')", p)
	if status != -1 || !errors.Is(err, killed) || len(ignored) != 1 || ignored[0] != "SIGTERM" {
		t.Fatalf("status %d, %v, ignored %q", status, err, ignored)
	}
	// A loop that never sleeps still ends when its context does.
	status, err = RunScript(ctx, "for i in range(100000000):\n    print(i)", Process{})
	if status != -1 || err == nil {
		t.Fatalf("a stopped loop: status %d, %v", status, err)
	}
}

// In a console (Run) the same prints are evaluated, and what pyemu cannot
// evaluate still says what would run.
func TestRunPrintsFStringsAndKeywords(t *testing.T) {
	code := "for i in range(2):\n    print(f\"step {i + 1}: {'=' * (i + 1)}>\", end=\" \")\nprint()\nprint('a', 'b', sep='-')\nprint(x)\nprint(sys.argv)"
	res, err := Run(context.Background(), code, (&noSleep{}).sleep)
	if err != nil {
		t.Fatal(err)
	}
	want := "step 1: => step 2: ==> \na-b\n" + Prefix + "would run: print(x)\n" + Prefix + "would run: print(sys.argv)\n"
	if res.Stdout != want {
		t.Fatalf("stdout %q, want %q", res.Stdout, want)
	}
}
