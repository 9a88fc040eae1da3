package runtimes

import (
	"bytes"
	"context"
	"fmt"
	"github.com/colabdash/colabdash/api/plural"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/termtext"
)

// SessionsReport is the JSON of `colabdash sessions --json`.
type SessionsReport struct {
	kit.Envelope
	Runtime  kit.RuntimeName `json:"runtime"`
	Sessions []SessionEntry  `json:"sessions"`
}

// SessionEntry is one session: Name as in `status --json`
// ("runtimes/rt-abc/sessions/colabdash-1a2b3c4d"), and whether colabdash
// opened it (its id starts with "colabdash-", or the state directory
// records that the dashboard opened it under an id typed; the others are
// usually the user's notebooks).
type SessionEntry struct {
	Name              string `json:"name"`
	OpenedByColabdash bool   `json:"openedByColabdash"`
}

// SessionOpenReport is `session open --json`: the envelope and the
// session opened.
type SessionOpenReport struct {
	kit.Envelope
	SessionEntry
}

func (v *verb) sessionEntry(name string) SessionEntry {
	return SessionEntry{Name: name, OpenedByColabdash: v.OpenedByColabdash(name)}
}

// SessionsCommand is `colabdash sessions`.
func SessionsCommand(g *kit.Globals, s *kit.Streams) *cobra.Command {
	v := newVerb(g, s, "sessions")
	cmd := &cobra.Command{
		Use:   "sessions RUNTIME",
		Short: "List a runtime's sessions",
		Long: "sessions calls list_sessions on RUNTIME: the sessions colabdash opened (ids colabdash-…, and\n" +
			"those opened under an id of yours that the state directory records) and the others, usually\n" +
			"your notebooks'. A session is written RUNTIME/SESSION in other commands.\n" + kit.JSONHelp + "\n" + kit.ExitCodesHelp,
		Example:           "  colabdash sessions rt-abc\n  colabdash sessions rt-abc --json | jq -r '.sessions[] | select(.openedByColabdash) | .name'",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: v.CompleteRuntimes,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			conn, rt, err := v.ConnectRuntime(ctx, args[0])
			if err != nil {
				return err
			}
			defer conn.Close()
			ss, err := conn.Svc.ListSessions(ctx, rt.Name)
			if err != nil {
				return kit.Classify(err, conn.Creds)
			}
			rep := SessionsReport{Envelope: kit.Envelope{OK: true}, Runtime: kit.NameOf(rt.Name), Sessions: make([]SessionEntry, 0, len(ss))}
			for _, se := range ss {
				rep.Sessions = append(rep.Sessions, v.sessionEntry(se.Name))
			}
			if v.AsJSON {
				return v.WriteJSON(rep)
			}
			v.Say(termtext.Cut(rt.ID(), 63) + " · " + plural.Count(len(ss), "session"))
			if len(ss) == 0 {
				return nil
			}
			var buf bytes.Buffer
			tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "\nSESSION\tOPENED BY")
			for _, e := range rep.Sessions {
				by := "not colabdash (a notebook?)"
				if e.OpenedByColabdash {
					by = "colabdash"
				}
				fmt.Fprintf(tw, "%s\t%s\n", kit.SessionRef(e.Name), by)
			}
			tw.Flush()
			for _, line := range strings.Split(strings.TrimRight(buf.String(), "\n"), "\n") {
				v.Say(strings.TrimRight(line, " "))
			}
			return nil
		},
	}
	v.JSONFlags(cmd, "print JSON (schema: docs/scripting.md)")
	return cmd
}

// SessionCommand is `colabdash session` with its open and close subcommands.
func SessionCommand(g *kit.Globals, s *kit.Streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "session",
		Short: "Open or close a session on a runtime",
		Long:  "session open RUNTIME opens a Jupyter kernel session; session close SESSION... closes sessions.\n" + kit.ExitCodesHelp,
		Example: "  colabdash session open rt-abc\n  colabdash session close rt-abc/colabdash-1a2b3c4d --yes\n" +
			"  colabdash session close rt-abc/notebook-9f3e --force   # one colabdash did not open",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return &kit.ExitError{Code: kit.ExitUsage, Msg: "session needs a subcommand: open or close (see colabdash session --help)"}
		},
	}
	cmd.AddCommand(sessionOpenCmd(g, s), sessionCloseCmd(g, s))
	return cmd
}

