package kit

import (
	"strings"

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

// CommandLine returns the command line that runs colabdash with args
// under the same server and account: "colabdash", args, then each of
// pasteFlags this command was given, with its value; every word quoted by
// shellQuote. ok is false (line "") when a word would not be printed as
// itself, so pasting the line would run something else: it holds a
// control character, a newline, a tab or a bidirectional control (which
// termtext changes on the way to the terminal), or text the redactor
// hides. Ids from a server must pass pasteID before they become args.
func (g *Globals) CommandLine(args ...string) (line string, ok bool) {
	words := append([]string{"colabdash"}, args...)
	words = append(words, g.pasteFlagWords()...)
	quoted := make([]string, len(words))
	for i, w := range words {
		if !PrintsAsItself(w, g.Logs.Red) {
			return "", false
		}
		quoted[i] = shellQuote(w)
	}
	line = strings.Join(quoted, " ")
	// The line is redacted whole on its way out: a pattern may span words
	// ("bearer" ending one, the next taken for the token).
	if !PrintsAsItself(line, g.Logs.Red) {
		return "", false
	}
	return line, true
}

// pasteFlagWords are the pasteFlags this command was given, as words:
// "--endpoint", "http://…"; a bool flag alone ("--demo") when true.
func (g *Globals) pasteFlagWords() []string {
	if g.Changed == nil { // the config was never loaded: no flags to repeat
		return nil
	}
	values := map[string]string{"config": g.Config, "profile": g.ProfileName, "endpoint": g.Endpoint,
		"credentials": g.Credentials, "access-token-file": g.AccessTokenFile, "quota-project": g.QuotaProject}
	var words []string
	for _, name := range pasteFlags {
		if !g.Changed(name) {
			continue
		}
		if name == "demo" {
			if g.Demo {
				words = append(words, "--demo")
			}
			continue
		}
		words = append(words, "--"+name, values[name])
	}
	return words
}

// PrintsAsItself reports whether w reaches the terminal unchanged: termtext
// leaves it as it is (no control, newline, tab or bidirectional control)
// and the redactor (red may be nil) hides none of it.
func PrintsAsItself(w string, red *api.Redactor) bool {
	if termtext.Line(w) != w || strings.ContainsAny(w, "\t\n\r") {
		return false
	}
	return red == nil || red.Redact(w) == w
}

// ShellJoin is words as one POSIX shell command line: each word quoted
// by shellQuote, joined by spaces ("ls -la", "echo 'a b'").
func ShellJoin(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = shellQuote(w)
	}
	return strings.Join(quoted, " ")
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

// PasteID reports whether id, a runtime or session id that came from a
// server, may go into a printed command line or hint: state.PasteID, the
// one rule (an RFC 1034 label or a lower-case UUID). Anything else is not
// printed as a command (UnusualID says why).
func PasteID(id string) bool { return state.PasteID(id) }

// SessionArg is session name ("runtimes/R/sessions/S") as exec and
// session close take it, "R/S", unquoted; ok is false when either id
// fails pasteID.
func SessionArg(name string) (arg string, ok bool) {
	s := api.Session{Name: name}
	r, id := api.LastSegment(s.Parent()), s.ID()
	if !PasteID(r) || !PasteID(id) {
		return "", false
	}
	return r + "/" + id, true
}

// UnusualID is what is said instead of a command line when a server's id
// fails pasteID: the id, made safe and cut, is named but never offered
// for pasting.
func UnusualID(what, id string) string {
	return what + " id " + termtext.Cut(id, 63) + " is unusual (not an RFC 1034 label), so no command to paste is printed"
}

// UnusualSession is unusualID for the first id of session name that fails
// pasteID.
func UnusualSession(name string) string {
	s := api.Session{Name: name}
	if r := api.LastSegment(s.Parent()); !PasteID(r) {
		return UnusualID("the runtime", r)
	}
	return UnusualID("the session", s.ID())
}

// CloseSessionHint says how to close session (a colabdash session exec
// opened), as a command to paste when its ids allow.
func (g *Globals) CloseSessionHint(session string) string {
	ref, ok := SessionArg(session)
	if !ok {
		return "close it with colabdash session close; " + UnusualSession(session)
	}
	// --yes: the user asked for it by name, and a script has no terminal
	// to answer the question with.
	return "close it with: " + g.CommandOr("colabdash session close "+ref+" --yes", "session", "close", ref, "--yes")
}

// RuntimeCommand is the command line of args followed by runtime id rt
// (colabdash sessions RT), or "" when the id fails pasteID or the line
// cannot be printed: callers then print prose instead.
func (g *Globals) RuntimeCommand(rt string, args ...string) string {
	if !PasteID(rt) {
		return ""
	}
	line, _ := g.CommandLine(append(args, rt)...)
	return line
}

// CommandOr is commandLine(args...), or prose when that line cannot be
// printed as itself.
func (g *Globals) CommandOr(prose string, args ...string) string {
	if line, ok := g.CommandLine(args...); ok {
		return line
	}
	return prose
}
