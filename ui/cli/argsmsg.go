package cli

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api/plural"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// ownArgsErrors gives every command below root our wording for a wrong
// number of arguments instead of cobra's ("accepts 2 arg(s), received
// 1"): the command's own checks (an *kit.ExitError) pass as they are;
// cobra's become argsMessage, a usage error (exit 2). A command whose
// synopsis names no argument keeps cobra's "unknown command" line.
func ownArgsErrors(root *cobra.Command) {
	for _, c := range root.Commands() {
		ownArgsErrors(c)
		check := c.Args
		if check == nil {
			continue
		}
		c.Args = func(cmd *cobra.Command, args []string) error {
			err := check(cmd, args)
			if err == nil || errors.As(err, new(*kit.ExitError)) {
				return err
			}
			if msg := argsMessage(cmd, len(args)); msg != "" {
				return &kit.ExitError{Code: kit.ExitUsage, Msg: msg}
			}
			return err
		}
	}
}

// argsMessage is the line for a command given got arguments where its
// synopsis (Use: "cp SRC DST", "delete RUNTIME...") asks for others:
// "cp needs SRC and DST (see colabdash cp --help)", "cp takes SRC and DST,
// not 3 arguments (…)". It is "" when the synopsis names no argument.
func argsMessage(cmd *cobra.Command, got int) string {
	words := strings.Fields(cmd.Use)
	if len(words) < 2 {
		return ""
	}
	var want []string
	or := false // the word before was a lone "|": JOB | RUNTIME/SESSION is one argument
	for _, w := range words[1:] {
		if w == "|" && len(want) > 0 {
			or = true
			continue
		}
		// Only an argument's name (SRC, RUNTIME[:PATH], SESSION...): not a
		// flag, an option in brackets or a choice in parentheses.
		if w == "" || w[0] < 'A' || w[0] > 'Z' || strings.ContainsAny(w, "()|…") {
			or = false
			continue
		}
		if base, ok := strings.CutSuffix(w, "..."); ok {
			w = "at least one " + base
		}
		if or {
			want[len(want)-1] += " or " + w
			or = false
			continue
		}
		want = append(want, w)
	}
	if len(want) == 0 {
		return ""
	}
	path := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	see := " (see " + cmd.CommandPath() + " --help)"
	need := strings.Join(want, " and ")
	if got < len(want) {
		return path + " needs " + need + see
	}
	return path + " takes " + need + ", not " + plural.Count(got, "argument") + see
}
