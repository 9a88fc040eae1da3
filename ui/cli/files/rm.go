package files

import (
	"context"
	"errors"
	"strings"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/termtext"
	"github.com/spf13/cobra"
)

func rmCmd(g *kit.Globals, s *kit.Streams) *cobra.Command {
	v := newVerb(g, s, "rm")
	var recursive, purge, yes bool
	cmd := &cobra.Command{
		Use:   "rm RUNTIME:PATH...",
		Short: "Remove files (or directories with -r) on a runtime",
		Long: "rm removes files on a runtime through its Jupyter server; -r removes a directory with everything\n" +
			"in it. Each path named is removed in one request, never entry by entry: a symbolic link is removed\n" +
			"itself, never what it points to, and nothing outside the path named is touched. A server that\n" +
			"deletes only empty directories (its trash off, or the directory on another disk) gets a refusal\n" +
			"and nothing is removed: through it colabdash cannot tell a link from a directory. Removing asks\n" +
			"for no confirmation. PATH is read as by ls and cp: relative to /content unless it starts with /.\n\n" +
			"A stock Jupyter server moves what it deletes to its trash (~/.local/share/Trash), where it still\n" +
			"uses the runtime's disk. --purge also empties that trash, through execute_code, after asking\n" +
			"(y or yes confirms; without a terminal pass --yes); \"rm --purge RUNTIME\" only empties it.\n" + kit.JSONHelp + "\n" + kit.ExitCodesHelp,
		Example: "  colabdash rm rt-abc:/content/old.csv\n  colabdash rm -r rt-abc:/content/checkpoints\n" +
			"  colabdash rm --purge -r rt-abc:/content/checkpoints\n  colabdash rm --purge rt-abc --yes",
		Args: cobra.MinimumNArgs(1),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			return v.completeRuntimeColon(cmd, toComplete, false)
		},
		RunE: v.jsonOnFailure(func(cmd *cobra.Command, args []string) error {
			return v.rm(cmd.Context(), args, rmOptions{recursive: recursive, purge: purge, yes: yes})
		}, func(env kit.Envelope) any { return RmReport{Removed: []string{}, Envelope: env} }),
	}
	cmd.Flags().BoolVar(&purge, "purge", false, "also empty the runtime's trash, where its Jupyter server keeps deleted files (asks first)")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "with --purge: empty the trash without asking (needed without a terminal)")
	cmd.Flags().BoolVarP(&recursive, "recursive", "r", false, "remove directories and their contents")
	v.JSONFlags(cmd, "print a JSON summary: {ok, error, removed: [...], purgedBytes}")
	return cmd
}

// asRm writes a failure of one of rm's steps (the stat that tells a
// file from a directory, each delete, the Removable rule) as what the
// user asked: "rm RUNTIME:/PATH: …", not "stat RUNTIME:/PATH: no such
// file or directory".
func asRm(err error) error {
	var je *jupyter.Error
	if !errors.As(err, &je) {
		return err
	}
	c := *je
	c.Op = "rm"
	return &c
}

// RmReport is `rm --json`'s output: the remote paths removed
// ("rt-abc:/content/x"), whether all went well, and why not (redacted).
type RmReport struct {
	kit.Envelope          // first: every document starts with "ok" (docs/scripting.md)
	Removed      []string `json:"removed"`
	// PurgedBytes is what --purge freed by emptying the runtime's trash
	// (absent without --purge, or when the trash was not emptied).
	PurgedBytes *int64 `json:"purgedBytes,omitempty"`
}

// rmOptions are rm's flags.
type rmOptions struct{ recursive, purge, yes bool }