func sessionOpenCmd(g *kit.Globals, s *kit.Streams) *cobra.Command {
	v := newVerb(g, s, "session open")
	var id string
	cmd := &cobra.Command{
		Use:   "open RUNTIME",
		Short: "Open a session on a runtime and print its name",
		Long: "open calls create_session on RUNTIME with a new id colabdash-XXXXXXXX, or --id (then the call\n" +
			"is create-or-get: an open session with that id is returned as it is). A session counts as\n" +
			"opened by colabdash when its id starts with colabdash-, or when it was opened under an id of\n" +
			"yours (--id, the dashboard's o) that no open session had: the state directory records it\n" +
			"(session close needs --force for the others).\n" +
			"stdout is the session as RUNTIME/SESSION, to pass to exec and session close.\n" + kit.JSONHelp + "\n" + kit.ExitCodesHelp,
		Example:           "  s=$(colabdash session open rt-abc); colabdash exec \"$s\" -c 'x = 1'; colabdash exec \"$s\" -c 'print(x)'",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: v.CompleteRuntimes,
		RunE: func(cmd *cobra.Command, args []string) error {
			if id != "" {
				if err := api.ValidateID(id); err != nil {
					return &kit.ExitError{Code: kit.ExitUsage, Msg: "--id: " + kit.AsAPIError(err).Message}
				}
			} else {
				id = state.NewSessionID()
			}
			ctx := cmd.Context()
			conn, rt, err := v.ConnectRuntime(ctx, args[0])
			if err != nil {
				return err
			}
			defer conn.Close()
			fresh := false // an id of the user's that no open session has: colabdash opens it
			if !state.IsOwnSession(id) {
				open, err := conn.Svc.ListSessions(ctx, rt.Name)
				if err != nil {
					return kit.Classify(err, conn.Creds)
				}
				fresh = !slices.ContainsFunc(open, func(s api.Session) bool { return s.ID() == id })
			}
			se, err := conn.Svc.CreateSession(ctx, rt.Name, id)
			if err != nil {
				return kit.Classify(err, conn.Creds)
			}
			if fresh {
				if err := v.RecordOpenedSession(se.Name); err != nil {
					v.Note("could not record " + kit.SessionRef(se.Name) + " as opened by colabdash (" + err.Error() + "): session close will need --force")
				}
			}
			if v.AsJSON {
				return v.WriteJSON(SessionOpenReport{kit.Envelope{OK: true}, v.sessionEntry(se.Name)})
			}
			v.Say(kit.SessionRef(se.Name))
			return nil
		},
	}
	cmd.Flags().StringVar(&id, "id", "", "session id (RFC 1034); default colabdash- and 8 random hex digits")
	v.JSONFlags(cmd, "print JSON (schema: docs/scripting.md)")
	return cmd
}

// CloseReport is the JSON of `colabdash session close --json`: one entry
// per distinct argument (a session named twice, however written, is one
// entry), in argument order.
type CloseReport struct {
	kit.Envelope
	Sessions []closeEntry `json:"sessions"`
}

// closeEntry is one session argument's outcome: Name is the session's
// name, or the argument as given when it names none; Error is why it was
// not closed.
type closeEntry struct {
	Name   string `json:"name"`
	Closed bool   `json:"closed"`
	Error  string `json:"error,omitempty"`
}

