package files

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/termtext"
)

// Commands are ls, cp, rm and forward. They are verbs like exec and
// delete: the same RUNTIME resolution (id, name or unique prefix), the
// same completion of runtime ids (cached), human lines through the
// sanitizer and the redactor, and JSON through kit.Verb.WriteJSON with its
// error fields redacted.
func Commands(g *kit.Globals, s *kit.Streams) []*cobra.Command {
	return []*cobra.Command{lsCmd(g, s), cpCmd(g, s), rmCmd(g, s), forwardCmd(g, s)}
}

// ExitNoSuchFile is kit.ExitNotFound, the exit code of a local or remote
// path (or runtime) that does not exist.
const ExitNoSuchFile = kit.ExitNotFound

// jsonOnFailure wraps a file verb's RunE: with --json, a failure that
// printed no document yet (a bad argument, an unknown runtime, no
// connection) prints doc(why) on stdout, so ls, cp and rm always print
// exactly one JSON object, "ok" false and "error" (redacted) on failure.
// The exit code and the stderr line are the failure's own.
func (v *verb) jsonOnFailure(run func(cmd *cobra.Command, args []string) error, doc func(env kit.Envelope) any) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		err := run(cmd, args)
		if err == nil || !v.AsJSON || v.WroteJSON {
			return err
		}
		if jerr := v.WriteJSON(doc(kit.Failure(FileError(err, nil), v.Red()))); jerr != nil {
			return jerr
		}
		return err
	}
}

// runtimeFiles is an open Jupyter client on one runtime.
type runtimeFiles struct {
	conn *kit.Connection
	jc   *jupyter.Client
	rt   api.Runtime   // the runtime, as get_runtime returned it
	rts  []api.Runtime // the runtimes listed to resolve the argument
}

// id is the runtime's id for messages, sanitized ("rt-abc").
func (rf *runtimeFiles) id() string { return termtext.Cut(rf.rt.ID(), 63) }

// openRuntime connects, resolves arg (rt-abc, runtimes/rt-abc or a prefix
// of exactly one live id, as every verb does) and builds a Jupyter client
// for that runtime (ops.OpenListed: the listed token while it has more
// than 5 minutes left, else one from get_runtime; renewed near its expiry
// or on the proxy's refusal). typed is cp's argument as typed, for the "did you mean a local
// file" hint ("" for commands without local arguments). The caller
// closes rf.conn.
func (v *verb) openRuntime(ctx context.Context, arg, typed string) (*runtimeFiles, error) {
	conn, err := v.Connect(ctx)
	if err != nil {
		return nil, err
	}
	rts, err := kit.ListRuntimes(ctx, conn)
	if err != nil {
		conn.Close()
		return nil, err
	}
	found, missing, ee := kit.LookupRuntime(rts, arg)
	if ee != nil {
		conn.Close()
		if missing && strings.Contains(typed, ":") {
			ee.Msg += fmt.Sprintf(" (to name a local file with a colon, write ./%s)", termtext.Cut(typed, 80))
		}
		return nil, ee
	}
	g := v.G
	jc, rt, err := ops.OpenListed(ctx, conn.Svc, found, ops.JupyterOptions{Redactor: g.Logs.Red, Logger: g.Logs.Log})
	if err != nil {
		conn.Close()
		return nil, openError(err, found, conn)
	}
	return &runtimeFiles{conn: conn, jc: jc, rt: rt, rts: rts}, nil
}

// openError is why openRuntime could not open runtime found: get_runtime's
// failure, no connectionInfo yet, or an unusable one.
func openError(err error, found api.Runtime, conn *kit.Connection) error {
	var je *jupyter.Error
	switch {
	case errors.Is(err, ops.ErrNoConnection):
		return &kit.ExitError{Code: kit.ExitAPI, Msg: fmt.Sprintf("runtime %s has no connectionInfo yet (is it still starting?)", termtext.Cut(found.ID(), 63))}
	case errors.As(err, &je):
		return FileError(err, nil)
	}
	return kit.Classify(err, conn.Creds)
}

// FileError turns a file-command failure into its exit code and one line
// (kit.FileError, with rf's credentials for an API failure).
func FileError(err error, rf *runtimeFiles) *kit.ExitError {
	if rf != nil {
		return kit.FileError(err, rf.conn.Creds)
	}
	return kit.FileError(err, nil)
}