// rm removes each RUNTIME:PATH of args (all on one runtime), then with
// --purge empties the runtime's trash; "rm --purge RUNTIME" empties only
// the trash. Every path is checked before anything is removed.
func (v *verb) rm(ctx context.Context, args []string, o rmOptions) error {
	if o.purge && !o.yes && !v.CanPrompt() { // before anything is removed
		return &kit.ExitError{Code: kit.ExitUsage, Msg: "rm --purge asks before emptying the runtime's trash: stdin or stderr is not a terminal; pass --yes"}
	}
	if o.purge && len(args) == 1 && !strings.Contains(args[0], ":") {
		return v.purgeOnly(ctx, args[0], o.yes) // rm --purge RUNTIME: only the trash
	}
	locs := make([]jupyter.Location, 0, len(args))
	for _, a := range args {
		loc, err := jupyter.ParseLocation(a, true)
		if err != nil {
			return &kit.ExitError{Code: kit.ExitUsage, Msg: err.Error()}
		}
		locs = append(locs, loc)
	}
	// RUNTIME is resolved before any path rule, as README says:
	// "rm rt-zz:/x" is "no runtime", not a refusal of /x.
	rf, err := v.openRuntime(ctx, locs[0].Runtime, "")
	if err != nil {
		return err
	}
	defer rf.conn.Close()
	if err := v.checkRemovable(rf, locs); err != nil {
		return err
	}
	removed, each, failure := v.removeEach(ctx, rf, locs, o.recursive)
	several := each.First() != nil
	var purged *int64
	var perr error
	// Success is quiet: no note of the server's trash after each rm (rm
	// --help and docs/files.md explain it; a full disk's error names
	// rm --purge, where it matters).
	if o.purge && failure == nil && !several {
		purged, perr = v.purgeTrash(ctx, rf, o.yes)
	}
	if failure == nil {
		failure = perr
	}
	if v.AsJSON {
		rep := RmReport{Removed: removed, Envelope: kit.Envelope{OK: failure == nil && !several}, PurgedBytes: purged}
		switch {
		case several:
			var code *kit.ExitError
			_ = errors.As(each.Err(), &code)
			rep.Envelope = kit.Failure(&kit.ExitError{Code: code.Code, Msg: each.First().Msg}, v.Red())
		case failure != nil:
			rep.Envelope = kit.Failure(FileError(failure, rf), v.Red())
		}
		if err := v.WriteJSON(rep); err != nil {
			return err
		}
	}
	switch {
	case several:
		return each.Err()
	case failure != nil:
		return FileError(failure, rf)
	}
	return nil
}

// checkRemovable makes every location name rf's runtime (however it was
// written) and refuses, before anything is removed, a path the rule
// shared with the files pane keeps (jupyter.Removable).
func (v *verb) checkRemovable(rf *runtimeFiles, locs []jupyter.Location) error {
	for i := range locs {
		rt, err := kit.ResolveRuntime(rf.rts, locs[i].Runtime)
		if err != nil {
			return err
		}
		if rt.Name != rf.rt.Name {
			return &kit.ExitError{Code: kit.ExitUsage, Msg: "rm works on one runtime at a time"}
		}
		locs[i].Runtime = rf.rt.ID()
	}
	for _, loc := range locs {
		if err := jupyter.Removable(loc.Runtime, loc.Path); err != nil {
			return &kit.ExitError{Code: kit.ExitUsage, Msg: api.OneLine(asRm(err).Error(), 0)}
		}
	}
	return nil
}

// removeEach removes the locations in order, each in one request (a
// directory only with recursive), saying each on stdout unless --json.
// removed are RUNTIME:/PATH of what went. One path's failure (or a
// cancelled context) stops it and is failure, said whole by the caller;
// of several paths, as GNU rm, every one is tried and each failure said
// on its own line as it happens, and each holds them (its Err is the exit
// code: the failure's, or 7 when some were removed).
func (v *verb) removeEach(ctx context.Context, rf *runtimeFiles, locs []jupyter.Location, recursive bool) (removed []string, each kit.Outcomes, failure error) {
	removed = []string{}
	for _, loc := range locs {
		m, err := rf.jc.Stat(ctx, loc.Path)
		if err == nil && m.IsDir() && !recursive {
			err = &jupyter.Error{Op: "rm", Runtime: loc.Runtime, Path: loc.Path, Kind: jupyter.ErrIsDir}
		}
		if err == nil {
			err = rf.jc.RemoveAll(ctx, loc.Path, func(p string) {
				removed = append(removed, loc.Runtime+":"+absRemote(p))
				if !v.AsJSON {
					v.Say("removed " + rf.id() + ":" + termtext.Line(jupyter.DisplayName(absRemote(p))))
				}
			})
		}
		if err == nil {
			each.Succeed()
			continue
		}
		if len(locs) == 1 || ctx.Err() != nil {
			return removed, kit.Outcomes{}, asRm(err)
		}
		e := FileError(asRm(err), rf)
		each.Fail(e)
		if !v.AsJSON {
			v.Note(e.Msg)
		}
	}
	return removed, each, nil
}