func sessionCloseCmd(g *kit.Globals, s *kit.Streams) *cobra.Command {
	v := newVerb(g, s, "session close")
	var yes, force bool
	cmd := &cobra.Command{
		Use:   "close SESSION...",
		Short: "Close sessions (asks first; only colabdash's unless --force)",
		Long: "close calls delete_session for each SESSION (RUNTIME/SESSION, RUNTIME/sessions/SESSION or\n" +
			"runtimes/RUNTIME/sessions/SESSION), which discards its kernel state and stops code running in\n" +
			"it. Only sessions colabdash opened (ids colabdash-…, or recorded: see session open) are closed\n" +
			"unless --force: the others are usually your notebooks'. On a terminal it asks first (y, or\n" +
			"the word close for a session colabdash did not open); without one it refuses unless --yes.\n" + kit.JSONHelp + "\n" + kit.ExitCodesHelp,
		Example:           "  colabdash session close rt-abc/colabdash-1a2b3c4d\n  colabdash session close rt-abc/notebook-9f3e --force --yes",
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: v.CompleteRuntimes,
		RunE: func(cmd *cobra.Command, args []string) error {
			// Every target is resolved (its runtime found, a prefix
			// completed) before any is judged or deduplicated, so one
			// session written two ways is one target, and an unknown
			// runtime is said as such whatever the session's id.
			b := newBatch(v)
			type pending struct {
				pos              int
				runtime, session string
			}
			var todo []pending
			for i, arg := range args {
				r, sid, ok := kit.SplitSessionArg(arg)
				if ok {
					todo = append(todo, pending{pos: i, runtime: r, session: sid})
					continue
				}
				if it, isNew := b.add(i, strings.TrimSpace(arg)); isNew {
					b.fail(it, &kit.ExitError{Code: kit.ExitUsage, Msg: fmt.Sprintf("%q is not a session: write RUNTIME/SESSION (%s RUNTIME lists them)", termtext.Cut(arg, 80), v.G.CommandOr("colabdash sessions", "sessions"))})
				}
			}
			report := func(items []*batchItem, env kit.Envelope) any {
				rep := CloseReport{Envelope: env, Sessions: make([]closeEntry, 0, len(items))}
				for _, it := range items {
					rep.Sessions = append(rep.Sessions, closeEntry{Name: it.name, Closed: it.done, Error: it.err})
				}
				return rep
			}
			ctx := cmd.Context()
			if len(todo) > 0 {
				conn, err := v.Connect(ctx)
				if err != nil {
					return err
				}
				defer conn.Close()
				rts, err := kit.ListRuntimes(ctx, conn)
				if err != nil {
					return err
				}
				listed := map[string][]api.Session{}
				notebooks := false
				for _, t := range todo {
					rt, err := kit.ResolveRuntime(rts, t.runtime)
					if err != nil {
						if it, isNew := b.add(t.pos, api.RuntimeName(strings.TrimSpace(t.runtime))+"/sessions/"+t.session); isNew {
							b.fail(it, err.(*kit.ExitError))
						}
						continue
					}
					name := rt.Name + "/sessions/" + t.session
					it, isNew := b.add(t.pos, name)
					if !isNew { // named twice: closed (or refused) once
						continue
					}
					if err := v.CheckListed(ctx, conn, listed, rt, name); err != nil {
						b.fail(it, err.(*kit.ExitError))
						continue
					}
					mark := ""
					if !v.OpenedByColabdash(name) {
						if !force {
							b.fail(it, &kit.ExitError{Code: kit.ExitUsage, Msg: kit.SessionRef(name) + " was not opened by colabdash (probably a notebook): closing it loses its kernel state; pass --force to close it anyway"})
							continue
						}
						mark, notebooks = "  NOT opened by colabdash (a notebook?)", true
					}
					b.target(it, kit.SessionRef(name), mark)
				}
				want := "y"
				if notebooks {
					want = "close"
				}
				if err := b.confirm(ctx, yes, question{
					header:    "Close %s? Each one's kernel state (variables, imports, running code) is lost.",
					want:      want,
					verb:      "close",
					undone:    "nothing was closed",
					cancelled: "close cancelled; nothing was closed",
					refuse:    "refusing to close sessions without confirmation: stdin or stderr is not a terminal; pass --yes to close %s",
					noun:      "session",
				}); err != nil {
					return b.stop(err, report)
				}
				b.act(ctx, func(ctx context.Context, name string) error {
					err := conn.Svc.DeleteSession(ctx, name)
					if err == nil {
						v.ForgetOpenedSession(name)
					}
					return err
				}, conn.Creds, "closed")
			}
			return b.finish(report)
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&yes, "yes", "y", false, "close without asking (needed without a terminal)")
	f.BoolVar(&force, "force", false, "also close sessions colabdash did not open (your notebooks' kernels)")
	v.JSONFlags(cmd, "print JSON (schema: docs/scripting.md)")
	return cmd
}