// completeRuntimeColon completes the RUNTIME of RUNTIME:PATH with the
// live runtime ids and a colon ("rt-abc:"), from the same cache as every
// verb's runtime completion; once a colon is typed, the remote paths
// (completeRemote).
func (v *verb) completeRuntimeColon(cmd *cobra.Command, toComplete string, dirsOnly bool) ([]string, cobra.ShellCompDirective) {
	if strings.Contains(toComplete, ":") {
		return completeRemote(cmd, v.G, toComplete, dirsOnly)
	}
	ids, dir := v.CompleteRuntimes(cmd, nil, toComplete)
	for i, id := range ids {
		id, desc, _ := strings.Cut(id, "\t")
		ids[i] = id + ":\t" + desc
	}
	return ids, dir | cobra.ShellCompDirectiveNoSpace
}

// colonHint explains, for cp arguments that are both local, why one
// written RUNTIME:PATH was read as a local path: what comes before its
// colon is not a runtime id ("; "RT-C:/x" is read as a local path: "RT-C"
// is not a runtime id (…)"). It is "" when no argument looks remote: a
// local path needs no rewriting.
func colonHint(args []string) string {
	for _, a := range args {
		i := strings.IndexByte(a, ':')
		if i <= 0 || strings.HasPrefix(a, "./") || strings.HasPrefix(a, "../") || strings.HasPrefix(a, "/") || strings.ContainsAny(a[:i], `/\`) {
			continue
		}
		if _, err := os.Lstat(a); err == nil {
			continue // an existing local name with a colon
		}
		rt := strings.TrimPrefix(a[:i], "runtimes/")
		why := "is not a runtime id"
		if err := api.ValidateID(rt); err != nil {
			var ae *api.Error
			if errors.As(err, &ae) {
				why += " (" + strings.TrimPrefix(ae.Message, "id ") + ")"
			}
		}
		return fmt.Sprintf("; %q is read as a local path: %q %s", termtext.Cut(a, 80), termtext.Cut(rt, 63), why)
	}
	return ""
}

// idPrefix matches what could be the start of a runtime id.
var idPrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9-]*$`) })

// completeRemote offers the entries of the directory being typed after
// "RUNTIME:" ("rt-abc:/content/da" → "rt-abc:/content/data/"), the lookup
// bounded to 2 seconds; dirsOnly keeps only directories.
// (The RUNTIME before the colon is verb.completeRuntimeColon's.)
func completeRemote(cmd *cobra.Command, g *kit.Globals, toComplete string, dirsOnly bool) ([]string, cobra.ShellCompDirective) {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	none := cobra.ShellCompDirectiveNoFileComp
	if g.Settings == nil {
		// Completion skips PersistentPreRunE: read the config quietly, and
		// never open the log file.
		if kit.LoadConfig(cmd, g, os.Getenv) != nil {
			return nil, none
		}
		g.Logs.Log = slog.New(slog.DiscardHandler)
		if g.Logs.Red == nil {
			g.Logs.Red = &api.Redactor{}
		}
	}
	i := strings.IndexByte(toComplete, ':')
	if i < 0 {
		return nil, none // no RUNTIME: yet: nothing to connect for
	}
	conn, err := kit.Connect(ctx, *g)
	if err != nil {
		return nil, none
	}
	defer conn.Close()
	id, p := strings.TrimPrefix(toComplete[:i], "runtimes/"), toComplete[i+1:]
	rt, err := conn.Svc.GetRuntime(ctx, api.RuntimeName(id))
	if err != nil || rt.ConnectionInfo == nil {
		return nil, none
	}
	jc, err := jupyter.New(jupyter.Options{Runtime: rt.Name, Info: *rt.ConnectionInfo, Redactor: g.Logs.Red, CallTimeout: 2 * time.Second}) // registers the token
	if err != nil {
		return nil, none
	}
	dir, prefix := path.Split(p)
	m, err := jc.List(ctx, jupyter.ResolvePath(dir)) // "rt-abc:sa" completes in /content, as cp reads it
	if err != nil {
		return nil, none
	}
	var out []string
	for _, e := range m.Entries {
		if !strings.HasPrefix(e.Name, prefix) || (dirsOnly && !e.IsDir()) || termtext.Line(e.Name) != e.Name {
			continue
		}
		s := toComplete[:i+1] + dir + e.Name
		if e.IsDir() {
			s += "/"
		}
		out = append(out, s)
	}
	return out, none | cobra.ShellCompDirectiveNoSpace
}
