package kit

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Every exit code of the table has its own word, 128 + any signal is
// "interrupted", and a failure's message is redacted.
func TestCodeWordsAndFailure(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range ExitCodes {
		if seen[r.Word] || CodeWord(r.Code) != r.Word {
			t.Errorf("code %d: word %q (seen before: %v)", r.Code, CodeWord(r.Code), seen[r.Word])
		}
		seen[r.Word] = true
	}
	for _, c := range []int{129, 130, 143} {
		if CodeWord(c) != "interrupted" {
			t.Errorf("CodeWord(%d) = %q", c, CodeWord(c))
		}
	}
	red := testVerb(nil, &bytes.Buffer{}, &bytes.Buffer{}).Red()
	env := Failure(&ExitError{Code: ExitNotFound, Msg: "no runtime " + secret}, red)
	if env.OK || env.Error.Code != "not_found" || strings.Contains(env.Error.Message, secret) {
		t.Errorf("Failure: %+v", env.Error)
	}
	if env := Failure(errors.New("plain"), red); env.Error.Code != "failed" || env.Error.Message != "plain" {
		t.Errorf("Failure of a plain error: %+v", env.Error)
	}
	if NameOf("rt-a") != "runtimes/rt-a" || NameOf("runtimes/rt-a") != "runtimes/rt-a" || NameOf("") != "" {
		t.Error("NameOf does not write runtimes/ID")
	}
}

// --jq: a bad expression fails as the flag is parsed; results are one a
// line, strings bare (sanitized on a terminal), others compact off a
// terminal; the failure envelope is printed once, through the filter.
func TestJQFlag(t *testing.T) {
	run := func(tty bool, expr string, doc any) (string, error) {
		var out bytes.Buffer
		v := testVerb(nil, &out, &bytes.Buffer{})
		v.S.OutTTY = tty
		cmd := &cobra.Command{Use: "x"}
		v.JSONFlags(cmd, "json")
		if err := cmd.Flags().Set("jq", expr); err != nil {
			return "", err
		}
		if !v.AsJSON || !v.S.JSON().On {
			t.Fatalf("--jq %q did not imply --json", expr)
		}
		err := v.WriteJSON(doc)
		return out.String(), err
	}
	if _, err := run(false, ".a[", nil); err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("bad expression: %v, want one line", err)
	}
	doc := map[string]any{"a": []any{"x\x1b]52;c;AAAA\x07", map[string]any{"b": 1}}}
	if out, err := run(false, ".a[]", doc); err != nil || out != "x\x1b]52;c;AAAA\x07\n{\"b\":1}\n" {
		t.Errorf("off a terminal: %q %v", out, err)
	}
	if out, _ := run(true, ".a[0]", doc); strings.ContainsRune(out, 0x1b) || strings.ContainsRune(out, 0x07) {
		t.Errorf("on a terminal a string from the document drives it: %q", out)
	}
	var ee *ExitError
	if _, err := run(false, ".a | error", doc); !errors.As(err, &ee) || ee.Code != ExitUsage {
		t.Errorf("a failing expression: %v, want exit 2", err)
	}
	// The failure envelope: once, filtered.
	var out bytes.Buffer
	s := &Streams{Out: &out}
	s.JSON().On = true
	WriteFailure(s, &ExitError{Code: ExitUsage, Msg: "bad"}, nil)
	WriteFailure(s, &ExitError{Code: ExitUsage, Msg: "bad"}, nil)
	if strings.Count(out.String(), `"ok": false`) != 1 || !strings.Contains(out.String(), `"code": "usage"`) {
		t.Errorf("failure envelope: %q", out.String())
	}
}
