package pyemu

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// sleepCtx waits d or until ctx ends, as the emulator's runs do.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// noSleep records the sleeps of an emulated run instead of waiting.
type noSleep struct{ total time.Duration }

func (n *noSleep) sleep(_ context.Context, d time.Duration) error { n.total += d; return nil }

func TestEmulate(t *testing.T) {
	for _, c := range []struct {
		code, stdout, result, errName, errValue string
		slept                                   time.Duration
		errLine                                 string // in the traceback
	}{
		{code: "print(1)", stdout: "1\n"},
		{code: `print("hello, world")`, stdout: "hello, world\n"},
		{code: `print('it\'s')`, stdout: "it's\n"},
		{code: `print("a", 1)`, stdout: "a 1\n"},
		{code: "42", result: "42"},
		{code: "print(6*7)", stdout: "42\n"},
		{code: "print( (2+3) * -4 )", stdout: "-20\n"},
		{code: "2**64", stdout: Prefix + "would run: 2**64\n"}, // a power is not evaluated
		{code: "99999999999999999999*10", result: "999999999999999999990"},
		{code: "print(7 - 2 - 1)", stdout: "4\n"}, // left to right
		{code: "2*3+4*5", result: "26"},           // * before +
		{code: "-(-(3)) * +2", result: "6"},       // unary signs
		{code: "print((1+2)", stdout: Prefix + "would run: print((1+2)\n"},
		{code: "print(6*)", stdout: Prefix + "would run: print(6*)\n"},
		{code: "import torch\ntorch.cuda.is_available()", stdout: Prefix + "would run: torch.cuda.is_available()\n"},
		{code: `raise ValueError("boom")`, errName: "ValueError", errValue: "boom", errLine: "----> 1 "},
		{code: "x = 1\nraise KeyError", errName: "KeyError", errLine: "----> 2 raise KeyError"},
		// Output over time: the sleeps add up; the prints come in order.
		{code: "import time\nfor i in range(3):\n    print(i)\n    time.sleep(2)\nprint('done')",
			stdout: "0\n1\n2\ndone\n", slept: 6 * time.Second},
		{code: "for i in range(2): print(i); sleep(0.5)", stdout: "0\n1\n", slept: time.Second},
		// A long run is capped.
		{code: "time.sleep(86400)", slept: MaxSleep},
		// Any statement that fails raises there; what ran before stays.
		{code: "print('before')\n1/0\nprint('after')", stdout: "before\n", errName: "ZeroDivisionError",
			errValue: "division by zero", errLine: "----> 2 1/0"},
		{code: "print(1); assert False, 'nope'", stdout: "1\n", errName: "AssertionError", errValue: "nope"},
		// A ";" inside a string literal or brackets separates nothing.
		{code: `print("a;b"); print('c;d')`, stdout: "a;b\nc;d\n"},
		{code: `print("\033[1;31mred\033[0m")`, stdout: "\x1b[1;31mred\x1b[0m\n"},
		{code: "for i in range(5):\n    print(i)\n    if_bad = 1\n    raise StopIteration", stdout: "0\n", errName: "StopIteration"},
	} {
		var ns noSleep
		res, err := Run(context.Background(), c.code, ns.sleep)
		if err != nil {
			t.Fatalf("%q: %v", c.code, err)
		}
		if res.Stdout != c.stdout || res.Result != c.result || ns.total != c.slept {
			t.Errorf("%q: stdout %q result %q slept %v, want %q %q %v", c.code, res.Stdout, res.Result, ns.total, c.stdout, c.result, c.slept)
		}
		xerr := res.ExecutionError
		switch {
		case c.errName == "" && xerr != nil:
			t.Errorf("%q: unexpected error %+v", c.code, xerr)
		case c.errName != "" && (xerr == nil || xerr.Name != c.errName || xerr.Value != c.errValue || len(xerr.Traceback) == 0):
			t.Errorf("%q: error %+v, want %s(%q)", c.code, xerr, c.errName, c.errValue)
		case c.errLine != "" && !strings.Contains(ansi.Strip(strings.Join(xerr.Traceback, "\n")), c.errLine):
			t.Errorf("%q: the traceback does not point at the failing line %q: %q", c.code, c.errLine, xerr.Traceback)
		}
	}
}

// A stopped run (its session deleted) ends at once with the sleep's error.
func TestEmulateStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Run(ctx, "print(1)\ntime.sleep(600)\nprint(2)", sleepCtx)
	if err == nil || res.Stdout != "1\n" {
		t.Fatalf("stopped run: %+v, %v", res, err)
	}
}
