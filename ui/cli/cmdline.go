package cli

import (
	"strings"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/termtext"
)

// Command lines colabdash prints for the user to run (exec's reattach and
// "close it with" lines, create's --request-id re-run, "colabdash status
// shows it") are all built here, by commandLine: every word is quoted for
// a POSIX shell, the global flags that chose the server and the account
// are repeated, and a line that would not reach the terminal exactly as
// built is not printed as a command at all.

// pasteFlags are the global flags a printed command repeats, in this
// order, when the printing command was given them: together they choose
// the config file, the profile, the server and the account, so the pasted
// line reaches the same server as the command that printed it.
var pasteFlags = []string{"config", "profile", "demo", "endpoint", "credentials", "access-token-file", "quota-project"}

// commandLine returns the command line that runs colabdash with args
// under the same server and account: "colabdash", args, then each of
// pasteFlags this command was given, with its value; every word quoted by
// shellQuote. ok is false (line "") when a word would not be printed as
// itself, so pasting the line would run something else: it holds a
// control character, a newline, a tab or a bidirectional control (which
// termtext changes on the way to the terminal), or text the redactor
// hides. Ids from a server must pass pasteID before they become args.
func (g *globalFlags) commandLine(args ...string) (line string, ok bool) {
	words := append([]string{"colabdash"}, args...)
	words = append(words, g.pasteFlagWords()...)
	quoted := make([]string, len(words))
	for i, w := range words {
		if !printsAsItself(w, g.logs.red) {
			return "", false
		}
		quoted[i] = shellQuote(w)
	}
	line = strings.Join(quoted, " ")
	// The line is redacted whole on its way out: a pattern may span words
	// ("bearer" ending one, the next taken for the token).
	if !printsAsItself(line, g.logs.red) {
		return "", false
	}
	return line, true
}

// pasteFlagWords are the pasteFlags this command was given, as words:
// "--endpoint", "http://…"; a bool flag alone ("--demo") when true.
func (g *globalFlags) pasteFlagWords() []string {
	if g.changed == nil { // the config was never loaded: no flags to repeat
		return nil
	}
	values := map[string]string{"config": g.config, "profile": g.profileName, "endpoint": g.endpoint,
		"credentials": g.credentials, "access-token-file": g.accessTokenFile, "quota-project": g.quotaProject}
	var words []string
	for _, name := range pasteFlags {
		if !g.changed(name) {
			continue
		}
		if name == "demo" {
			if g.demo {
				words = append(words, "--demo")
			}
			continue
		}
		words = append(words, "--"+name, values[name])
	}
	return words
}

// printsAsItself reports whether w reaches the terminal unchanged: termtext
// leaves it as it is (no control, newline, tab or bidirectional control)
// and the redactor (red may be nil) hides none of it.
func printsAsItself(w string, red *api.Redactor) bool {
	if termtext.Line(w) != w || strings.ContainsAny(w, "\t\n\r") {
		return false
	}
	return red == nil || red.Redact(w) == w
}

// shellQuote quotes s as one word for a POSIX shell (sh, bash, zsh, ksh,
// dash): a word of letters, digits and -_./:@,+ only is left bare (none of
// them is special to any of these shells, also at the start of a word);
// any other word, the empty one included, is put in single quotes, inside
// which a POSIX shell expands nothing, with each ' written as '\” (close
// the quotes, a quoted ', reopen).
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@,+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// pasteID reports whether id, a runtime or session id that came from a
// server, may go into a printed command line: an RFC 1034 label (1 to 63
// lower-case letters, digits and hyphens, starting with a letter and not
// ending with a hyphen: api.ValidateID, the rule Colab applies to ids) or
// a lower-case UUID (the form Colab gives the session ids it generates).
// Anything else is not printed as a command (unusualID says why).
func pasteID(id string) bool {
	if api.ValidateID(id) == nil {
		return true
	}
	u, err := uuid.Parse(id)
	return err == nil && u.String() == id
}

// sessionArg is session name ("runtimes/R/sessions/S") as exec and
// session close take it, "R/S", unquoted; ok is false when either id
// fails pasteID.
func sessionArg(name string) (arg string, ok bool) {
	s := api.Session{Name: name}
	r, id := api.LastSegment(s.Parent()), s.ID()
	if !pasteID(r) || !pasteID(id) {
		return "", false
	}
	return r + "/" + id, true
}

