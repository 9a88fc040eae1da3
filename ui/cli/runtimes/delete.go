package runtimes

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/termtext"
)

// DeleteReport is the JSON of `colabdash delete --json` (kit's, which
// run's cleanup prints too).
type DeleteReport = kit.DeleteReport

// DeleteEntry is one runtime argument's outcome (kit.DeleteEntry).
type DeleteEntry = kit.DeleteEntry

// DeleteCommand is `colabdash delete`.
func DeleteCommand(g *kit.Globals, s *kit.Streams) *cobra.Command {
	v := newVerb(g, s, "delete")
	var yes, ignoreMissing bool
	cmd := &cobra.Command{
		Use:   "delete RUNTIME...",
		Short: "Delete runtimes (asks first)",
		Long: "delete calls delete_runtime for each RUNTIME (an id such as rt-abc, runtimes/rt-abc, or a\n" +
			"unique prefix). It destroys the runtime's files and sessions and cannot be undone, so on a\n" +
			"terminal it asks first, naming the running jobs and busy kernels a delete would stop (read\n" +
			"within 5s), and y or yes confirms; without a terminal it refuses unless --yes is\n" +
			"given (a piped \"y\" is not accepted). A RUNTIME that is not listed is reported and fails the\n" +
			"command, unless --ignore-missing. With several RUNTIMEs, exit code 7 (partial) means some were\n" +
			"deleted and some were not.\n" + kit.JSONHelp + "\n" + kit.ExitCodesHelp,
		Example: "  colabdash delete rt-abc\n  colabdash delete rt-abc rt-def --yes\n" +
			"  colabdash delete \"$id\" --yes --ignore-missing --json",
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: v.CompleteRuntimes,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			conn, err := v.Connect(ctx)
			if err != nil {
				return err
			}
			defer conn.Close()
			rts, err := kit.ListRuntimes(ctx, conn)
			if err != nil {
				return err
			}
			// Every argument is resolved before any is reported: the
			// runtimes this command deletes are not offered as the live
			// ones an unknown argument may have meant.
			b := newBatch(v)
			targeted := map[string]bool{}
			listed := map[*batchItem]api.Runtime{}
			type unknown struct {
				pos     int
				arg     string
				missing bool
				ee      *kit.ExitError
			}
			var unknowns []unknown
			for i, arg := range args {
				rt, missing, ee := kit.LookupRuntime(rts, arg)
				if ee != nil {
					unknowns = append(unknowns, unknown{i, arg, missing, ee})
					continue
				}
				targeted[rt.Name] = true
				if it, isNew := b.add(i, rt.Name); isNew { // named twice: deleted once
					b.target(it, termtext.Cut(rt.ID(), 63), "  "+termtext.Cut(rt.RuntimeSpec.String(), 60))
					listed[it] = rt
				}
			}
			others := slices.DeleteFunc(slices.Clone(rts), func(rt api.Runtime) bool { return targeted[rt.Name] })
			for _, u := range unknowns {
				it, isNew := b.add(u.pos, api.RuntimeName(strings.TrimSpace(u.arg)))
				switch {
				case !isNew:
				case u.missing && ignoreMissing:
					it.missing = true
					b.skip(it, termtext.Cut(u.arg, 80)+": not found (ignored: --ignore-missing)")
				default:
					it.missing = u.missing
					if u.missing {
						u.ee = kit.MissingRuntime(u.arg, rts, others, len(targeted))
					}
					b.fail(it, u.ee)
				}
			}
			report := func(items []*batchItem, env kit.Envelope) any {
				rep := DeleteReport{Envelope: env, Runtimes: make([]DeleteEntry, 0, len(items))}
				for _, it := range items {
					rep.Runtimes = append(rep.Runtimes, DeleteEntry{Name: it.name, Deleted: it.done, Missing: it.missing, Error: it.err})
				}
				return rep
			}
			if !yes && v.CanPrompt() {
				addStakes(ctx, v, conn, listed)
			}
			if err := b.confirm(ctx, yes, question{
				header:    "Delete %s? This cannot be undone: each one's files and sessions are destroyed.",
				want:      "y",
				verb:      "delete",
				undone:    "nothing was deleted",
				cancelled: "delete cancelled; nothing was deleted",
				refuse:    "refusing to delete without confirmation: stdin or stderr is not a terminal; pass --yes to delete %s",
				noun:      "runtime",
			}); err != nil {
				return b.stop(err, report)
			}
			b.act(ctx, conn.Svc.DeleteRuntime, conn.Creds, "deleted")
			return b.finish(report)
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&yes, "yes", "y", false, "delete without asking (needed without a terminal)")
	f.BoolVar(&ignoreMissing, "ignore-missing", false, "a RUNTIME that does not exist is not an error")
	v.JSONFlags(cmd, "print JSON (schema: docs/scripting.md)")
	return cmd
}

// addStakes adds to each target's question line what deleting it would
// stop (ops.ReadDeleteStakes: its running jobs and busy kernels), read
// for every target at once within ops.DeleteStakesWithin.
func addStakes(ctx context.Context, v *verb, conn *kit.Connection, listed map[*batchItem]api.Runtime) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	o := ops.JupyterOptions{Redactor: v.G.Logs.Red, Logger: v.G.Logs.Log}
	for it, rt := range listed {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := ops.ReadDeleteStakes(ctx, conn.Svc, rt, o, ops.DeleteStakesWithin).Sentence()
			if s == "" {
				return
			}
			mu.Lock()
			it.detail += "\n    " + termtext.Line(s)
			mu.Unlock()
		}()
	}
	wg.Wait()
}
