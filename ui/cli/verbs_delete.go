package cli

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/termtext"
)

// deleteReport is the JSON of `colabdash delete --json`: one entry per
// argument, in order.
type deleteReport struct {
	Runtimes []deleteEntry `json:"runtimes"`
}

// deleteEntry is one runtime argument's outcome. Name is the runtime's
// name ("runtimes/rt-abc"), or the argument as given when no runtime
// matched it; Missing is true when none did; Error is the one-line reason
// it was not deleted ("" when Deleted, or when Missing with
// --ignore-missing).
type deleteEntry struct {
	Name    string `json:"name"`
	Deleted bool   `json:"deleted"`
	Missing bool   `json:"missing,omitempty"`
	Error   string `json:"error,omitempty"`
}

func deleteCmd(g *globalFlags, s *streams) *cobra.Command {
	v := newVerb(g, s, "delete")
	var yes, ignoreMissing bool
	cmd := &cobra.Command{
		Use:   "delete RUNTIME...",
		Short: "Delete runtimes (asks first)",
		Long: "delete calls delete_runtime for each RUNTIME (an id such as rt-abc, runtimes/rt-abc, or a\n" +
			"unique prefix). It destroys the runtime's files and sessions and cannot be undone, so on a\n" +
			"terminal it asks first, and only y confirms; without a terminal it refuses unless --yes is\n" +
			"given (a piped \"y\" is not accepted). A RUNTIME that is not listed is reported and fails the\n" +
			"command, unless --ignore-missing. With several RUNTIMEs, exit code 1 means some were deleted\n" +
			"and some were not.\n" + exitCodesHelp,
		Example: "  colabdash delete rt-abc\n  colabdash delete rt-abc rt-def --yes\n" +
			"  colabdash delete \"$id\" --yes --ignore-missing --json",
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: v.completeRuntimes,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !yes && !v.canPrompt() {
				return &exitError{exitUsage, "refusing to delete without confirmation: stdin or stderr is not a terminal; pass --yes to delete " +
					strconv.Itoa(len(args)) + " runtime(s)"}
			}
			ctx := cmd.Context()
			conn, err := v.connect(ctx)
			if err != nil {
				return err
			}
			defer conn.close()
			rts, err := listRuntimes(ctx, conn)
			if err != nil {
				return err
			}
			entries := make([]deleteEntry, len(args))
			var targets []int // indexes into args of the runtimes to delete
			var res outcomes
			seen := map[string]bool{}
			for i, arg := range args {
				rt, missing, ee := lookupRuntime(rts, arg)
				switch {
				case ee != nil && missing && ignoreMissing:
					entries[i] = deleteEntry{Name: api.RuntimeName(strings.TrimSpace(arg)), Missing: true}
					res.succeed()
					if !v.asJSON {
						v.say(termtext.Cut(arg, 80) + ": not found (ignored: --ignore-missing)")
					}
				case ee != nil:
					entries[i] = deleteEntry{Name: api.RuntimeName(strings.TrimSpace(arg)), Missing: missing, Error: ee.msg}
					res.fail(ee)
					if !v.asJSON {
						v.note(ee.msg)
					}
				case seen[rt.Name]: // named twice: deleted once
					entries[i] = deleteEntry{Name: rt.Name}
				default:
					seen[rt.Name] = true
					entries[i] = deleteEntry{Name: rt.Name}
					targets = append(targets, i)
				}
			}
			if len(targets) > 0 && !yes {
				var b strings.Builder
				fmt.Fprintf(&b, "Delete %d runtime(s)? This cannot be undone: each one's files and sessions are destroyed.\n", len(targets))
				for _, i := range targets {
					rt, _ := resolveRuntime(rts, entries[i].Name)
					fmt.Fprintf(&b, "  %s  %s\n", termtext.Cut(rt.ID(), 63), termtext.Cut(rt.RuntimeSpec.String(), 60))
				}
				b.WriteString("Type y to delete (anything else cancels): ")
				if ok, err := v.confirm(ctx, b.String(), "y", "nothing was deleted"); err != nil {
					return err
				} else if !ok {
					return &exitError{exitPartial, "delete cancelled; nothing was deleted"}
				}
			}
			for _, i := range targets {
				name := entries[i].Name
				if err := conn.svc.DeleteRuntime(ctx, name); err != nil {
					ee := classify(err, conn.creds)
					entries[i].Error = ee.msg
					res.fail(ee)
					if !v.asJSON {
						v.note(termtext.Cut(api.LastSegment(name), 63) + ": " + ee.msg)
					}
					continue
				}
				entries[i].Deleted = true
				res.succeed()
				if !v.asJSON {
					v.say("deleted " + termtext.Cut(api.LastSegment(name), 63))
				}
			}
			for i := range entries { // a runtime named twice shares its outcome
				if j := slices.IndexFunc(entries, func(e deleteEntry) bool { return e.Name == entries[i].Name }); j != i && !entries[i].Missing {
					entries[i] = entries[j]
				}
			}
			if v.asJSON {
				for i := range entries {
					entries[i].Error = v.red().Redact(entries[i].Error)
				}
				if err := v.writeJSON(deleteReport{Runtimes: entries}); err != nil {
					return err
				}
			}
			return res.err()
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&yes, "yes", "y", false, "delete without asking (needed without a terminal)")
	f.BoolVar(&ignoreMissing, "ignore-missing", false, "a RUNTIME that does not exist is not an error")
	f.BoolVar(&v.asJSON, "json", false, "print JSON (schema in README, Scripting)")
	return cmd
}