// unusualID is what is said instead of a command line when a server's id
// fails pasteID: the id, made safe and cut, is named but never offered
// for pasting.
func unusualID(what, id string) string {
	return what + " id " + termtext.Cut(id, 63) + " is unusual (not an RFC 1034 label), so no command to paste is printed"
}

// unusualSession is unusualID for the first id of session name that fails
// pasteID.
func unusualSession(name string) string {
	s := api.Session{Name: name}
	if r := api.LastSegment(s.Parent()); !pasteID(r) {
		return unusualID("the runtime", r)
	}
	return unusualID("the session", s.ID())
}

// reattachHint is exec's line for a run it leaves going (detached, cut
// off, --timeout): the command that reattaches to execution executionID
// in session, or runs the code if it never started, with the same code
// given again (src), and the global flags. With ids unfit for pasting it
// names the executionId and says why no command follows.
func (g *globalFlags) reattachHint(session, executionID string, src codeSource) string {
	const lead = "the code may still be running; "
	ref, ok := sessionArg(session)
	if !ok {
		return lead + "executionId " + executionID + "; " + unusualSession(session)
	}
	words, stdin := src.again()
	line, ok := g.commandLine(append([]string{"exec", ref, "--execution-id", executionID}, words...)...)
	if !ok {
		// -f FILE with an unprintable name: the code again on stdin.
		stdin = true
		if line, ok = g.commandLine("exec", ref, "--execution-id", executionID, "-"); !ok {
			return lead + "executionId " + executionID
		}
	}
	how := "to reattach (or run it if it never started): "
	if stdin {
		how = "to reattach (or run it if it never started), give the same code on stdin to: "
	}
	return lead + how + line
}

// closeSessionHint says how to close session (a colabdash session exec
// opened), as a command to paste when its ids allow.
func (g *globalFlags) closeSessionHint(session string) string {
	ref, ok := sessionArg(session)
	if !ok {
		return "close it with colabdash session close; " + unusualSession(session)
	}
	return "close it with: " + g.commandOr("colabdash session close "+ref, "session", "close", ref)
}

// runtimeCommand is the command line of args followed by runtime id rt
// (colabdash sessions RT), or "" when the id fails pasteID or the line
// cannot be printed: callers then print prose instead.
func (g *globalFlags) runtimeCommand(rt string, args ...string) string {
	if !pasteID(rt) {
		return ""
	}
	line, _ := g.commandLine(append(args, rt)...)
	return line
}

// rerunCreate says how to get the runtime a create with requestID makes
// if the command dies: the same create with --request-id (spec, version,
// --id, --wait and --json as given), as a line to paste.
func (g *globalFlags) rerunCreate(cmd *cobra.Command, spec api.RuntimeSpecKey, version string, o createOptions, requestID string) string {
	prose := "re-run the same create with --request-id " + requestID
	arg, ok := specArg(spec)
	if !ok {
		return prose
	}
	args := []string{"create", "--spec", arg}
	if version != "" {
		args = append(args, "--version", version)
	}
	if o.runtimeID != "" {
		args = append(args, "--id", o.runtimeID)
	}
	if o.wait {
		args = append(args, "--wait")
	}
	if f := cmd.Flags().Lookup("json"); f != nil && f.Changed && f.Value.String() == "true" {
		args = append(args, "--json")
	}
	line, ok := g.commandLine(append(args, "--request-id", requestID)...)
	if !ok {
		return prose
	}
	return "to get it, run: " + line
}

// specArg is runtimeSpec k written for --spec ("GPU/T4/STANDARD"); ok is
// false when that text would not parse back to k (an accelerator from a
// server holding a "/", say), so no command may be built from it.
func specArg(k api.RuntimeSpecKey) (string, bool) {
	s := k.String()
	back, err := state.ParseSpec(s)
	return s, err == nil && back == k
}

// commandOr is commandLine(args...), or prose when that line cannot be
// printed as itself.
func (g *globalFlags) commandOr(prose string, args ...string) string {
	if line, ok := g.commandLine(args...); ok {
		return line
	}
	return prose
}
