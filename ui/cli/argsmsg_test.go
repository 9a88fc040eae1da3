package cli

import (
	"strings"
	"testing"
)

// A wrong number of arguments is said in our words, naming what the
// command needs, with exit 2: never cobra's "accepts 2 arg(s)".
func TestWrongArgumentCountIsOurOwnLine(t *testing.T) {
	isolate(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"cp", "rt-x:a"}, "colabdash: cp needs SRC and DST (see colabdash cp --help)\n"},
		{[]string{"cp", "a", "b", "c"}, "colabdash: cp takes SRC and DST, not 3 arguments (see colabdash cp --help)\n"},
		{[]string{"delete"}, "colabdash: delete needs at least one RUNTIME (see colabdash delete --help)\n"},
		{[]string{"session", "open"}, "colabdash: session open needs RUNTIME (see colabdash session open --help)\n"},
		{[]string{"shell"}, "colabdash: shell needs RUNTIME (see colabdash shell --help)\n"},
		// A synopsis of alternatives (logs JOB | RUNTIME/SESSION) needs one of them.
		{[]string{"logs", "-f"}, "colabdash: logs needs JOB or RUNTIME/SESSION (see colabdash logs --help)\n"},
		{[]string{"logs", "a", "b"}, "colabdash: logs takes JOB or RUNTIME/SESSION, not 2 arguments (see colabdash logs --help)\n"},
	} {
		code, _, errs := runCLI(t, tc.args...)
		if code != 2 || errs != tc.want || strings.Contains(errs, "arg(s)") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
	// A command that takes no argument keeps naming the stray word.
	if code, _, errs := runCLI(t, "status", "extra"); code != 2 || !strings.Contains(errs, `unknown command "extra"`) {
		t.Errorf("status extra: exit %d, stderr %q", code, errs)
	}
}
